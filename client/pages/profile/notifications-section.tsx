import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { NOTIFY_MODES } from '../../../shared/catalogue/living.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { useFailureText, useRouteWrite } from '../../lib/route-writes.ts'
import type { ProfileOutcome } from './actions.ts'

// The profile's notification settings: how notifications are mailed — not at all, one
// mail each as they come, or a daily digest (the default) — and whether adding a program to the
// library watches it too. Saved with PATCH /api/user { notify, watchOnAdd } through the profile's
// action (actions.ts), like the details above; the form works before the script too.

export function NotificationsSection({ user }: { user: UserRecord }) {
  const { t } = useTranslation(['profile', 'common'])
  const id = useId()
  const failureText = useFailureText()
  const { notify, watchOnAdd } = user
  type Status = { kind: 'success' | 'error'; text: string }
  const statusOf = (outcome: ProfileOutcome): Status => (outcome.failure ? { kind: 'error', text: failureText(outcome.failure) } : { kind: 'success', text: t('profile:notifications.saved') })
  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent === 'notifications') setStatus(statusOf(outcome))
  })
  const [status, setStatus] = useState<Status | null>(() => (write.initial?.intent === 'notifications' ? statusOf(write.initial) : null))

  const save = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    setStatus(null)
    void write.submit({ intent: 'notifications', notify: String(form.get('notify') ?? ''), ...(form.get('watchOnAdd') === 'on' ? { watchOnAdd: 'on' } : {}) })
  }

  return (
    // The notifications page links here (#notifications).
    <section className="profile-section" id="notifications" aria-labelledby={`${id}-heading`} data-testid="notifications-section">
      <h2 id={`${id}-heading`}>{t('profile:notifications.heading')}</h2>
      <p className="hint">{t('profile:notifications.lead')}</p>
      {/* Keyed by what is saved: a save, or a change in another tab that a revalidation brings, shows as it is. */}
      <form key={`${notify}:${watchOnAdd}`} className="profile-form" method="post" onSubmit={save}>
        <input type="hidden" name="intent" value="notifications" />
        <fieldset className="choice-group">
          <legend>{t('profile:notifications.mail')}</legend>
          {NOTIFY_MODES.map((mode) => (
            <div key={mode} className="choice">
              <input id={`${id}-${mode}`} type="radio" name="notify" value={mode} defaultChecked={mode === notify} aria-describedby={`${id}-${mode}-hint`} />
              <label htmlFor={`${id}-${mode}`}>{t(`profile:notifications.${mode}`)}</label>
              <p id={`${id}-${mode}-hint`} className="hint">
                {t(`profile:notifications.${mode}Hint`)}
              </p>
            </div>
          ))}
        </fieldset>
        <div className="choice">
          <input id={`${id}-watch`} type="checkbox" name="watchOnAdd" defaultChecked={watchOnAdd} aria-describedby={`${id}-watch-hint`} data-testid="watch-on-add" />
          <label htmlFor={`${id}-watch`}>{t('profile:notifications.watchOnAdd')}</label>
          <p id={`${id}-watch-hint`} className="hint">
            {t('profile:notifications.watchOnAddHint')}
          </p>
        </div>
        {status ? (
          <Notice kind={status.kind} testId="notifications-settings-status">
            {status.text}
          </Notice>
        ) : null}
        <p className="actions">
          <button type="submit" className="button" disabled={write.busy}>
            {t('profile:notifications.save')}
          </button>
        </p>
      </form>
    </section>
  )
}
