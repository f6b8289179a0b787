import { useEffect, useId, useState, type FormEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { TOTP_COOLDOWN_S } from '../../../shared/constants.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { RecoveryCodeList } from '../../components/recovery-codes.tsx'
import { useRouteWrite, type WriteFailure } from '../../lib/route-writes.ts'
import type { ProfileOutcome } from './actions.ts'
import { reloadSecuritySummary, useSecuritySummary } from './security-summary.ts'

// The profile's authenticator: whether a TOTP app protects the account, adding one
// (the /mfa set-up, which comes back here), removing one with a current code or a recovery code,
// and a new set of recovery codes, shown once — also only with a code (the profile's action,
// actions.ts, makes the calls; the code typed is sent as the BFF takes it).

/** Where the set-up returns once the authenticator is confirmed and its recovery codes are shown. */
const SET_UP_LINK = `/mfa?redirectToPath=${encodeURIComponent('/@/my-profile')}`

/** A change that needs proof of the factor (removal, new recovery codes): a lead, the code field, confirm and cancel. */
function CodeForm(props: { id: string; fieldId: string; lead: string; confirm: string; busy: boolean; onSubmit: (event: FormEvent<HTMLFormElement>) => void; onCancel: () => void }) {
  const { t } = useTranslation('profile')
  return (
    <form className="profile-form" method="post" onSubmit={props.onSubmit} aria-labelledby={props.id} noValidate>
      <p id={props.id}>{props.lead}</p>
      <Field id={props.fieldId} label={t('authenticator.code')} name="code" type="text" autoComplete="one-time-code" spellCheck={false} autoCapitalize="off" required maxLength={64} />
      <p className="actions">
        <button type="submit" className="button" disabled={props.busy}>
          {props.confirm}
        </button>
        <button type="button" className="button button-secondary" onClick={props.onCancel}>
          {t('authenticator.cancel')}
        </button>
      </p>
    </form>
  )
}

export function AuthenticatorSection() {
  const { t } = useTranslation(['profile', 'auth', 'common'])
  const summary = useSecuritySummary()
  const id = useId()
  const [removing, setRemoving] = useState<string | null>(null)
  const [renewing, setRenewing] = useState(false)
  const [codes, setCodes] = useState<string[] | null>(null)
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const focusCode = () => document.getElementById(`${id}-code`)?.focus()
  const focusRenewCode = () => document.getElementById(`${id}-renew-code`)?.focus()

  // The code field takes the focus when it appears, and the Remove button when it goes, so the
  // keyboard goes on where it was.
  const [returnTo, setReturnTo] = useState<number | null>(null)
  useEffect(() => {
    if (removing) document.getElementById(`${id}-code`)?.focus()
    else if (returnTo !== null) document.getElementById(`${id}-remove-button-${returnTo}`)?.focus()
  }, [removing, returnTo, id])
  // Likewise for the new codes' form and its button.
  const [renewOpened, setRenewOpened] = useState(false)
  useEffect(() => {
    if (renewing) document.getElementById(`${id}-renew-code`)?.focus()
    else if (renewOpened) document.getElementById(`${id}-regenerate`)?.focus()
  }, [renewing, renewOpened, id])

  const failureText = (failure: WriteFailure): string => {
    switch (failure.code) {
      case 'BFF_TOTP_CODE_REQUIRED':
      case 'BFF_TOTP_INVALID':
      case 'BFF_RECOVERY_CODE_INVALID':
        return t('profile:authenticator.wrongCode')
      case 'BFF_TOTP_BLOCKED':
      case 'BFF_RECOVERY_CODE_BLOCKED':
        return t('profile:authenticator.locked', { minutes: TOTP_COOLDOWN_S / 60 })
      default:
        return failure.status === 0 ? t('common:errors.errorApiRequest') : (failure.message ?? t('common:errors.occuredSomeError'))
    }
  }

  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent !== 'removeAuthenticator' && outcome.intent !== 'newRecoveryCodes') return
    if (outcome.failure) {
      setStatus({ kind: 'error', text: failureText(outcome.failure) })
      if (outcome.intent === 'removeAuthenticator') focusCode()
      else focusRenewCode()
      return
    }
    if (outcome.intent === 'removeAuthenticator') {
      setReturnTo(null)
      setRemoving(null)
      setCodes(null)
      setStatus({ kind: 'success', text: t('profile:authenticator.removed') })
    } else if (outcome.intent === 'newRecoveryCodes') {
      setRenewing(false)
      setCodes(outcome.codes ?? null)
    }
    void reloadSecuritySummary()
  })
  const busy = write.busy

  const remove = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    if (!removing) return
    setStatus(null)
    void write.submit({ intent: 'removeAuthenticator', device: removing, code: String(new FormData(event.currentTarget).get('code') ?? '') })
  }

  const regenerate = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setStatus(null)
    void write.submit({ intent: 'newRecoveryCodes', code: String(new FormData(event.currentTarget).get('code') ?? '') })
  }

  let content: ReactNode = null
  if (summary === 'loading') content = <p aria-live="polite">{t('profile:authenticator.loading')}</p>
  else if (summary === 'failed') content = <Notice kind="error">{t('profile:authenticator.failed')}</Notice>
  else if (!summary.totp.enabled) {
    content = (
      <>
        <p data-testid="totp-status">{t('profile:authenticator.off')}</p>
        <p className="actions">
          <Link className="button" to={SET_UP_LINK}>
            {t('profile:authenticator.add')}
          </Link>
        </p>
      </>
    )
  } else {
    content = (
      <>
        <p data-testid="totp-status">{t('profile:authenticator.on')}</p>
        <ul className="device-list" aria-label={t('profile:authenticator.devices')}>
          {summary.totp.devices.map((device, index) => (
            <li key={device.name} className="device" data-testid="totp-device">
              <strong>{device.name}</strong>
              {removing === device.name ? null : (
                <button
                  type="button"
                  className="button button-secondary"
                  id={`${id}-remove-button-${index}`}
                  onClick={() => {
                    setStatus(null)
                    setRemoving(device.name)
                    setReturnTo(index)
                  }}
                >
                  {t('profile:authenticator.remove')}
                </button>
              )}
            </li>
          ))}
        </ul>
        {removing ? (
          <CodeForm
            id={`${id}-remove`}
            fieldId={`${id}-code`}
            lead={t('profile:authenticator.removeLead', { name: removing })}
            confirm={t('profile:authenticator.removeConfirm')}
            busy={busy}
            onSubmit={remove}
            onCancel={() => {
              setRemoving(null)
              setStatus(null)
            }}
          />
        ) : null}
        <h3 id={`${id}-codes`}>{t('profile:authenticator.codesHeading')}</h3>
        <p data-testid="recovery-codes-remaining">{t('profile:authenticator.codesRemaining', { count: summary.recoveryCodes.remaining })}</p>
        <p className="hint">{t('profile:authenticator.codesLead')}</p>
        {codes ? <RecoveryCodeList codes={codes} heading="h3" /> : null}
        {renewing ? (
          <CodeForm
            id={`${id}-renew`}
            fieldId={`${id}-renew-code`}
            lead={t('profile:authenticator.regenerateLead')}
            confirm={t('profile:authenticator.regenerateConfirm')}
            busy={busy}
            onSubmit={regenerate}
            onCancel={() => {
              setRenewing(false)
              setStatus(null)
            }}
          />
        ) : (
          <p className="actions">
            <button
              type="button"
              className="button button-secondary"
              id={`${id}-regenerate`}
              disabled={busy}
              onClick={() => {
                setStatus(null)
                setCodes(null)
                setRenewing(true)
                setRenewOpened(true)
              }}
            >
              {t('profile:authenticator.regenerate')}
            </button>
          </p>
        )}
      </>
    )
  }

  return (
    <section className="profile-section" aria-labelledby={`${id}-heading`} data-testid="authenticator">
      <h2 id={`${id}-heading`}>{t('profile:authenticator.heading')}</h2>
      <p className="hint">{t('profile:authenticator.lead')}</p>
      {content}
      {status ? (
        <Notice kind={status.kind} testId="authenticator-status">
          {status.text}
        </Notice>
      ) : null}
    </section>
  )
}

/**
 * The password section only for an account that has a password: one that signs in with an
 * external provider is told why there is none to change. Until the summary is known (and if it
 * cannot be read) the section shows as before; the BFF refuses the change for such accounts anyway.
 */
export function PasswordGate({ children }: { children: ReactNode }) {
  const { t } = useTranslation(['profile'])
  const summary = useSecuritySummary()
  const id = useId()
  if (typeof summary === 'string' || summary.hasPassword) return <>{children}</>
  return (
    <section className="profile-section" aria-labelledby={`${id}-heading`} data-testid="no-password">
      <h2 id={`${id}-heading`}>{t('profile:password.heading')}</h2>
      <p className="hint">{t('profile:authenticator.noPassword')}</p>
    </section>
  )
}
