// Dates known to the year, the month or the day: a program first released "in 1998"
// must not show as "1 January 1998". The catalogue writes such a date as ISO 8601 does with
// reduced precision — "1998", "1998-02", "1998-02-14" — and stores the first day of the period
// with its precision, so sorting by date still works.

export const DATE_PRECISIONS = ['year', 'month', 'day'] as const
export type DatePrecision = (typeof DATE_PRECISIONS)[number]

/** "1998", "1998-02" or "1998-02-14"; the JSON schema's pattern of such a date. */
export const PARTIAL_DATE_PATTERN = '^\\d{4}(-\\d{2}(-\\d{2})?)?$'
const PARTIAL_DATE = new RegExp(PARTIAL_DATE_PATTERN)

export interface PartialDate {
  /** The first day of the period, YYYY-MM-DD. */
  start: string
  precision: DatePrecision
}

const LENGTH: Record<DatePrecision, number> = { year: 4, month: 7, day: 10 }

/** "1998-02" → { start: "1998-02-01", precision: "month" }; null for anything that is not a real date (2023-02-30, 1998-13). */
export function parsePartialDate(value: string): PartialDate | null {
  if (!PARTIAL_DATE.test(value)) return null
  const precision: DatePrecision = value.length === 4 ? 'year' : value.length === 7 ? 'month' : 'day'
  const start = `${value}${'-01'.repeat((10 - value.length) / 3)}`
  const date = new Date(`${start}T00:00:00Z`)
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== start ? null : { start, precision }
}

/** What is known of a date stored as its period's first day: ("1998-01-01", "year") → "1998". */
export function partialDate(start: string, precision: DatePrecision): string {
  return start.slice(0, LENGTH[precision])
}

/**
 * The date as a visitor of `locale` reads it, saying no more than is known: "1998", "February
 * 1998" (de "Februar 1998"), or the day as the medium date style writes it.
 */
export function formatPartialDate(value: string, precision: DatePrecision, locale: string): string {
  const options: Intl.DateTimeFormatOptions =
    precision === 'day' ? { dateStyle: 'medium' } : precision === 'month' ? { year: 'numeric', month: 'long' } : { year: 'numeric' }
  const start = parsePartialDate(partialDate(value, precision))?.start ?? value
  return new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' }).format(new Date(`${start}T00:00:00Z`))
}

/** Whether `a` can be no later than `b`, comparing only what both say ("2024-11-19" and "2024-11" can). */
export function mayPrecede(a: string, b: string): boolean {
  const length = Math.min(a.length, b.length)
  return a.slice(0, length) <= b.slice(0, length)
}
