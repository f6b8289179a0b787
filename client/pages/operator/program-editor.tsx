import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { data, Link, useLoaderData, useLocation, useNavigate, type LoaderFunctionArgs } from 'react-router'
import { permissionsOf } from '../../../shared/operator.ts'
import { PROGRAM_CATEGORIES, type LicenseType } from '../../../shared/catalogue/catalogue.ts'
import { LICENSE_TYPE_IDS, PLATFORMS } from '../../../shared/catalogue/vocabulary.ts'
import { EXTERNAL_CATALOGUES, EXTERNAL_ID_MAX_LENGTH } from '../../../shared/catalogue/living.ts'
import type { Release } from '../../../shared/catalogue/living-schemas.ts'
import { LOCALES, LOCALE_NAMES, type Locale } from '../../../shared/locales.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { PROGRAM_LIMITS, programProblems, type EditorProgram, type FieldProblem, type ProgramRevision } from '../../../shared/catalogue/program-editor.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiGet, apiResponse, apiSend, errorMessage } from '../../lib/api.ts'
import { changesOf, draftOf, emptyDraft, errorTarget, hasText, isFreeLicence, mergeDrafts, partOf, partsChanged, writtenOf, type Draft } from './program-draft.ts'
import { ProgramMediaSection, type ProgramMedia } from './program-media.tsx'
import { ProgramReleases } from './program-releases.tsx'
import { ProgramRevisions, usePartLabel, useShownValue } from './program-revisions.tsx'

// /@/operator/programs/new and /@/operator/programs/:id: the editor of one program as
// written, its texts a tab per language. A save sends only what changed, on top of the revision
// the editor opened; when someone else saved first (409) the editor sees both versions and keeps
// every value typed until they choose.
// One file over 500 lines: the tabs, the conflict view and the save share one draft and its
// revision; the draft's pure logic (program-draft.ts), media, releases and revisions are beside it.

export interface EditorData {
  program: EditorProgram | null
  revisions: ProgramRevision[]
  /** Its logo and screenshots; null for a new program. */
  media: ProgramMedia | null
  /** Its releases, newest first; [] for a new program. */
  releases: Release[]
}

export async function loader({ params, request, context }: LoaderFunctionArgs): Promise<EditorData> {
  if (!params.id) {
    // Nothing to read for a new program: the page itself asks whether the account may write one.
    const user = await apiResponse(context, '/api/user', request.signal)
    const roles = user.status === 200 ? (user.body as UserRecord).roles : []
    if (!permissionsOf(roles).includes('catalogue:write')) {
      throw data(null, { status: 403 })
    }
    return { program: null, revisions: [], media: null, releases: [] }
  }
  const path = `/api/operator/programs/${encodeURIComponent(params.id)}`
  const [program, revisions, media, releases] = await Promise.all([
    apiGet<EditorProgram>(context, path, request.signal),
    apiGet<ProgramRevision[]>(context, `${path}/revisions`, request.signal),
    apiGet<ProgramMedia>(context, `${path}/media`, request.signal),
    apiGet<{ items: Release[] }>(context, `${path}/releases`, request.signal),
  ])
  return { program, revisions, media, releases: releases.items }
}

/** What the editor's page was told by the save that led to it. */
interface ArrivalState {
  created?: boolean
  saved?: number
  reverted?: number
  kept?: number
}

export function Component() {
  const data = useLoaderData() as EditorData
  // A new revision is a fresh editor: the draft starts again from what is stored.
  return <ProgramEditor key={data.program ? `${data.program.id}@${data.program.revision}` : 'new'} data={data} />
}

/** The id of the input an error target belongs to: `texts.de.summary` → `program-texts-de-summary`. */
const inputId = (target: string) => `program-${target.replace(/\./g, '-')}`

