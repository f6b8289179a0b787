import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate, useRevalidator } from 'react-router'
import { LOCALE_NAMES, type Locale } from '../../../shared/locales.ts'
import type { EditorProgram, ProgramRevision } from '../../../shared/catalogue/program-editor.ts'
import { apiSend, errorMessage } from '../../lib/api.ts'
import type { DraftPart } from './program-draft.ts'

// A program's history in the console: each revision, newest first, with who made it,
// when, and each field it changed (before → after); any earlier one can be restored, which makes
// a new revision equal to it.

const FIELDS = ['name', 'developer', 'publisher', 'licenseType', 'price', 'categories', 'platforms', 'languages', 'version', 'updated', 'released', 'homepage', 'retired'] as const

/** The name of a part of a program (a field, or a language's texts) in the console's language. */
export function usePartLabel(): (part: DraftPart | string) => string {
  const { t } = useTranslation('operator')
  return (part) => {
    if (part.startsWith('texts.')) {
      const locale = part.slice(6) as Locale
      return t('programs.fields.texts', { language: LOCALE_NAMES[locale] ?? locale })
    }
    // The external ids, and a release recorded (a revision's `releases`).
    if (part === 'externalIds') return t('releases.externalIds.legend')
    if (part === 'releases') return t('releases.title')
    return (FIELDS as readonly string[]).includes(part) ? t(`programs.fields.${part as (typeof FIELDS)[number]}`) : part
  }
}

const SHORT = 160

/** A price as the console's language writes an amount of its currency ("4,50 €"); as typed when the currency is not one. */
function money(amount: unknown, currency: unknown, language: string): string {
  try {
    return new Intl.NumberFormat(language, { style: 'currency', currency: String(currency) }).format(Number(amount))
  } catch {
    return `${String(amount)} ${String(currency)}`
  }
}

/**
 * A field's value as one line a person reads: licence types, categories and platforms by their
 * names, a price with its period, texts as their summary and the start of the description.
 */
export function useShownValue(): (value: unknown, field?: string) => string {
  const { t, i18n } = useTranslation(['operator', 'catalogue', 'common'])
  const named = (field: string | undefined, item: string): string => {
    if (field === 'licenseType') return t(`catalogue:licenseTypes.${item}` as 'catalogue:licenseTypes.freeware', { defaultValue: item })
    if (field === 'categories') return t(`common:categories.${item}` as 'common:categories.3d', { defaultValue: item })
    if (field === 'platforms') return t(`catalogue:platforms.${item}` as 'catalogue:platforms.web', { defaultValue: item })
    return item
  }
  const shown = (value: unknown, field?: string): string => {
    if (value === null || value === undefined || value === '') return t('programs.revisions.empty')
    if (typeof value === 'boolean') return value ? t('programs.retired') : t('programs.public')
    if (typeof value === 'string') return named(field, value)
    if (typeof value === 'number') return String(value)
    if (Array.isArray(value)) return value.length === 0 ? t('programs.revisions.empty') : value.map((item) => shown(item, field)).join(', ')
    if (typeof value === 'object') {
      const record = value as Record<string, unknown>
      if ('amount' in record && 'currency' in record) {
        const period = record.period === 'month' || record.period === 'year' || record.period === 'one-time' ? t(`programs.periods.${record.period}`) : ''
        return `${money(record.amount, record.currency, i18n.language)} ${period}`.trim()
      }
      if ('summary' in record || 'description' in record) {
        const text = [record.summary, record.description].filter((part) => typeof part === 'string' && part !== '').join(' — ')
        return text.length > SHORT ? `${text.slice(0, SHORT)}…` : text || t('programs.revisions.empty')
      }
      if ('name' in record) return String(record.name)
      return JSON.stringify(value)
    }
    return String(value)
  }
  return shown
}

export function ProgramRevisions({ program, revisions, onStale }: { program: EditorProgram; revisions: ProgramRevision[]; onStale: (text: string) => void }) {
  const { t, i18n } = useTranslation(['operator', 'common'])
  const navigate = useNavigate()
  const revalidator = useRevalidator()
  const shown = useShownValue()
  const label = usePartLabel()
  const [busy, setBusy] = useState<number | null>(null)
  // UTC on the server and in every browser alike: the console's times are the audit log's.
  const when = new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })

  const revert = async (revision: number) => {
    setBusy(revision)
    const result = await apiSend<{ revision: number }>('POST', `/api/operator/programs/${encodeURIComponent(program.id)}/revert`, { revision, baseRevision: program.revision })
    setBusy(null)
    if (result.ok) {
      await navigate('.', { replace: true, state: { reverted: revision } })
      return
    }
    if (result.status === 409) {
      onStale(t('programs.revisions.stale'))
      await revalidator.revalidate()
      return
    }
    onStale(result.status === 0 ? t('programs.errors.network') : t('programs.errors.failed', { message: errorMessage(result) ?? t('common:errors.occuredSomeError') }))
  }

  return (
    <section className="operator-revisions" aria-labelledby="program-revisions-title">
      <h2 id="program-revisions-title">{t('programs.revisions.title')}</h2>
      <p className="hint">{t('programs.revisions.lead')}</p>
      <ol reversed>
        {revisions.map((entry) => (
          <li key={entry.revision} className="operator-revision" data-testid={`revision-${entry.revision}`}>
            <div className="operator-revision-head">
              <strong>{t('programs.revisions.entry', { revision: entry.revision })}</strong>
              <span className="operator-badge">{t(`programs.revisions.actions.${entry.action}`)}</span>
              {entry.revision === program.revision ? <span className="operator-badge operator-badge-current">{t('programs.revisions.current')}</span> : null}
              <span className="operator-revision-by">{t('programs.revisions.by', { actor: entry.actor.email, at: `${when.format(new Date(entry.at))} UTC` })}</span>
            </div>
            <ul className="operator-changes">
              {Object.entries(entry.changes).map(([field, change]) => (
                <li key={field}>
                  <span className="operator-change-field">{`${label(field)}:`}</span>{' '}
                  {change.before === null || change.before === undefined ? null : (
                    <>
                      <del>{shown(change.before, field)}</del> <span aria-hidden="true">→</span>{' '}
                    </>
                  )}
                  <ins>{shown(change.after, field)}</ins>
                </li>
              ))}
            </ul>
            {entry.revision !== program.revision && entry.action !== 'retire' ? (
              <button
                type="button"
                className="button button-secondary button-small"
                disabled={busy !== null}
                aria-label={t('programs.revisions.revert', { revision: entry.revision })}
                onClick={() => void revert(entry.revision)}
              >
                {t('programs.revisions.revertShort')}
              </button>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  )
}
