import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation, useNavigate } from 'react-router'
import type { FormOutcome } from '../../../shared/auth/forms.ts'
import { EMAIL_VERIFICATION_RECHECK_MS } from '../../../shared/constants.ts'
import { readReturn, returnSearch, SIGNED_IN_HOME, type ReturnTarget } from '../../../shared/auth/return-path.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { carryReturn, continueTo } from '../../lib/account/continue.ts'
import { formOutcomeAction, useFormOutcome } from '../../lib/account/form-outcome.ts'
import { apiResponse } from '../../lib/api.ts'
import { EmailVerification, Session, browserSessionState } from '../../lib/session/auth.ts'
import { problemMessage, problemOfFailure, type AuthT } from '../../lib/account/auth-errors.ts'

// /check-email (after sign-up), /email-not-verified (the guard sends unverified users here) and
// /verify-email?token= (the emailed link). ?redirectToPath= rides along on all three, and in the
// links the BFF mails. Their buttons are forms that work before the page's
// script runs (decision 025).

/** "Send the email again" and "Verify my email" sent before the script ran, answered by the BFF. */
export const action = formOutcomeAction

/** Runs `work` instead of the browser's own post of the form. */
function submitWith(work: () => Promise<void>) {
  return (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    void work()
  }
}

/** Moves on by itself once the email is verified in another tab (spec §4: recheck after 10 s). */
function useContinueWhenVerified(target: ReturnTarget | null): void {
  const navigate = useNavigate()
  useEffect(() => {
    const timer = setInterval(() => {
      void (async () => {
        if ((await browserSessionState()) === 'LOGGED_IN') await continueTo(navigate, target)
      })()
    }, EMAIL_VERIFICATION_RECHECK_MS)
    return () => clearInterval(timer)
  }, [navigate, target])
}

function ResendButton({ target }: { target: ReturnTarget | null }) {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  // Sent before the script ran, the BFF's outcome of the same call (page-forms.ts).
  const [outcome, setOutcome] = useFormOutcome()
  const [busy, setBusy] = useState(false)
  const resend = async () => {
    setBusy(true)
    try {
      const options = carryReturn(target)
      const result = await EmailVerification.sendVerificationEmail(options ? { options } : {})
      if (result.status === 'EMAIL_ALREADY_VERIFIED_ERROR') {
        await continueTo(navigate, target)
        return
      }
      setOutcome({ done: true })
    } catch (failure) {
      setOutcome({ problem: await problemOfFailure(failure) })
    } finally {
      setBusy(false)
    }
  }
  const notice = resendNotice(outcome, t, i18n.language)
  return (
    <>
      {notice ? (
        <Notice kind={notice.kind === 'signedOut' ? 'warning' : notice.kind} testId="resend-notice">
          {notice.text}
          {notice.kind === 'signedOut' ? (
            <>
              {' '}
              <Link to={`/login${returnSearch(target)}`}>{t('auth:verify.logInToResend')}</Link>
            </>
          ) : null}
        </Notice>
      ) : null}
      <form method="post" className="button-form" onSubmit={submitWith(resend)}>
        <button type="submit" className="button" disabled={busy}>
          {t('auth:verify.resend')}
        </button>
      </form>
    </>
  )
}

/**
 * What "send again" says: the link is on its way, or why not. No session in this browser (signed
 * out, or the link was opened elsewhere): a new link goes to the account's address, which only a
 * signed-in session knows — so it says that, and leads to the login.
 */
function resendNotice(outcome: FormOutcome | undefined, t: AuthT, language: string): { kind: 'success' | 'error' | 'signedOut'; text: string } | null {
  if (outcome?.done) return { kind: 'success', text: t('auth:verify.resent') }
  if (!outcome?.problem) return null
  if (outcome.problem.kind === 'signedOut') return { kind: 'signedOut', text: t('auth:verify.resendSignedOut') }
  return { kind: 'error', text: problemMessage(outcome.problem, t, language) }
}

