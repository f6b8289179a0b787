import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useRouteLoaderData } from 'react-router'
import { DISPLAY_NAME_MAX_LENGTH } from '../../shared/constants.ts'
import { LOCALES, LOCALE_NAMES, isLocale } from '../../shared/locales.ts'
import { checkDisplayName } from '../../shared/account/profile.ts'
import { deviceName } from '../../shared/account/user-agent.ts'
import { Field, Notice } from '../components/auth-shell.tsx'
import { apiResponse } from '../lib/api.ts'
import { useFailureText, useRouteWrite } from '../lib/route-writes.ts'
import type { SignedInData } from '../lib/session/guards.ts'
import { switchTabLocale } from '../components/language-switcher.tsx'
import { AvatarSection } from './profile/avatar-section.tsx'
import { DeleteAccountSection } from './profile/delete-account-section.tsx'
import { AuthenticatorSection, PasswordGate } from './profile/authenticator-section.tsx'
import { EmailSection } from './profile/email-section.tsx'
import type { ProfileOutcome } from './profile/actions.ts'
import { NotificationsSection } from './profile/notifications-section.tsx'
import { SupportSection } from './profile/support-section.tsx'

// /@/my-profile (spec §2): the account's display name and language. The language chosen
// here is stored on the account and every later sign-in, on any device, applies it.

export { action } from './profile/actions.ts'

export function Component() {
  const { t, i18n } = useTranslation(['profile', 'common'])
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const failureText = useFailureText()
  const nameId = useId()
  const languageId = useId()
  // A message from the API as it came, or one of ours by key: translated when shown, so it follows
  // a language change the save itself made.
  type Status = { kind: 'success' | 'error'; text: string } | { kind: 'success' | 'error'; key: 'saved' | 'invalid' }
  const statusOf = (outcome: ProfileOutcome): Status => (outcome.failure ? { kind: 'error', text: failureText(outcome.failure) } : { kind: 'success', key: 'saved' })

  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent !== 'details') return
    if (outcome.failure) return setStatus(statusOf(outcome))
    // The page's data (the header's name) is loaded again already; the language follows.
    const language = outcome.language
    void (language && language !== i18n.language ? switchTabLocale(i18n, language) : Promise.resolve()).then(() => setStatus(statusOf(outcome)))
  })
  const [status, setStatus] = useState<Status | null>(() => (write.initial?.intent === 'details' ? statusOf(write.initial) : null))

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const checked = checkDisplayName(String(form.get('name') ?? ''))
    if ('problem' in checked) {
      setStatus({ kind: 'error', key: 'invalid' })
      return
    }
    setStatus(null)
    const language = String(form.get('language') ?? '')
    void write.submit({ intent: 'details', name: checked.name ?? '', ...(isLocale(language) ? { language } : {}) })
  }

  const statusText = (shown: NonNullable<typeof status>): string => {
    if ('text' in shown) return shown.text
    return shown.key === 'saved' ? t('profile:saved') : t('profile:name.invalid', { max: DISPLAY_NAME_MAX_LENGTH })
  }

  return (
    <main id="content" className="profile-page">
      <header className="listing-header">
        <h1>{t('profile:title')}</h1>
        <p>{t('profile:lead')}</p>
      </header>
      <section className="profile-section" aria-labelledby="profile-account">
        <h2 id="profile-account">{t('profile:account.heading')}</h2>
        <dl className="profile-facts">
          <dt>{t('profile:account.email')}</dt>
          <dd data-testid="profile-email">{user.email}</dd>
          <dt>{t('profile:account.joined')}</dt>
          <dd>{new Date(user.timeJoined).toLocaleDateString(i18n.language, { year: 'numeric', month: 'long', day: 'numeric' })}</dd>
        </dl>
      </section>
      <AvatarSection user={user} />
      <section className="profile-section" aria-labelledby="profile-details">
        <h2 id="profile-details">{t('profile:details.heading')}</h2>
        <form className="profile-form" method="post" onSubmit={save}>
          <input type="hidden" name="intent" value="details" />
          <Field id={nameId} label={t('profile:name.label')} hint={t('profile:name.hint', { max: DISPLAY_NAME_MAX_LENGTH })} name="name" type="text" autoComplete="nickname" defaultValue={user.name ?? ''} maxLength={DISPLAY_NAME_MAX_LENGTH} />
          <div className="field">
            <label htmlFor={languageId}>{t('profile:language.label')}</label>
            {/* Keyed by the account's language: a choice made in the header shows here at once. */}
            <select key={user.languageChosen ? user.language : i18n.language} id={languageId} name="language" defaultValue={user.languageChosen ? user.language : i18n.language} aria-describedby={`${languageId}-hint`} data-testid="profile-language">
              {LOCALES.map((locale) => (
                <option key={locale} value={locale} lang={locale}>
                  {LOCALE_NAMES[locale]}
                </option>
              ))}
            </select>
            <p id={`${languageId}-hint`} className="hint">
              {t('profile:language.hint')}
            </p>
          </div>
          {status ? (
            <Notice kind={status.kind} testId="profile-status">
              {statusText(status)}
            </Notice>
          ) : null}
          <p className="actions">
            <button type="submit" className="button" disabled={write.busy}>
              {t('profile:save')}
            </button>
          </p>
        </form>
      </section>
      <NotificationsSection user={user} />
      <EmailSection />
      <PasswordGate><PasswordSection /></PasswordGate>
      <AuthenticatorSection />
      <DevicesSection />
      <SupportSection />
      <section className="profile-section" aria-labelledby="profile-data">
        <h2 id="profile-data">{t('profile:data.heading')}</h2>
        <p className="hint">{t('profile:data.lead')}</p>
        <p className="actions">
          {/* A plain download: the file comes with its own name (Content-Disposition). */}
          <a className="button button-secondary" href="/api/user/export" download data-testid="export-link">
            {t('profile:data.download')}
          </a>
        </p>
      </section>
      <DeleteAccountSection user={user} />
    </main>
  )
}

