import type { TFunction } from 'i18next'
import type { ProgramSummary } from '../../shared/catalogue/program-schemas.ts'

const formats = new Map<string, Intl.NumberFormat>()

/** One formatter per language and currency: building one costs more than formatting. */
function currencyFormat(language: string, currency: string): Intl.NumberFormat {
  const key = `${language}|${currency}`
  let format = formats.get(key)
  if (!format) formats.set(key, (format = new Intl.NumberFormat(language, { style: 'currency', currency })))
  return format
}

/** The price of a program; `t` and `language` come from the caller, which renders many of these at once. */
export function PriceLabel({ program, t, language }: { program: Pick<ProgramSummary, 'price'>; t: TFunction<'catalogue'>; language: string }) {
  if (!program.price) return <span className="price">{t('program.free')}</span>
  const price = currencyFormat(language, program.price.currency).format(program.price.amount)
  const key = program.price.period === 'month' ? 'program.perMonth' : program.price.period === 'year' ? 'program.perYear' : 'program.price'
  return <span className="price">{t(key, { price })}</span>
}
