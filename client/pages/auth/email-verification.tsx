import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation, useNavigate } from 'react-router'
import { EMAIL_VERIFICATION_RECHECK_MS } from '../../../shared/constants.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { EmailVerification, Session, browserSessionState } from '../../lib/auth.ts'
import { describeAuthFailure } from '../../lib/auth-errors.ts'

// /check-email (after sign-up), /email-not-verified (the guard sends unverified users here) and
// /verify-email?token= (the emailed link).

/** Moves on by itself once the email is verified in another tab (spec §4: recheck after 10 s). */
function useContinueWhenVerified(): void {
  const navigate = useNavigate()
  useEffect(() => {
    const timer = setInterval(() => {
      void (async () => {
        if ((await browserSessionState()) === 'LOGGED_IN') await navigate('/@', { replace: true })
      })()
    }, EMAIL_VERIFICATION_RECHECK_MS)
    return () => clearInterval(timer)
  }, [navigate])
}

function ResendButton() {
  const { t } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const resend = async () => {
    setBusy(true)
    try {
      const result = await EmailVerification.sendVerificationEmail()
      if (result.status === 'EMAIL_ALREADY_VERIFIED_ERROR') {
        await navigate('/@', { replace: true })
        return
      }
      setNotice({ kind: 'success', text: t('auth:verify.resent') })
    } catch (failure) {
      // No session (signed out in another tab): sign in first.
      if (failure instanceof Response && failure.status === 401) {
        await navigate('/login', { replace: true })
        return
      }
      setNotice({ kind: 'error', text: (await describeAuthFailure(failure, t)).message })
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      {notice ? (
        <Notice kind={notice.kind} testId="resend-notice">
          {notice.text}
        </Notice>
      ) : null}
      <button type="button" className="button" disabled={busy} onClick={() => void resend()}>
        {t('auth:verify.resend')}
      </button>
    </>
  )
}

/**
 * What happened to the verification mail (issue 18): "we sent you a link" while it went out; that
 * it could not be sent yet while it waits in the server's outbox (asked again at the recheck pace,
 * so the text follows when it leaves), or that it could not be sent at all.
 */
function VerificationMailStatus({ email }: { email: string | undefined }) {
  const { t } = useTranslation('auth')
  const [mail, setMail] = useState<'sent' | 'queued' | 'failed'>('sent')
  useEffect(() => {
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const ask = async () => {
      try {
        const response = await fetch('/api/user/verification-mail', { headers: { accept: 'application/json' } })
        const state = response.ok ? ((await response.json()) as { mail?: unknown }).mail : undefined
        if (!live || (state !== 'sent' && state !== 'queued' && state !== 'failed')) return
        setMail(state)
        if (state === 'queued') timer = setTimeout(() => void ask(), EMAIL_VERIFICATION_RECHECK_MS)
      } catch {
        // Offline or signed out: the page's own text stands.
      }
    }
    void ask()
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [])
  if (mail === 'sent') return <p>{email ? t('checkEmail.sentTo', { email }) : t('checkEmail.sent')}</p>
  return (
    <Notice kind="warning" testId="verification-mail-status">
      {t(mail === 'queued' ? 'checkEmail.mailQueued' : 'checkEmail.mailFailed')}
    </Notice>
  )
}

export function CheckEmailPage() {
  const { t } = useTranslation('auth')
  const email = (useLocation().state as { email?: string } | null)?.email
  useContinueWhenVerified()
  return (
    <main id="content" className="auth-page">
      <h1>{t('checkEmail.title')}</h1>
      <VerificationMailStatus email={email} />
      <p>{t('checkEmail.spam')}</p>
      <ResendButton />
    </main>
  )
}

export function EmailNotVerifiedPage() {
  const { t } = useTranslation('auth')
  useContinueWhenVerified()
  return (
    <main id="content" className="auth-page">
      <h1>{t('notVerified.title')}</h1>
      <p>{t('notVerified.lead')}</p>
      <p className="actions">
        <ResendButton /> <Link to="/@/logout">{t('notVerified.logOut')}</Link>
      </p>
    </main>
  )
}

/**
 * The emailed link asks for a click before it spends the token, so a mail scanner that opens
 * links cannot use it up.
 */
export function VerifyEmailPage() {
  const { t } = useTranslation(['auth', 'common'])
  const location = useLocation()
  const token = new URLSearchParams(location.search).get('token')
  const [outcome, setOutcome] = useState<'idle' | 'busy' | 'verified' | 'invalid' | 'error'>(token ? 'idle' : 'invalid')
  const [error, setError] = useState<string | null>(null)
  const [signedIn, setSignedIn] = useState(false)
  const verify = async () => {
    setOutcome('busy')
    try {
      const result = await EmailVerification.verifyEmail()
      setOutcome(result.status === 'OK' ? 'verified' : 'invalid')
      setSignedIn(await Session.doesSessionExist())
    } catch (failure) {
      setError((await describeAuthFailure(failure, t)).message)
      setOutcome('error')
    }
  }
  return (
    <AuthShell title={t('auth:verify.title')}>
      {outcome === 'verified' ? (
        <>
          <Notice kind="success" testId="verify-done">
            {t('auth:verify.done')}
          </Notice>
          <Link className="button" to={signedIn ? '/@' : '/login'}>
            {signedIn ? t('auth:verify.continue') : t('auth:verify.logIn')}
          </Link>
        </>
      ) : outcome === 'invalid' ? (
        <>
          <Notice kind="error" testId="verify-invalid">
            {t('auth:verify.invalid')}
          </Notice>
          <Link to="/email-not-verified">{t('auth:verify.getNewLink')}</Link>
        </>
      ) : (
        <>
          <p>{t('auth:verify.lead')}</p>
          {error ? <Notice kind="error">{error}</Notice> : null}
          <button type="button" className="button" disabled={outcome === 'busy'} onClick={() => void verify()}>
            {t('auth:verify.submit')}
          </button>
        </>
      )}
    </AuthShell>
  )
}