/** The password: the current one, and the new one twice (POST /api/user/password, answered by the BFF). */
function PasswordSection() {
  const { t } = useTranslation(['profile', 'auth', 'common'])
  const failureText = useFailureText()
  const id = useId()
  const formElement = useRef<HTMLFormElement>(null)
  type Status = { kind: 'success' | 'error'; text: string }
  const statusOf = (outcome: Extract<ProfileOutcome, { intent: 'password' }>): Status => {
    if (outcome.mismatch) return { kind: 'error', text: t('auth:reset.mismatch') }
    return outcome.failure ? { kind: 'error', text: failureText(outcome.failure) } : { kind: 'success', text: t('profile:password.changed') }
  }
  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent !== 'password') return
    if (!outcome.failure && !outcome.mismatch) formElement.current?.reset()
    setStatus(statusOf(outcome))
  })
  const [status, setStatus] = useState<Status | null>(() => (write.initial?.intent === 'password' ? statusOf(write.initial) : null))

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const newPassword = String(form.get('newPassword') ?? '')
    if (newPassword !== String(form.get('repeat') ?? '')) {
      setStatus({ kind: 'error', text: t('auth:reset.mismatch') })
      return
    }
    setStatus(null)
    void write.submit({ intent: 'password', currentPassword: String(form.get('currentPassword') ?? ''), newPassword })
  }

  return (
    <section className="profile-section" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{t('profile:password.heading')}</h2>
      <p className="hint">{t('profile:password.lead')}</p>
      <form ref={formElement} className="profile-form" method="post" onSubmit={submit}>
        <input type="hidden" name="intent" value="password" />
        <Field id={`${id}-current`} label={t('profile:password.current')} name="currentPassword" type="password" autoComplete="current-password" required />
        <Field id={`${id}-new`} label={t('auth:reset.newPassword')} name="newPassword" type="password" autoComplete="new-password" required minLength={8} />
        <Field id={`${id}-repeat`} label={t('auth:reset.confirm')} name="repeat" type="password" autoComplete="new-password" required />
        {status ? (
          <Notice kind={status.kind} testId="password-status">
            {status.text}
          </Notice>
        ) : null}
        <p className="actions">
          <button type="submit" className="button" disabled={write.busy}>
            {t('profile:password.submit')}
          </button>
        </p>
      </form>
    </section>
  )
}