/**
 * What happened to the verification mail: "we sent you a link" while it went out; that
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
        const answer = await apiResponse(undefined, '/api/user/verification-mail')
        const state = answer.status === 200 ? (answer.body as { mail?: unknown } | null)?.mail : undefined
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
  const location = useLocation()
  const email = (location.state as { email?: string } | null)?.email
  const target = useTarget(location.search)
  useContinueWhenVerified(target)
  return (
    <main id="content" className="auth-page">
      <h1>{t('checkEmail.title')}</h1>
      <VerificationMailStatus email={email} />
      <p>{t('checkEmail.spam')}</p>
      <ResendButton target={target} />
    </main>
  )
}

export function EmailNotVerifiedPage() {
  const { t } = useTranslation('auth')
  const target = useTarget(useLocation().search)
  useContinueWhenVerified(target)
  return (
    <main id="content" className="auth-page">
      <h1>{t('notVerified.title')}</h1>
      <p>{t('notVerified.lead')}</p>
      <div className="actions">
        <ResendButton target={target} /> <Link to="/@/logout">{t('notVerified.logOut')}</Link>
      </div>
    </main>
  )
}

/** The page's target, the same object from render to render (the effects above depend on it). */
function useTarget(search: string): ReturnTarget | null {
  return useMemo(() => readReturn(search), [search])
}

/**
 * The emailed link asks for a click before it spends the token, so a mail scanner that opens
 * links cannot use it up. Then on to the link's target: at once in the browser that signed up,
 * through the login page in another one.
 */
export function VerifyEmailPage() {
  const { t, i18n } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const location = useLocation()
  const token = new URLSearchParams(location.search).get('token')
  const target = readReturn(location.search)
  // Sent before the script ran, the BFF's outcome of the same call (page-forms.ts).
  const [fromServer] = useFormOutcome()
  const serverProblem = fromServer?.problem?.kind === 'invalidToken' ? undefined : fromServer?.problem
  const [outcome, setOutcome] = useState<'idle' | 'busy' | 'verified' | 'invalid' | 'error'>(
    fromServer?.done ? 'verified' : fromServer?.problem ? (serverProblem ? 'error' : 'invalid') : token ? 'idle' : 'invalid',
  )
  const [error, setError] = useState<string | null>(serverProblem ? problemMessage(serverProblem, t, i18n.language) : null)
  const [signedIn, setSignedIn] = useState(fromServer?.signedIn === true)
  const verify = async () => {
    setOutcome('busy')
    try {
      const result = await EmailVerification.verifyEmail()
      setOutcome(result.status === 'OK' ? 'verified' : 'invalid')
      setSignedIn(await Session.doesSessionExist())
    } catch (failure) {
      const problem = await problemOfFailure(failure)
      if (problem.kind === 'invalidToken') return setOutcome('invalid')
      setError(problemMessage(problem, t, i18n.language))
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
          {signedIn ? (
            <Link
              className="button"
              to={target?.path ?? SIGNED_IN_HOME}
              onClick={(event) => {
                // A pending action runs only from here, on the person's click (continue.ts).
                if (!target?.action) return
                event.preventDefault()
                void continueTo(navigate, target)
              }}
            >
              {t('auth:verify.continue')}
            </Link>
          ) : (
            <Link className="button" to={`/login${returnSearch(target)}`}>
              {t('auth:verify.logIn')}
            </Link>
          )}
        </>
      ) : outcome === 'invalid' ? (
        <>
          <Notice kind="error" testId="verify-invalid">
            {t('auth:verify.invalid')}
          </Notice>
          <Link to={`/email-not-verified${returnSearch(target)}`}>{t('auth:verify.getNewLink')}</Link>
        </>
      ) : (
        <>
          <p>{t('auth:verify.lead')}</p>
          {error ? <Notice kind="error">{error}</Notice> : null}
          <form method="post" className="button-form" onSubmit={submitWith(verify)}>
            <button type="submit" className="button" disabled={outcome === 'busy'}>
              {t('auth:verify.submit')}
            </button>
          </form>
        </>
      )}
    </AuthShell>
  )
}
