import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ERROR_EVENT_HEADER } from '../../shared/error-reporting.ts'
import { useClientConfig } from '../lib/client-config.tsx'
import { reportToTracker } from '../lib/error-reporting/report.ts'

// /sentry-test (spec §2): raise an error on purpose in the browser, the BFF and the API,
// and say where each went. Without SENTRY_DSN it says reporting is off and offers nothing to press.

const SIDES = ['browser', 'bff', 'api'] as const
type Side = (typeof SIDES)[number]

type Outcome =
  | { state: 'pending' }
  | { state: 'reported'; eventId: string; requestId: string | undefined }
  | { state: 'notReported' }
  | { state: 'failed' }

/** Asks a server to fail (a write: the anti-forgery header, as every write from the app). */
async function raiseOnServer(path: string): Promise<Outcome> {
  let response: Response
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', rid: 'anti-csrf' },
      credentials: 'same-origin',
      body: '{}',
    })
  } catch {
    return { state: 'failed' }
  }
  const eventId = response.headers.get(ERROR_EVENT_HEADER)
  const body = (await response.json().catch(() => null)) as { requestId?: unknown } | null
  const requestId = typeof body?.requestId === 'string' ? body.requestId : undefined
  return eventId ? { state: 'reported', eventId, requestId } : { state: 'notReported' }
}

async function raise(side: Side): Promise<Outcome> {
  if (side === 'bff') return raiseOnServer('/sentry-test/error')
  if (side === 'api') return raiseOnServer('/api/sentry-test/error')
  try {
    throw new Error('Sentry test: an error raised on purpose in the browser (/sentry-test)')
  } catch (error) {
    const eventId = await reportToTracker(error)
    return eventId ? { state: 'reported', eventId, requestId: undefined } : { state: 'notReported' }
  }
}

function OutcomeText({ outcome }: { outcome: Outcome | undefined }) {
  const { t } = useTranslation('sentry')
  if (!outcome) return null
  if (outcome.state === 'pending') return <>{t('outcome.pending')}</>
  if (outcome.state === 'failed') return <>{t('outcome.failed')}</>
  if (outcome.state === 'notReported') return <>{t('outcome.notReported')}</>
  return (
    <>
      {t('outcome.reported')} <code data-testid="event-id">{outcome.eventId}</code>
      {outcome.requestId ? (
        <>
          {' '}
          {t('outcome.request')} <code data-testid="request-id">{outcome.requestId}</code>
        </>
      ) : null}
    </>
  )
}

export function Component() {
  const { t } = useTranslation('sentry')
  const settings = useClientConfig().errorReporting
  const [outcomes, setOutcomes] = useState<Partial<Record<Side, Outcome>>>({})

  const onRaise = async (side: Side) => {
    setOutcomes((current) => ({ ...current, [side]: { state: 'pending' } }))
    const outcome = await raise(side)
    setOutcomes((current) => ({ ...current, [side]: outcome }))
  }

  return (
    <main id="content" className="sentry-test" data-testid="sentry-test" data-reporting={settings ? 'on' : 'off'}>
      <h1>{t('title')}</h1>
      <p className="sentry-test-lead">{t('lead')}</p>
      {settings ? (
        <>
          <p className="notice notice-info">
            {t('on')}{' '}
            <span className="sentry-test-labels">
              {t('environment')} <code data-testid="environment">{settings.environment}</code>, {t('release')} <code data-testid="release">{settings.release}</code>
            </span>
          </p>
          <ul className="sentry-test-sides">
            {SIDES.map((side) => {
              const outcome = outcomes[side]
              return (
                <li key={side} className="card" data-testid={`side-${side}`}>
                  <h2>{t(`sides.${side}.title`)}</h2>
                  <p>{t(`sides.${side}.text`)}</p>
                  <button type="button" className="button" disabled={outcome?.state === 'pending'} onClick={() => void onRaise(side)}>
                    {t(`sides.${side}.button`)}
                  </button>
                  <p className="sentry-test-outcome" role="status" data-testid={`outcome-${side}`} data-state={outcome?.state ?? 'idle'}>
                    <OutcomeText outcome={outcome} />
                  </p>
                </li>
              )
            })}
          </ul>
        </>
      ) : (
        <p className="notice notice-warning" data-testid="reporting-off">
          {t('off')}
        </p>
      )}
    </main>
  )
}
