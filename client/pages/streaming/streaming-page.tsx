import { useEffect, useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation, useRevalidator, type LoaderFunctionArgs } from 'react-router'
import { KEYBOARD_LAYOUTS, suggestRegion, type StreamingAssignment, type StreamingState } from '../../../shared/streaming.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { ProgramIcon } from '../../components/program-icon.tsx'
import { apiGet, apiSend, loaderLocale, type ApiResult } from '../../lib/api.ts'

// /streaming (spec §2 route "streaming", decision 017): pick a program of the library,
// a region and a keyboard layout; the API assigns a cluster and a signed grant. The grant goes to
// the cluster in the URL's fragment, which browsers send to no server and put in no Referer, so
// it stays out of logs; the cluster's page reads it and verifies it against our JWKS. No
// maintenance or version polling runs here (spec §2; client/lib/notices/version-watch.ts). Only what the
// user may stream is offered; a paid program not bought is listed apart, with the way to buy it
// (the API refuses it with STREAMING_NOT_OWNED anyway).

interface StreamingData {
  state: StreamingState
  locale: string
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<StreamingData> {
  return { state: await apiGet<StreamingState>(context, '/api/user/streaming', request.signal), locale: loaderLocale(context) }
}

const ERROR_CODES = [
  'STREAMING_NOT_CONFIGURED',
  'STREAMING_CLUSTERS_FULL',
  'STREAMING_PROGRAM_NOT_FOUND',
  'STREAMING_NOT_IN_LIBRARY',
  'STREAMING_NOT_STREAMABLE',
  'STREAMING_UNKNOWN_LAYOUT',
  'STREAMING_UNKNOWN_REGION',
  'STREAMING_ALREADY_ASSIGNED',
  'STREAMING_NOT_OWNED',
] as const
type ErrorCode = (typeof ERROR_CODES)[number]

/** The layout's name in the page's language; every id of the shared list has one in each locale (tested). */
const layoutKey = (id: string) => `streaming:layouts.${id}` as 'streaming:layouts.en-US'

/** Where the browser goes: the cluster's address with the grant in the fragment. */
function streamLink(assignment: StreamingAssignment): string {
  const url = new URL(assignment.url)
  url.hash = `grant=${assignment.token}`
  return url.href
}

export function Component() {
  const { state, locale } = useLoaderData() as StreamingData
  const { t } = useTranslation(['streaming', 'common'])
  const revalidator = useRevalidator()
  // `?program=<id>`: the program a link chose (the signed-in menu links here without one).
  // (Read from the location: useSearchParams would add its code to every page's shared bundle.)
  const wanted = new URLSearchParams(useLocation().search).get('program')
  const [assignment, setAssignment] = useState<StreamingAssignment | null>(state.assignment)
  const [problem, setProblem] = useState<string | null>(null)
  const [ended, setEnded] = useState(false)
  const [busy, setBusy] = useState(false)
  const [region, setRegion] = useState(() => suggestRegion(state.regions, { languages: [locale] }) ?? '')
  const [regionChosen, setRegionChosen] = useState(false)
  const ids = { program: useId(), region: useId(), layout: useId(), heading: useId(), unowned: useId() }
  const offered = state.programs.filter((program) => program.entitled)
  const unowned = state.programs.filter((program) => !program.entitled)

  // The browser knows its time zone; the server only knew the language. Refined once after
  // hydration, unless the person already chose.
  useEffect(() => {
    if (regionChosen) return
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone
    const suggested = suggestRegion(state.regions, { timeZone, languages: [locale, navigator.language] })
    if (suggested) setRegion(suggested)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the first render's suggestion is refined
  }, [])

  const failure = (result: ApiResult<unknown>): string => {
    if (result.status === 0) return t('common:errors.errorApiRequest')
    const code = (result.body as { code?: unknown } | null)?.code
    return ERROR_CODES.includes(code as ErrorCode) ? t(`streaming:errors.${code as ErrorCode}`) : t('common:errors.occuredSomeError')
  }

  const start = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setBusy(true)
    setProblem(null)
    setEnded(false)
    const result = await apiSend<StreamingAssignment>('POST', '/api/user/assign-cluster', {
      programId: form.get('programId'),
      region: form.get('region'),
      keyboardLayout: form.get('keyboardLayout'),
    })
    setBusy(false)
    if (result.ok) setAssignment(result.body as StreamingAssignment)
    else setProblem(failure(result))
    void revalidator.revalidate()
  }

  const stop = async () => {
    setBusy(true)
    setProblem(null)
    const result = await apiSend('DELETE', '/api/user/assign-cluster')
    setBusy(false)
    if (!result.ok) {
      setProblem(failure(result))
      return
    }
    setAssignment(null)
    setEnded(true)
    void revalidator.revalidate()
  }

  const programName = (id: string) => state.programs.find((program) => program.id === id)?.name ?? id