interface DeviceSession {
  handle: string
  current: boolean
  createdAt: string
  lastUsedAt: string
  userAgent: string | null
}

/**
 * The signed-in devices (GET /api/user/sessions, answered by the BFF from the auth core). Read in
 * the browser after the page shows: the server renders pages against the product API, which does
 * not know sessions.
 */
function DevicesSection() {
  const { t, i18n } = useTranslation(['profile', 'common'])
  const failureText = useFailureText()
  const id = useId()
  const [devices, setDevices] = useState<DeviceSession[] | 'loading' | 'failed'>('loading')
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const load = useCallback(async () => {
    const response = await apiResponse(undefined, '/api/user/sessions').catch(() => null)
    setDevices(response?.status === 200 && Array.isArray(response.body) ? (response.body as DeviceSession[]) : 'failed')
  }, [])
  useEffect(() => {
    void load()
  }, [load])

  const date = (iso: string) => new Date(iso).toLocaleString(i18n.language, { dateStyle: 'medium', timeStyle: 'short' })
  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent !== 'endSession' && outcome.intent !== 'endOtherSessions') return
    if (outcome.failure) setStatus({ kind: 'error', text: failureText(outcome.failure) })
    else setStatus({ kind: 'success', text: outcome.intent === 'endSession' ? t('profile:devices.ended') : t('profile:devices.endedOthers') })
    void load()
  })
  const end = (fields: { intent: 'endSession'; handle: string } | { intent: 'endOtherSessions' }) => {
    setStatus(null)
    void write.submit(fields)
  }

  return (
    <section className="profile-section" aria-labelledby={`${id}-heading`} data-testid="devices">
      <h2 id={`${id}-heading`}>{t('profile:devices.heading')}</h2>
      <p className="hint">{t('profile:devices.lead')}</p>
      {devices === 'loading' ? <p aria-live="polite">{t('profile:devices.loading')}</p> : null}
      {devices === 'failed' ? <Notice kind="error">{t('profile:devices.failed')}</Notice> : null}
      {Array.isArray(devices) ? (
        <ul className="device-list">
          {devices.map((device) => {
            const name = deviceName(device.userAgent)
            return (
              <li key={device.handle} className="device" data-testid={device.current ? 'device-current' : 'device'}>
                <div>
                  <strong>{t('profile:devices.device', { browser: name.browser ?? t('profile:devices.unknownBrowser'), system: name.system ?? t('profile:devices.unknownSystem') })}</strong>
                  {device.current ? <span className="device-badge">{t('profile:devices.thisDevice')}</span> : null}
                  <p className="hint">
                    {t('profile:devices.began', { date: date(device.createdAt) })} · {t('profile:devices.lastUsed', { date: date(device.lastUsedAt) })}
                  </p>
                </div>
                {device.current ? null : (
                  <button type="button" className="button button-secondary" disabled={write.busy} onClick={() => end({ intent: 'endSession', handle: device.handle })}>
                    {t('profile:devices.signOut')}
                  </button>
                )}
              </li>
            )
          })}
        </ul>
      ) : null}
      {status ? (
        <Notice kind={status.kind} testId="devices-status">
          {status.text}
        </Notice>
      ) : null}
      {Array.isArray(devices) && devices.some((device) => !device.current) ? (
        <p className="actions">
          <button type="button" className="button" disabled={write.busy} onClick={() => end({ intent: 'endOtherSessions' })}>
            {t('profile:devices.signOutOthers')}
          </button>
        </p>
      ) : null}
    </section>
  )
}
