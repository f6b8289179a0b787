import { useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useLoaderData, type LoaderFunctionArgs } from 'react-router'
import type { ErrorBody } from '../../../shared/types.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { apiGet, apiSend } from '../../lib/api.ts'
import { LocalTime } from './audit.tsx'

// /@/operator/maintenance: the announced maintenance time (GET /api/version), set in
// the operator's own time zone and sent as ISO 8601 (PUT /api/operator/maintenance), or cleared.
// Everyone's maintenance notice follows from /api/version (spec §4).

export async function loader({ request, context }: LoaderFunctionArgs): Promise<{ maintenanceTime: string | null }> {
  const version = await apiGet<{ maintenanceTime?: string }>(context, '/api/version', request.signal)
  return { maintenanceTime: version.maintenanceTime ?? null }
}

/** An ISO time as a datetime-local input's value, in the browser's zone (YYYY-MM-DDTHH:mm). */
function localInputValue(iso: string): string {
  const date = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

export function Component() {
  const { t } = useTranslation(['operator', 'common'])
  const id = useId()
  const loaded = useLoaderData() as { maintenanceTime: string | null }
  const [current, setCurrent] = useState(loaded.maintenanceTime)
  const [value, setValue] = useState('')
  const [zone, setZone] = useState('UTC')
  const [fieldError, setFieldError] = useState<string | undefined>(undefined)
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const statusRef = useRef<HTMLDivElement>(null)
  const focusField = () => document.getElementById(`${id}-time`)?.focus()

  // The zone and the local value are the browser's: set once it has taken over (hydration matches).
  useEffect(() => {
    setZone(Intl.DateTimeFormat().resolvedOptions().timeZone)
    if (loaded.maintenanceTime) setValue(localInputValue(loaded.maintenanceTime))
  }, [loaded.maintenanceTime])
  useEffect(() => {
    if (status) statusRef.current?.focus()
  }, [status])

  const save = async (maintenanceTime: string | null) => {
    setBusy(true)
    setStatus(null)
    const result = await apiSend<{ maintenanceTime: string | null }>('PUT', '/api/operator/maintenance', { maintenanceTime })
    setBusy(false)
    if (!result.ok) {
      const code = (result.body as Partial<ErrorBody> | null)?.code
      if (code === 'API_INVALID_MAINTENANCE_TIME' || code === 'API_VALIDATION_FAILED') {
        setFieldError(t('operator:maintenance.errors.invalid'))
        focusField()
      } else {
        const text = result.status === 0 ? t('common:errors.errorApiRequest') : result.status === 403 ? t('operator:maintenance.errors.denied') : t('operator:maintenance.errors.failed')
        setStatus({ kind: 'error', text })
      }
      return
    }
    const now = (result.body as { maintenanceTime: string | null }).maintenanceTime
    setCurrent(now)
    setFieldError(undefined)
    if (now === null) setValue('')
    setStatus(now ? { kind: 'success', text: t('operator:maintenance.saved') } : { kind: 'success', text: t('operator:maintenance.cleared') })
  }

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setStatus(null)
    if (!value) {
      setFieldError(t('operator:maintenance.errors.required'))
      focusField()
      return
    }
    // A datetime-local value has no zone: the Date reads it in the operator's own.
    const time = new Date(value)
    if (Number.isNaN(time.getTime())) {
      setFieldError(t('operator:maintenance.errors.invalid'))
      focusField()
      return
    }
    void save(time.toISOString())
  }

  return (
    <main id="content" className="operator-page" data-testid="operator-maintenance">
      <h1>{t('operator:maintenance.title')}</h1>
      <p>{t('operator:maintenance.lead')}</p>
      <dl className="profile-facts">
        <dt>{t('operator:maintenance.current')}</dt>
        <dd data-testid="maintenance-current">{current ? <LocalTime iso={current} /> : t('operator:maintenance.none')}</dd>
      </dl>
      {status ? (
        <div ref={statusRef} tabIndex={-1}>
          <Notice kind={status.kind} testId="maintenance-status">
            {status.text}
          </Notice>
        </div>
      ) : null}
      <form className="profile-form" noValidate onSubmit={submit}>
        <Field
          id={`${id}-time`}
          name="maintenanceTime"
          type="datetime-local"
          label={t('operator:maintenance.time')}
          hint={t('operator:maintenance.timeHint', { zone })}
          value={value}
          onChange={(event) => {
            setValue(event.currentTarget.value)
            setFieldError(undefined)
          }}
          error={fieldError}
          required
        />
        <p className="actions">
          <button type="submit" className="button" disabled={busy}>
            {t('operator:maintenance.save')}
          </button>{' '}
          <button type="button" className="button button-secondary" disabled={busy || current === null} onClick={() => void save(null)}>
            {t('operator:maintenance.clear')}
          </button>
        </p>
      </form>
    </main>
  )
}