/** The key of the translated message of an error target. */
function errorKey(target: string): string | null {
  if (target.startsWith('texts.')) return target.endsWith('.description') ? 'description' : 'summary'
  const key = target.startsWith('price.') ? target.slice(6) : target
  return ['name', 'developer', 'publisher', 'licenseType', 'amount', 'currency', 'period', 'categories', 'platforms', 'languages', 'version', 'updated', 'released', 'homepage'].includes(key) ? key : null
}

interface Conflict {
  theirs: EditorProgram
  /** The draft as it was when the save was refused: shown, never dropped. */
  mine: Draft
}

type Status = { kind: 'success' | 'error' | 'info'; text: string } | null

/** What an id of each catalogue looks like, shown in its empty input. */
const EXTERNAL_ID_EXAMPLES = { flathub: 'org.blender.Blender', winget: 'BlenderFoundation.Blender', homebrew: 'blender' } as const

function ProgramEditor({ data: { program, revisions, media, releases } }: { data: EditorData }) {
  const { t } = useTranslation(['operator', 'catalogue', 'common'])
  const navigate = useNavigate()
  const location = useLocation()
  const arrival = (location.state as ArrivalState | null) ?? {}
  const [base, setBase] = useState<EditorProgram | null>(program)
  const [draft, setDraft] = useState<Draft>(() => (program ? draftOf(program) : emptyDraft()))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [status, setStatus] = useState<Status>(() => {
    if (arrival.created) return { kind: 'success', text: t('programs.editor.created') }
    if (arrival.saved) return { kind: 'success', text: t('programs.editor.saved', { revision: arrival.saved }) }
    if (arrival.reverted) return { kind: 'success', text: t('programs.revisions.reverted', { revision: arrival.reverted }) }
    return null
  })
  const [busy, setBusy] = useState(false)
  const [conflict, setConflict] = useState<Conflict | null>(null)
  const [tab, setTab] = useState<Locale>('en')
  const [focus, setFocus] = useState<{ target: string } | null>(null)
  const [confirmRetire, setConfirmRetire] = useState(false)
  const conflictRef = useRef<HTMLElement>(null)

  const baseDraft = base ? draftOf(base) : emptyDraft()
  const dirty = base ? Object.keys(changesOf(baseDraft, draft)).length > 0 : true

  useEffect(() => {
    if (!focus) return
    document.getElementById(inputId(focus.target))?.focus()
  }, [focus])
  useEffect(() => {
    if (conflict) conflictRef.current?.focus()
  }, [conflict])

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((current) => ({ ...current, [key]: value }))
  const setText = (locale: Locale, which: 'summary' | 'description', value: string) =>
    setDraft((current) => ({ ...current, texts: { ...current.texts, [locale]: { ...current.texts[locale], [which]: value } } }))
  const toggle = <K extends 'categories' | 'platforms'>(key: K, value: Draft[K][number], on: boolean) =>
    setDraft((current) => {
      const list = current[key] as string[]
      return { ...current, [key]: on ? [...list.filter((item) => item !== value), value] : list.filter((item) => item !== value) }
    })

  /** Shows problems next to their fields (translated), the rest above the form, and focuses the first. */
  const showProblems = (problems: FieldProblem[], fallback?: string) => {
    const next: Record<string, string> = {}
    const unplaced: string[] = []
    for (const problem of problems) {
      const target = errorTarget(problem.field)
      const key = errorKey(target)
      const catalogue = EXTERNAL_CATALOGUES.find((c) => target === `externalIds.${c}`)
      if (catalogue) next[target] ??= t('releases.externalIds.error', { catalogue: t(`releases.externalIds.${catalogue}`), example: EXTERNAL_ID_EXAMPLES[catalogue] })
      else if (!key) unplaced.push(problem.message)
      else next[target] ??= t(`programs.errors.${key}` as 'programs.errors.name')
    }
    setErrors(next)
    const first = Object.keys(next)[0]
    const count = Object.keys(next).length
    const summary = [count > 0 ? t('programs.errors.fixFields', { count }) : null, ...unplaced, count === 0 && unplaced.length === 0 ? (fallback ?? null) : null].filter(Boolean).join(' ')
    setStatus({ kind: 'error', text: summary })
    if (first) {
      if (first.startsWith('texts.')) setTab(first.split('.')[1] as Locale)
      setFocus({ target: first })
    }
  }

  /** Saves `next` on top of `on` (null: a new program). */
  const save = async (next: Draft, on: EditorProgram | null) => {
    const written = writtenOf(next)
    const problems = programProblems(written as unknown as Record<string, unknown>)
    if (problems.length > 0) return showProblems(problems)
    setErrors({})
    if (on) {
      const changes = changesOf(draftOf(on), next)
      if (Object.keys(changes).length === 0) return setStatus({ kind: 'info', text: t('programs.editor.noChanges', { revision: on.revision }) })
      setBusy(true)
      setStatus(null)
      const result = await apiSend<{ revision: number }>('PATCH', `/api/operator/programs/${encodeURIComponent(on.id)}`, { baseRevision: on.revision, ...changes })
      if (result.ok) {
        await navigate('.', { replace: true, state: { saved: (result.body as { revision: number }).revision } satisfies ArrivalState })
        return
      }
      setBusy(false)
      if (result.status === 409) {
        const theirs = await apiResponse(undefined, `/api/operator/programs/${encodeURIComponent(on.id)}`)
        if (theirs.status === 200) {
          setConflict({ theirs: theirs.body as EditorProgram, mine: next })
          return
        }
      }
      return failed(result.status, errorMessage(result), result.body)
    }
    setBusy(true)
    setStatus(null)
    const result = await apiSend<{ id: string; revision: number }>('POST', '/api/operator/programs', written)
    if (result.ok) {
      await navigate(`/@/operator/programs/${encodeURIComponent((result.body as { id: string }).id)}`, { state: { created: true } satisfies ArrivalState })
      return
    }
    setBusy(false)
    failed(result.status, errorMessage(result), result.body)
  }

  const failed = (statusCode: number, message: string | undefined, body: unknown) => {
    const fields = (body as { fields?: FieldProblem[] } | null)?.fields
    if (statusCode === 400 && Array.isArray(fields) && fields.length > 0) return showProblems(fields, message)
    setStatus({ kind: 'error', text: statusCode === 0 ? t('programs.errors.network') : t('programs.errors.failed', { message: message ?? t('common:errors.occuredSomeError') }) })
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (!busy) void save(draft, base)
  }

  const useTheirs = () => {
    setConflict(null)
    setStatus(null)
    void navigate('.', { replace: true })
  }

  const keepMine = () => {
    if (!conflict || !base) return
    const merged = mergeDrafts(draftOf(base), conflict.mine, draftOf(conflict.theirs))
    setBase(conflict.theirs)
    setDraft(merged)
    setConflict(null)
    void save(merged, conflict.theirs)
  }

  const retire = async () => {
    if (!base) return
    setBusy(true)
    const result = await apiSend('DELETE', `/api/operator/programs/${encodeURIComponent(base.id)}`)
    setBusy(false)
    setConfirmRetire(false)
    if (result.ok) {
      await navigate(`/@/operator/programs?${new URLSearchParams({ q: base.id }).toString()}`, { state: { retired: base.name } })
      return
    }
    failed(result.status, errorMessage(result), result.body)
  }

  const free = isFreeLicence(draft.licenseType)
  const errorOf = (target: string) => errors[target]
  const described = (target: string, hint?: boolean) => [hint ? `${inputId(target)}-hint` : null, errors[target] ? `${inputId(target)}-error` : null].filter(Boolean).join(' ') || undefined

  return (
    <main id="content" className="operator-page operator-editor">
      <p className="operator-back">
        <Link to="/@/operator/programs">← {t('programs.editor.back')}</Link>
      </p>
      <header className="operator-header">
        <div>
          <h1>{base ? t('programs.editor.editTitle', { name: base.name }) : t('programs.editor.newTitle')}</h1>
          {base ? (
            <p className="operator-meta">
              <span>{t('programs.editor.revision', { revision: base.revision })}</span>
              <span className="operator-id">{base.id}</span>
              {!base.retired ? <Link to={`/@/programs/${encodeURIComponent(base.id)}`}>{t('programs.editor.publicPage')}</Link> : null}
              {dirty && !conflict ? <span className="operator-badge operator-badge-dirty">{t('programs.editor.unsaved')}</span> : null}
            </p>
          ) : null}
        </div>
      </header>
      {base?.retired ? <Notice kind="warning">{t('programs.editor.retiredNotice')}</Notice> : null}
      {status ? (
        <Notice kind={status.kind} testId="program-status">
          {status.text}
        </Notice>
      ) : null}
      {conflict && base ? <ConflictPanel panelRef={conflictRef} base={draftOf(base)} conflict={conflict} busy={busy} onTheirs={useTheirs} onMine={keepMine} /> : null}

      <form className="operator-form" onSubmit={submit} noValidate aria-busy={busy}>
        <fieldset className="operator-fieldset">
          <legend>{t('programs.editor.details')}</legend>
          <TextInput target="name" label={t('programs.fields.name')} value={draft.name} onChange={(v) => set('name', v)} error={errorOf('name')} maxLength={PROGRAM_LIMITS.name} required />
          <div className="operator-grid">
            <TextInput target="developer" label={t('programs.fields.developer')} value={draft.developer} onChange={(v) => set('developer', v)} error={errorOf('developer')} hint={t('programs.hints.developer')} maxLength={PROGRAM_LIMITS.organisation} required />
            <TextInput target="publisher" label={t('programs.fields.publisher')} value={draft.publisher} onChange={(v) => set('publisher', v)} error={errorOf('publisher')} maxLength={PROGRAM_LIMITS.organisation} required />
          </div>
          <div className="field">
            <label htmlFor={inputId('licenseType')}>{t('programs.fields.licenseType')}</label>
            <select id={inputId('licenseType')} value={draft.licenseType} onChange={(event) => set('licenseType', event.target.value as LicenseType)} aria-invalid={errorOf('licenseType') ? true : undefined} aria-describedby={described('licenseType')}>
              {LICENSE_TYPE_IDS.map((type) => (
                <option key={type} value={type}>
                  {t(`catalogue:licenseTypes.${type}`)}
                </option>
              ))}
            </select>
            <FieldError target="licenseType" error={errorOf('licenseType')} />
          </div>
          <fieldset className="operator-subfieldset" disabled={free} aria-describedby={`${inputId('price')}-hint`}>
            <legend>{t('programs.fields.price')}</legend>
            <p id={`${inputId('price')}-hint`} className="hint">
              {t('programs.hints.price')}
            </p>
            {free ? null : (
              <div className="operator-grid operator-grid-price">
                <TextInput target="price.amount" label={t('programs.fields.amount')} value={draft.priceAmount} onChange={(v) => set('priceAmount', v)} error={errorOf('price.amount')} inputMode="decimal" required />
                <TextInput target="price.currency" label={t('programs.fields.currency')} value={draft.priceCurrency} onChange={(v) => set('priceCurrency', v)} error={errorOf('price.currency')} maxLength={3} autoCapitalize="characters" required />
                <div className="field">
                  <label htmlFor={inputId('price.period')}>{t('programs.fields.period')}</label>
                  <select id={inputId('price.period')} value={draft.pricePeriod} onChange={(event) => set('pricePeriod', event.target.value as Draft['pricePeriod'])} aria-invalid={errorOf('price.period') ? true : undefined} aria-describedby={described('price.period')}>
                    {(['one-time', 'month', 'year'] as const).map((period) => (
                      <option key={period} value={period}>
                        {t(`programs.periods.${period}`)}
                      </option>
                    ))}
                  </select>
                  <FieldError target="price.period" error={errorOf('price.period')} />
                </div>
              </div>
            )}
          </fieldset>
          <fieldset className="operator-subfieldset" aria-describedby={[`${inputId('categories')}-hint`, errorOf('categories') ? `${inputId('categories')}-error` : null].filter(Boolean).join(' ')}>
            <legend>{t('programs.fields.categories')}</legend>
            <p id={`${inputId('categories')}-hint`} className="hint">
              {t('programs.hints.categories')}
            </p>
            <div className="operator-checks">
              {PROGRAM_CATEGORIES.map((category, index) => (
                <label key={category} className="field-check">
                  <input
                    type="checkbox"
                    id={index === 0 ? inputId('categories') : undefined}
                    checked={draft.categories.includes(category)}
                    onChange={(event) => toggle('categories', category, event.target.checked)}
                    aria-invalid={errorOf('categories') ? true : undefined}
                  />
                  {t(`common:categories.${category}`)}
                  {draft.categories[0] === category ? <span className="operator-badge">{t('programs.hints.primary')}</span> : null}
                </label>
              ))}
            </div>
            <FieldError target="categories" error={errorOf('categories')} />
          </fieldset>
          <fieldset className="operator-subfieldset" aria-describedby={errorOf('platforms') ? `${inputId('platforms')}-error` : undefined}>
            <legend>{t('programs.fields.platforms')}</legend>
            <div className="operator-checks">
              {PLATFORMS.map((platform, index) => (
                <label key={platform} className="field-check">
                  <input
                    type="checkbox"
                    id={index === 0 ? inputId('platforms') : undefined}
                    checked={draft.platforms.includes(platform)}
                    onChange={(event) => toggle('platforms', platform, event.target.checked)}
                    aria-invalid={errorOf('platforms') ? true : undefined}
                  />
                  {t(`catalogue:platforms.${platform}`)}
                </label>
              ))}
            </div>
            <FieldError target="platforms" error={errorOf('platforms')} />
          </fieldset>
          <TextInput target="languages" label={t('programs.fields.languages')} value={draft.languages} onChange={(v) => set('languages', v)} error={errorOf('languages')} hint={t('programs.hints.languages')} required />
          <div className="operator-grid">
            <TextInput target="version" label={t('programs.fields.version')} value={draft.version} onChange={(v) => set('version', v)} error={errorOf('version')} maxLength={PROGRAM_LIMITS.version} required />
            <TextInput target="updated" label={t('programs.fields.updated')} value={draft.updated} onChange={(v) => set('updated', v)} error={errorOf('updated')} hint={t('programs.hints.date')} placeholder="2026-12" required />
            <TextInput target="released" label={t('programs.fields.released')} value={draft.released} onChange={(v) => set('released', v)} error={errorOf('released')} hint={t('programs.hints.date')} placeholder="1998" required />
          </div>
          <TextInput target="homepage" type="url" label={t('programs.fields.homepage')} value={draft.homepage} onChange={(v) => set('homepage', v)} error={errorOf('homepage')} hint={t('programs.hints.homepage')} maxLength={PROGRAM_LIMITS.homepage} required />
        </fieldset>

        <fieldset className="operator-fieldset">
          <legend>{t('releases.externalIds.legend')}</legend>
          <p className="hint">{t('releases.externalIds.hint')}</p>
          <div className="operator-grid">
            {EXTERNAL_CATALOGUES.map((catalogue) => (
              <TextInput
                key={catalogue}
                target={`externalIds.${catalogue}`}
                label={t(`releases.externalIds.${catalogue}`)}
                value={draft.externalIds[catalogue]}
                onChange={(v) => set('externalIds', { ...draft.externalIds, [catalogue]: v })}
                error={errorOf(`externalIds.${catalogue}`)}
                placeholder={EXTERNAL_ID_EXAMPLES[catalogue]}
                maxLength={EXTERNAL_ID_MAX_LENGTH}
                autoComplete="off"
                spellCheck={false}
              />
            ))}
          </div>
        </fieldset>

        <fieldset className="operator-fieldset">
          <legend>{t('programs.editor.texts')}</legend>
          <p className="hint">{t('programs.hints.texts')}</p>
          <TextTabs draft={draft} errors={errors} active={tab} onSelect={setTab} />
          {LOCALES.map((locale) => (
            <div key={locale} role="tabpanel" id={`program-panel-${locale}`} aria-labelledby={`program-tab-${locale}`} hidden={locale !== tab} className="operator-tabpanel" lang={locale}>
              <TextInput
                target={`texts.${locale}.summary`}
                label={`${t('programs.fields.summary')} (${LOCALE_NAMES[locale]})`}
                value={draft.texts[locale].summary}
                onChange={(v) => setText(locale, 'summary', v)}
                error={errorOf(`texts.${locale}.summary`)}
                maxLength={PROGRAM_LIMITS.summary}
                required={locale === 'en'}
              />
              <div className="field">
                <label htmlFor={inputId(`texts.${locale}.description`)}>{`${t('programs.fields.description')} (${LOCALE_NAMES[locale]})`}</label>
                <textarea
                  id={inputId(`texts.${locale}.description`)}
                  rows={8}
                  value={draft.texts[locale].description}
                  onChange={(event) => setText(locale, 'description', event.target.value)}
                  maxLength={PROGRAM_LIMITS.description}
                  required={locale === 'en'}
                  aria-invalid={errorOf(`texts.${locale}.description`) ? true : undefined}
                  aria-describedby={described(`texts.${locale}.description`)}
                />
                <FieldError target={`texts.${locale}.description`} error={errorOf(`texts.${locale}.description`)} />
              </div>
            </div>
          ))}
        </fieldset>

        <div className="operator-actions">
          <button type="submit" className="button" disabled={busy}>
            {busy ? t('programs.editor.saving') : base ? t('programs.editor.save') : t('programs.editor.create')}
          </button>
          {base && !base.retired && !confirmRetire ? (
            <button type="button" className="button button-secondary" onClick={() => setConfirmRetire(true)} disabled={busy}>
              {t('programs.retire.button')}
            </button>
          ) : null}
        </div>
      </form>
      {base && confirmRetire ? <RetireConfirmation name={base.name} busy={busy} onYes={() => void retire()} onCancel={() => setConfirmRetire(false)} /> : null}
      {base && media ? <ProgramMediaSection programId={base.id} media={media} /> : null}
      {base ? <ProgramReleases programId={base.id} releases={releases} /> : null}
      {base ? <ProgramRevisions program={base} revisions={revisions} onStale={(text) => setStatus({ kind: 'error', text })} /> : null}
    </main>
  )
}

