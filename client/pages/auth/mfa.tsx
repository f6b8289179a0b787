import type { TFunction } from 'i18next'
import QRCode from 'qrcode'
import { useCallback, useEffect, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, redirect, useLoaderData, useLocation, useNavigate, type LoaderFunctionArgs } from 'react-router'
import { outcomeOfAnswer, problemOfHttp, type AuthProblem, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { readReturn, returnSearch } from '../../../shared/auth/return-path.ts'
import type { SessionState } from '../../../shared/auth/session.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { RecoveryCodeList } from '../../components/recovery-codes.tsx'
import { continueTo } from '../../lib/account/continue.ts'
import { formOutcomeAction, useFormOutcome } from '../../lib/account/form-outcome.ts'
import { apiSend } from '../../lib/api.ts'
import { Totp } from '../../lib/session/auth.ts'
import { sessionState } from '../../lib/session/state.ts'
import { problemMessage, problemOfFailure } from '../../lib/account/auth-errors.ts'
import { TOTP_DEVICE_NAME } from '../../../shared/constants.ts'

/** A form sent before the script ran, answered by the BFF (decision 025). */
export const action = formOutcomeAction

// /mfa: the second factor. A user who must complete it enters a code from the app, or one of the
// recovery codes; a fully signed-in user sets an authenticator up here (decision 008)
// and sees the recovery codes of the new set-up once. Removing a confirmed one takes a code, on
// the profile. ?redirectToPath= says where to go afterwards (the profile's "Add" comes back; a
// sign-in carries its target through). The code form works before the page's
// script runs (decision 025); setting an authenticator up needs the script.

export async function loader({ context, request }: LoaderFunctionArgs): Promise<{ state: SessionState }> {
  const state = await sessionState(context)
  const carried = returnSearch(readReturn(new URL(request.url).search))
  if (state === 'LOGGED_OUT') throw redirect(`/login${carried}`)
  if (state === 'EMAIL_VERIFICATION_REQUIRED') throw redirect(`/email-not-verified${carried}`)
  return { state }
}

/** Spec §8's TOTP texts where a failure has no better name ('User must be logged in', 'Unable to …'). */
function describeMfaProblem(problem: AuthProblem, t: TFunction<readonly ['auth', 'common']>, language: string, fallback?: string): string {
  if (problem.kind === 'signedOut') return t('auth:mfa.mustBeLoggedIn')
  if (fallback && problem.kind === 'unknown') return fallback
  return problemMessage(problem, t, language)
}

type Mode =
  | { kind: 'loading' }
  | { kind: 'code' }
  | { kind: 'recovery' }
  | { kind: 'manage' }
  | { kind: 'setup'; secret: string; qr: string }
  | { kind: 'codes'; codes: string[] }

export function Component() {
  const { state } = useLoaderData() as { state: SessionState }
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const target = readReturn(useLocation().search)
  // A pending sign-in owes a code: its form is there from the first render, script or not.
  const [mode, setMode] = useState<Mode>({ kind: state === 'MFA_REQUIRED' ? 'code' : 'loading' })
  const [outcome] = useFormOutcome()
  const [error, setError] = useState<string | null>(() => (outcome?.problem ? describeMfaProblem(outcome.problem, t, i18n.language) : null))
  const [busy, setBusy] = useState(false)
  // Switching between a code from the app and a recovery code moves the focus to the new field.
  const [switched, setSwitched] = useState(false)
  const describe = (problem: AuthProblem, fallback?: string) => describeMfaProblem(problem, t, i18n.language, fallback)

  const fail = useCallback(async (failure: unknown, fallback: string) => {
    setError(describeMfaProblem(await problemOfFailure(failure), t, i18n.language, fallback))
  }, [t, i18n.language])

  const startSetup = useCallback(async () => {
    setError(null)
    try {
      let created = await Totp.createDevice({ deviceName: TOTP_DEVICE_NAME })
      if (created.status === 'DEVICE_ALREADY_EXISTS_ERROR') {
        // An unconfirmed device from an abandoned set-up: start again with a new secret. (The BFF
        // refuses this for a confirmed one, which takes a code on the profile.)
        await Totp.removeDevice({ deviceName: TOTP_DEVICE_NAME })
        created = await Totp.createDevice({ deviceName: TOTP_DEVICE_NAME })
      }
      if (created.status !== 'OK') throw new Error('Unable to create TOTP device')
      setMode({ kind: 'setup', secret: created.secret, qr: await QRCode.toDataURL(created.qrCodeString, { margin: 1, width: 220 }) })
    } catch (failure) {
      // Confirmed in the meantime (another tab): another one would take a current code,
      // and this page only sets up a first one — it shows the account's as it would on a new visit.
      const list = await Totp.listDevices().catch(() => null)
      if (list?.devices.some((device) => device.verified)) {
        setMode({ kind: state === 'MFA_REQUIRED' ? 'code' : 'manage' })
        return
      }
      await fail(failure, t('auth:mfa.cannotCreate'))
    }
  }, [fail, t, state])

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
        // The first authenticator comes with its recovery codes, in this answer only.
        const codes = (result as { recoveryCodes?: unknown }).recoveryCodes
        if (Array.isArray(codes) && codes.length > 0) {
          setMode({ kind: 'codes', codes: codes.map(String) })
          return
        }
        await continueTo(navigate, target)
        return
      }
      setError(describe(outcomeOfAnswer(result as SdkAnswer).problem ?? { kind: 'unknown' }, t('auth:mfa.cannotVerify')))
    } catch (failure) {
      await fail(failure, t('auth:mfa.cannotVerify'))
    } finally {
      setBusy(false)
    }
  }

  const submitRecoveryCode = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const code = String(new FormData(event.currentTarget).get('recoveryCode') ?? '')
    setBusy(true)
    setError(null)
    const result = await apiSend<{ status: 'OK' }>('POST', '/api/user/recovery-codes/redeem', { code })
    setBusy(false)
    const failure = (result.body as { code?: string } | null)?.code
    // Done, or nothing was owed any more (completed in another tab): either way, go on.
    if (result.ok || failure === 'BFF_MFA_NOT_PENDING') {
      await continueTo(navigate, target)
      return
    }
    setError(describe(result.status === 0 ? { kind: 'network' } : problemOfHttp(result.status, result.body)))
  }

  const switchTo = (kind: 'code' | 'recovery') => {
    setError(null)
    setSwitched(true)
    setMode({ kind })
  }

  const codeForm = (
    <form method="post" onSubmit={(event) => void submitCode(event)} noValidate>
      <Field id="mfa-code" name="totp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]*" maxLength={8} required label={t('auth:mfa.code')} autoFocus={switched} />
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
      {mode.kind === 'loading' ? (
        <>
          <p aria-live="polite">{t('auth:mfa.loading')}</p>
          <noscript>
            <p>{t('auth:mfa.needsScript')}</p>
          </noscript>
        </>
      ) : null}
      {mode.kind === 'code' ? (
        <>
          <p>{t('auth:mfa.enterCode')}</p>
          {codeForm}
          <p>
            <button type="button" className="link-button" onClick={() => switchTo('recovery')}>
              {t('auth:authenticator.useRecoveryCode')}
            </button>
          </p>
        </>
      ) : null}
      {mode.kind === 'recovery' ? (
        <>
          <p>{t('auth:authenticator.recoveryLead')}</p>
          <form method="post" onSubmit={(event) => void submitRecoveryCode(event)} noValidate>
            <Field id="mfa-recovery-code" name="recoveryCode" autoComplete="off" spellCheck={false} autoCapitalize="off" maxLength={64} required label={t('auth:authenticator.recoveryCode')} autoFocus={switched} />
            <button type="submit" className="button" disabled={busy}>
              {t('auth:mfa.submit')}
            </button>
          </form>
          <p>
            <button type="button" className="link-button" onClick={() => switchTo('code')}>
              {t('auth:authenticator.useApp')}
            </button>
          </p>
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
      {mode.kind === 'codes' ? (
        <>
          <Notice kind="success">{t('auth:mfa.enabled')}</Notice>
          <RecoveryCodeList codes={mode.codes} />
          <p className="actions">
            <button type="button" className="button" onClick={() => void continueTo(navigate, target)}>
              {t('auth:authenticator.saved')}
            </button>
          </p>
        </>
      ) : null}
      {mode.kind === 'manage' ? (
        <>
          <Notice kind="success">{t('auth:mfa.enabled')}</Notice>
          <p className="actions">
            <Link className="button" to="/@">
              {t('auth:mfa.backToLibrary')}
            </Link>{' '}
            <Link className="button button-secondary" to="/@/my-profile">
              {t('auth:authenticator.manageInProfile')}
            </Link>
          </p>
        </>
      ) : null}
      <p>
        {state === 'MFA_REQUIRED' ? <Link to="/@/logout">{t('auth:mfa.logOut')}</Link> : mode.kind !== 'manage' && mode.kind !== 'codes' ? <Link to="/@">{t('auth:mfa.backToLibrary')}</Link> : null}
      </p>
    </main>
  )
}