  return (
    <main id="content" className="profile-page" data-testid="streaming-page">
      <header className="listing-header">
        <h1>{t('streaming:title')}</h1>
        {/* No promise of what this server cannot do: the notice below says why. */}
        {state.available ? <p>{t('streaming:lead')}</p> : null}
      </header>

      {problem ? (
        <Notice kind="error" testId="streaming-error">
          {problem}
        </Notice>
      ) : null}
      {ended ? (
        <Notice kind="success" testId="streaming-ended">
          {t('streaming:assignment.stopped')}
        </Notice>
      ) : null}

      {!state.available ? (
        <section className="profile-section" aria-labelledby={ids.heading} data-testid="streaming-unavailable">
          <h2 id={ids.heading}>{t('streaming:unavailable.title')}</h2>
          <p>{t('streaming:unavailable.body')}</p>
          <p className="actions">
            <Link className="button button-secondary" to="/@/library">
              {t('streaming:unavailable.back')}
            </Link>
          </p>
        </section>
      ) : assignment ? (
        <section className="profile-section" aria-labelledby={ids.heading} data-testid="streaming-assignment">
          <h2 id={ids.heading}>{t('streaming:assignment.title')}</h2>
          {assignment.fallback ? <Notice kind="info">{t('streaming:assignment.fallback')}</Notice> : null}
          <dl className="profile-facts">
            <dt>{t('streaming:assignment.program')}</dt>
            <dd>{programName(assignment.programId)}</dd>
            <dt>{t('streaming:assignment.cluster')}</dt>
            <dd data-testid="streaming-cluster">{assignment.clusterId}</dd>
            <dt>{t('streaming:assignment.region')}</dt>
            <dd data-testid="streaming-region">{assignment.region}</dd>
            <dt>{t('streaming:assignment.layout')}</dt>
            <dd data-testid="streaming-layout">{t(layoutKey(assignment.keyboardLayout))}</dd>
            <dt>{t('streaming:assignment.expires')}</dt>
            <dd>
              {/* The server renders in its own time zone; the browser corrects it to the reader's. */}
              <time dateTime={assignment.expiresAt} suppressHydrationWarning>
                {new Date(assignment.expiresAt).toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })}
              </time>
            </dd>
          </dl>
          <p className="hint">{t('streaming:assignment.openHint')}</p>
          <p className="actions">
            <a className="button" href={streamLink(assignment)} target="_blank" rel="noreferrer noopener" data-testid="streaming-open">
              {t('streaming:assignment.open')}
            </a>
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void stop()}>
              {busy ? t('streaming:assignment.stopping') : t('streaming:assignment.stop')}
            </button>
          </p>
        </section>
      ) : offered.length === 0 ? (
        <section className="profile-section" aria-labelledby={ids.heading} data-testid="streaming-empty">
          <h2 id={ids.heading}>{t('streaming:empty.title')}</h2>
          <p>{t('streaming:empty.body')}</p>
          <p className="actions">
            <Link className="button" to="/@/programs">
              {t('streaming:empty.browse')}
            </Link>
          </p>
        </section>
      ) : (
        <section className="profile-section" aria-labelledby={ids.heading}>
          <h2 id={ids.heading}>{t('streaming:form.title')}</h2>
          <form className="profile-form" method="post" onSubmit={(event) => void start(event)}>
            <div className="field">
              <label htmlFor={ids.program}>{t('streaming:form.program')}</label>
              <select id={ids.program} name="programId" defaultValue={(offered.find((program) => program.id === wanted) ?? offered[0]!).id}>
                {offered.map((program) => (
                  <option key={program.id} value={program.id}>
                    {program.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={ids.region}>{t('streaming:form.region')}</label>
              <select
                id={ids.region}
                name="region"
                value={region}
                aria-describedby={`${ids.region}-hint`}
                onChange={(event) => {
                  setRegion(event.target.value)
                  setRegionChosen(true)
                }}
              >
                {state.regions.map((option) => (
                  <option key={option.id} value={option.id}>
                    {t('streaming:form.regionOption', { region: option.id, count: option.free })}
                  </option>
                ))}
              </select>
              <p id={`${ids.region}-hint`} className="hint">
                {t('streaming:form.regionHint')}
              </p>
            </div>
            <div className="field">
              <label htmlFor={ids.layout}>{t('streaming:form.layout')}</label>
              <select id={ids.layout} name="keyboardLayout" defaultValue={state.keyboardLayout} aria-describedby={`${ids.layout}-hint`}>
                {KEYBOARD_LAYOUTS.map((layout) => (
                  <option key={layout.id} value={layout.id}>
                    {t(layoutKey(layout.id))}
                  </option>
                ))}
              </select>
              <p id={`${ids.layout}-hint`} className="hint">
                {t('streaming:form.layoutHint')}
              </p>
            </div>
            <p className="actions">
              <button type="submit" className="button" disabled={busy}>
                {busy ? t('streaming:form.starting') : t('streaming:form.start')}
              </button>
            </p>
          </form>
        </section>
      )}

      {state.available && !assignment && unowned.length > 0 ? (
        <section className="profile-section" aria-labelledby={ids.unowned} data-testid="streaming-unowned">
          <h2 id={ids.unowned}>{t('streaming:unowned.title')}</h2>
          <p className="hint">{t('streaming:unowned.body')}</p>
          <ul className="device-list streaming-unowned">
            {unowned.map((program) => (
              <li key={program.id} className="device">
                <span className="streaming-unowned-name">
                  <ProgramIcon id={program.id} />
                  <strong>{program.name}</strong>
                </span>
                <Link className="button button-secondary button-small" to={`/@/programs/${encodeURIComponent(program.id)}`} aria-label={t('streaming:unowned.buyNamed', { name: program.name })}>
                  {t('streaming:unowned.buy')}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </main>
  )
}