function FieldError({ target, error }: { target: string; error: string | undefined }) {
  return error ? (
    <p id={`${inputId(target)}-error`} className="field-error">
      {error}
    </p>
  ) : null
}

function TextInput({
  target,
  label,
  value,
  onChange,
  error,
  hint,
  ...input
}: { target: string; label: string; value: string; onChange: (value: string) => void; error: string | undefined; hint?: string } & Omit<React.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'id'>) {
  const id = inputId(target)
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="text" value={value} onChange={(event) => onChange(event.target.value)} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint ? (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      <FieldError target={target} error={error} />
    </div>
  )
}

/** A tab per language (WAI-ARIA tabs: arrows, Home and End move; the active tab is the one tab stop). */
function TextTabs({ draft, errors, active, onSelect }: { draft: Draft; errors: Record<string, string>; active: Locale; onSelect: (locale: Locale) => void }) {
  const { t } = useTranslation('operator')
  const move = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = LOCALES.indexOf(active)
    const next =
      event.key === 'ArrowRight' ? (index + 1) % LOCALES.length : event.key === 'ArrowLeft' ? (index - 1 + LOCALES.length) % LOCALES.length : event.key === 'Home' ? 0 : event.key === 'End' ? LOCALES.length - 1 : null
    if (next === null) return
    event.preventDefault()
    const locale = LOCALES[next]!
    onSelect(locale)
    document.getElementById(`program-tab-${locale}`)?.focus()
  }
  return (
    <div role="tablist" aria-label={t('programs.editor.textsTabs')} className="operator-tabs">
      {LOCALES.map((locale) => {
        const written = hasText(draft, locale)
        const wrong = Object.keys(errors).some((target) => target.startsWith(`texts.${locale}.`))
        return (
          <button
            key={locale}
            type="button"
            role="tab"
            id={`program-tab-${locale}`}
            aria-selected={locale === active}
            aria-controls={`program-panel-${locale}`}
            tabIndex={locale === active ? 0 : -1}
            className={`operator-tab${written ? '' : ' operator-tab-missing'}${wrong ? ' operator-tab-error' : ''}`}
            onClick={() => onSelect(locale)}
            onKeyDown={move}
          >
            <span lang={locale}>{LOCALE_NAMES[locale]}</span>
            {written ? null : <span className="operator-tab-mark">{locale === 'en' ? t('programs.editor.required') : t('programs.editor.missing')}</span>}
          </button>
        )
      })}
    </div>
  )
}

