import QRCode from 'qrcode'
import { useCallback, useEffect, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, redirect, useLoaderData, useNavigate, type LoaderFunctionArgs } from 'react-router'
import type { SessionState } from '../../../shared/session.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { Totp } from '../../lib/auth.ts'
import { sessionState } from '../../lib/session-state.ts'
import { describeAuthFailure, formatUntil } from '../../lib/auth-errors.ts'
import { TOTP_DEVICE_NAME } from '../../../shared/constants.ts'

// /mfa: the second factor. A user who must complete it enters a code (or sets up the
// authenticator when none is confirmed yet); a fully signed-in user sets one up or removes it
// here (decision 008).

export async function loader({ context }: LoaderFunctionArgs): Promise<{ state: SessionState }> {
  const state = await sessionState(context)
  if (state === 'LOGGED_OUT') throw redirect('/login')
  if (state === 'EMAIL_VERIFICATION_REQUIRED') throw redirect('/email-not-verified')
  return { state }
}

type Mode = { kind: 'loading' } | { kind: 'code' } | { kind: 'manage' } | { kind: 'setup'; secret: string; qr: string } | { kind: 'removed' }

export function Component() {
  const { state } = useLoaderData() as { state: SessionState }
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const [mode, setMode] = useState<Mode>({ kind: 'loading' })
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const fail = useCallback(async (failure: unknown, fallback: string) => {
    if (failure instanceof Response && failure.status === 401) {
      setError(t('auth:mfa.mustBeLoggedIn'))
      return
    }
    const described = await describeAuthFailure(failure, t)
    setError(described.message === t('common:errors.occuredSomeError') ? fallback : described.message)
  }, [t])

  const startSetup = useCallback(async () => {
    setError(null)
    try {
      let created = await Totp.createDevice({ deviceName: TOTP_DEVICE_NAME })
      if (created.status === 'DEVICE_ALREADY_EXISTS_ERROR') {
        // An unconfirmed device from an abandoned set-up: start again with a new secret.
        await Totp.removeDevice({ deviceName: TOTP_DEVICE_NAME })
        created = await Totp.createDevice({ deviceName: TOTP_DEVICE_NAME })
      }
      if (created.status !== 'OK') throw new Error('Unable to create TOTP device')
      setMode({ kind: 'setup', secret: created.secret, qr: await QRCode.toDataURL(created.qrCodeString, { margin: 1, width: 220 }) })
    } catch (failure) {
      await fail(failure, t('auth:mfa.cannotCreate'))
    }
  }, [fail, t])

  useEffect(() => {
    void (async () => {
      try {
        const list = await Totp.listDevices()
        const confirmed = list.devices.some((device) => device.verified)
        if (confirmed) setMode({ kind: state === 'MFA_REQUIRED' ? 'code' : 'manage' })
        else await startSetup()
      } catch (failure) {
        await fail(failure, t('auth:mfa.cannotCreate'))
      }
    })()
  }, [state, startSetup, fail, t])

  const submitCode = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const code = String(new FormData(event.currentTarget).get('totp') ?? '').replace(/\s+/g, '')
    setBusy(true)
    setError(null)
    try {
      const result = mode.kind === 'setup' ? await Totp.verifyDevice({ deviceName: TOTP_DEVICE_NAME, totp: code }) : await Totp.verifyCode({ totp: code })
      if (result.status === 'OK') {
        await navigate('/@', { replace: true })
        return
      }
      if (result.status === 'INVALID_TOTP_ERROR') {
        setError(t('auth:mfa.wrongCode', { count: Math.max(0, result.maxNumberOfFailedAttempts - result.currentNumberOfFailedAttempts) }))
      } else if (result.status === 'LIMIT_REACHED_ERROR') {
        setError(t('auth:mfa.locked', { time: formatUntil(new Date(Date.now() + result.retryAfterMs).toISOString(), i18n.language) }))
      } else {
        setError(t('auth:mfa.cannotVerify'))
      }
    } catch (failure) {
      await fail(failure, t('auth:mfa.cannotVerify'))
    } finally {
      setBusy(false)
    }
  }

  const remove = async () => {
    setBusy(true)
    try {
      await Totp.removeDevice({ deviceName: TOTP_DEVICE_NAME })
      setMode({ kind: 'removed' })
    } catch (failure) {
      await fail(failure, t('common:errors.occuredSomeError'))
    } finally {
      setBusy(false)
    }
  }

  const codeForm = (
    <form method="post" onSubmit={(event) => void submitCode(event)} noValidate>
      <Field id="mfa-code" name="totp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]*" maxLength={8} required label={t('auth:mfa.code')} />
      <button type="submit" className="button" disabled={busy}>
        {t('auth:mfa.submit')}
      </button>
    </form>
  )

  return (
    <main id="content" className="auth-page">
      <h1>{t('auth:mfa.title')}</h1>
      {error ? (
        <Notice kind="error" testId="mfa-error">
          {error}
        </Notice>
      ) : null}
      {mode.kind === 'loading' ? <p aria-live="polite">{t('auth:mfa.loading')}</p> : null}
      {mode.kind === 'code' ? (
        <>
          <p>{t('auth:mfa.enterCode')}</p>
          {codeForm}
        </>
      ) : null}
      {mode.kind === 'setup' ? (
        <>
          <p>{t('auth:mfa.setupLead')}</p>
          <img src={mode.qr} width={220} height={220} alt={t('auth:mfa.qrAlt')} className="mfa-qr" />
          <p>
            {t('auth:mfa.secretLabel')} <code data-testid="mfa-secret">{mode.secret}</code>
          </p>
          {codeForm}
        </>
      ) : null}
      {mode.kind === 'manage' ? (
        <>
          <Notice kind="success">{t('auth:mfa.enabled')}</Notice>
          <p className="actions">
            <Link className="button" to="/@">
              {t('auth:mfa.backToLibrary')}
            </Link>{' '}
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void remove()}>
              {t('auth:mfa.remove')}
            </button>
          </p>
        </>
      ) : null}
      {mode.kind === 'removed' ? (
        <>
          <Notice kind="info">{t('auth:mfa.removed')}</Notice>
          <button type="button" className="button" onClick={() => void startSetup()}>
            {t('auth:mfa.setUpAgain')}
          </button>
        </>
      ) : null}
      <p>
        {state === 'MFA_REQUIRED' ? <Link to="/@/logout">{t('auth:mfa.logOut')}</Link> : mode.kind !== 'manage' ? <Link to="/@">{t('auth:mfa.backToLibrary')}</Link> : null}
      </p>
    </main>
  )
}
