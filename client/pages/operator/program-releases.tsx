import { useEffect, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate } from 'react-router'
import { EDITOR_RELEASE_SOURCE } from '../../../shared/catalogue/living.ts'
import type { Release } from '../../../shared/catalogue/living-schemas.ts'
import { formatPartialDate, type DatePrecision } from '../../../shared/catalogue/partial-dates.ts'
import { RELEASE_LIMITS, releaseProblems, type FieldProblem } from '../../../shared/catalogue/program-editor.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiSend, errorMessage } from '../../lib/api.ts'

// A program's releases in the console: its history, newest first, and an editor's new
// release (POST /api/operator/programs/{id}/releases). The checks are the API's own
// (shared/catalogue/program-editor.ts releaseProblems), shown next to the field before anything is sent;
// what only the API knows (a version the history has) is shown there too.

type ReleaseField = 'version' | 'date' | 'notesUrl'
const FIELDS: readonly ReleaseField[] = ['version', 'date', 'notesUrl']

/** What the page was told by the release that led to it (a new revision reloads the editor). */
export interface ReleaseArrival {
  releaseAdded?: string
}

/** How precisely a release's date is known, from how it is written (the public page's rule too; kept apart so its chunk stays its own). */
const precisionOf = (date: string): DatePrecision => (date.length === 4 ? 'year' : date.length === 7 ? 'month' : 'day')

const today = (): string => new Date().toISOString().slice(0, 10)

export function ProgramReleases({ programId, releases }: { programId: string; releases: Release[] }) {
  const { t, i18n } = useTranslation(['operator', 'common'])
  const navigate = useNavigate()
  const location = useLocation()
  const added = (location.state as ReleaseArrival | null)?.releaseAdded
  const [form, setForm] = useState<Record<ReleaseField, string>>({ version: '', date: '', notesUrl: '' })
  const [errors, setErrors] = useState<Partial<Record<ReleaseField, string>>>({})
  const [failure, setFailure] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [focus, setFocus] = useState<ReleaseField | null>(null)
  const focusTick = useRef(0)

  useEffect(() => {
    if (focus) document.getElementById(`release-${focus}`)?.focus()
  }, [focus, focusTick])

  const show = (problems: FieldProblem[]) => {
    const next: Partial<Record<ReleaseField, string>> = {}
    for (const problem of problems) {
      const field = FIELDS.find((candidate) => problem.field === candidate)
      if (field) next[field] ??= t(`releases.errors.${field}`)
    }
    setErrors(next)
    const first = FIELDS.find((field) => next[field])
    if (first) {
      focusTick.current++
      setFocus(first)
    } else {
      setFailure(problems.map((p) => p.message).join(' '))
    }
  }

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (busy) return
    setFailure(null)
    const body = { version: form.version.trim(), date: form.date.trim(), ...(form.notesUrl.trim() !== '' ? { notesUrl: form.notesUrl.trim() } : {}) }
    const problems = releaseProblems(body, today())
    if (problems.length > 0) return show(problems)
    setBusy(true)
    const result = await apiSend<{ revision: number }>('POST', `/api/operator/programs/${encodeURIComponent(programId)}/releases`, body)
    setBusy(false)
    if (result.ok) {
      // The release is a new revision of the program: the editor reloads on top of it.
      await navigate('.', { replace: true, state: { releaseAdded: body.version } satisfies ReleaseArrival })
      return
    }
    const fields = (result.body as { fields?: FieldProblem[] } | null)?.fields
    if (result.status === 400 && Array.isArray(fields) && fields.length > 0) return show(fields)
    if (result.status === 409) {
      setErrors({ version: t('releases.errors.exists', { version: body.version }) })
      focusTick.current++
      setFocus('version')
      return
    }
    setErrors({})
    setFailure(result.status === 0 ? t('releases.errors.network') : t('releases.errors.failed', { message: errorMessage(result) ?? t('common:errors.occuredSomeError') }))
  }

  const input = (field: ReleaseField, props: React.InputHTMLAttributes<HTMLInputElement>) => {
    const id = `release-${field}`
    const hint = field === 'version' ? null : t(`releases.hints.${field}`)
    const describedBy = [hint ? `${id}-hint` : null, errors[field] ? `${id}-error` : null].filter(Boolean).join(' ') || undefined
    return (
      <div className="field">
        <label htmlFor={id}>{t(`releases.fields.${field}`)}</label>
        <input
          id={id}
          value={form[field]}
          onChange={(event) => setForm((current) => ({ ...current, [field]: event.target.value }))}
          aria-invalid={errors[field] ? true : undefined}
          aria-describedby={describedBy}
          {...props}
        />
        {hint ? (
          <p id={`${id}-hint`} className="hint">
            {hint}
          </p>
        ) : null}
        {errors[field] ? (
          <p id={`${id}-error`} className="field-error">
            {errors[field]}
          </p>
        ) : null}
      </div>
    )
  }

  return (
    <section className="operator-releases" aria-labelledby="program-releases-title" data-testid="program-releases">
      <h2 id="program-releases-title">{t('releases.title')}</h2>
      <p className="hint">{t('releases.lead')}</p>
      {added ? (
        <Notice kind="success" testId="release-status">
          {t('releases.added', { version: added })}
        </Notice>
      ) : null}
      {releases.length === 0 ? (
        <p>{t('releases.none')}</p>
      ) : (
        <div className="operator-table-wrap" tabIndex={0} role="region" aria-labelledby="program-releases-title">
          <table className="operator-table">
            <thead>
              <tr>
                <th scope="col">{t('releases.columns.version')}</th>
                <th scope="col">{t('releases.columns.date')}</th>
                <th scope="col">{t('releases.columns.source')}</th>
                <th scope="col">{t('releases.columns.notes')}</th>
              </tr>
            </thead>
            <tbody>
              {releases.map((release) => (
                <tr key={release.version}>
                  <td>{release.version}</td>
                  <td>
                    <time dateTime={release.date}>{formatPartialDate(release.date, precisionOf(release.date), i18n.language)}</time>
                  </td>
                  <td>{release.source === EDITOR_RELEASE_SOURCE ? t('releases.editors') : <code>{release.source}</code>}</td>
                  <td>
                    {release.notesUrl ? (
                      <a href={release.notesUrl} rel="noopener noreferrer external" target="_blank">
                        {t('releases.notesLink')}
                      </a>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className="operator-release-form" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="program-release-add">
        <h3 id="program-release-add">{t('releases.add')}</h3>
        {failure ? <Notice kind="error">{failure}</Notice> : null}
        <div className="operator-grid">
          {input('version', { type: 'text', maxLength: RELEASE_LIMITS.version, required: true, autoComplete: 'off' })}
          {input('date', { type: 'date', max: today(), required: true })}
          {input('notesUrl', { type: 'url', maxLength: RELEASE_LIMITS.notesUrl, placeholder: 'https://' })}
        </div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? t('releases.adding') : t('releases.submit')}
        </button>
      </form>
    </section>
  )
}