function ConflictPanel({
  panelRef,
  base,
  conflict,
  busy,
  onTheirs,
  onMine,
}: {
  panelRef: React.RefObject<HTMLElement | null>
  base: Draft
  conflict: Conflict
  busy: boolean
  onTheirs: () => void
  onMine: () => void
}) {
  const { t } = useTranslation('operator')
  const shown = useShownValue()
  const label = usePartLabel()
  const theirs = draftOf(conflict.theirs)
  const mine = partsChanged(base, conflict.mine)
  const theirsOnly = partsChanged(base, theirs).filter((part) => !mine.includes(part))
  return (
    <section ref={panelRef} tabIndex={-1} className="operator-conflict" role="alert" aria-labelledby="program-conflict-title" data-testid="program-conflict">
      <h2 id="program-conflict-title">{t('programs.conflict.title')}</h2>
      <p>{t('programs.conflict.lead', { revision: conflict.theirs.revision })}</p>
      <div className="operator-table-wrap">
        <table className="operator-table">
          <thead>
            <tr>
              <th scope="col">{t('programs.conflict.field')}</th>
              <th scope="col">{t('programs.conflict.theirs')}</th>
              <th scope="col">{t('programs.conflict.yours')}</th>
            </tr>
          </thead>
          <tbody>
            {mine.map((part) => (
              <tr key={part}>
                <th scope="row">{label(part)}</th>
                <td>{shown(partOf(theirs, part), part)}</td>
                <td>{shown(partOf(conflict.mine, part), part)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {theirsOnly.length > 0 ? <p>{t('programs.conflict.alsoChanged', { fields: theirsOnly.map(label).join(', ') })}</p> : null}
      <div className="operator-actions">
        <button type="button" className="button button-secondary" onClick={onTheirs} disabled={busy}>
          {t('programs.conflict.useTheirs')}
        </button>
        <button type="button" className="button" onClick={onMine} disabled={busy}>
          {t('programs.conflict.keepMine')}
        </button>
      </div>
    </section>
  )
}

function RetireConfirmation({ name, busy, onYes, onCancel }: { name: string; busy: boolean; onYes: () => void; onCancel: () => void }) {
  const { t } = useTranslation('operator')
  const yes = useRef<HTMLButtonElement>(null)
  useEffect(() => yes.current?.focus(), [])
  return (
    <section className="operator-confirm" role="alertdialog" aria-labelledby="program-retire-text" onKeyDown={(event) => event.key === 'Escape' && onCancel()}>
      <p id="program-retire-text">{t('programs.retire.confirm', { name })}</p>
      <div className="operator-actions">
        <button ref={yes} type="button" className="button button-danger" onClick={onYes} disabled={busy}>
          {t('programs.retire.yes')}
        </button>
        <button type="button" className="button button-secondary" onClick={onCancel} disabled={busy}>
          {t('programs.retire.cancel')}
        </button>
      </div>
    </section>
  )
}

