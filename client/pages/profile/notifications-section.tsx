import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useRevalidator } from 'react-router'
import { NOTIFY_MODES } from '../../../shared/catalogue/living.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiSend, errorMessage } from '../../lib/api.ts'

// The profile's notification settings: how notifications are mailed — not at all, one
// mail each as they come, or a daily digest (the default) — and whether adding a program to the
// library watches it too. Saved with PATCH /api/user { notify, watchOnAdd }, like the details above.

export function NotificationsSection({ user }: { user: UserRecord }) {
  const { t } = useTranslation(['profile', 'common'])
  const id = useId()
  const revalidator = useRevalidator()
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const { notify, watchOnAdd } = user

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const chosen = String(form.get('notify') ?? '')
    setBusy(true)
    setStatus(null)
    const result = await apiSend<UserRecord>('PATCH', '/api/user', {
      notify: (NOTIFY_MODES as readonly string[]).includes(chosen) ? chosen : notify,
      watchOnAdd: form.get('watchOnAdd') === 'on',
    })
    if (result.ok) await revalidator.revalidate()
    setBusy(false)
    if (result.ok) setStatus({ kind: 'success', text: t('profile:notifications.saved') })
    else setStatus({ kind: 'error', text: result.status === 0 ? t('common:errors.errorApiRequest') : (errorMessage(result) ?? t('common:errors.occuredSomeError')) })
  }

  return (
    // The notifications page links here (#notifications).
    <section className="profile-section" id="notifications" aria-labelledby={`${id}-heading`} data-testid="notifications-section">
      <h2 id={`${id}-heading`}>{t('profile:notifications.heading')}</h2>
      <p className="hint">{t('profile:notifications.lead')}</p>
      {/* Keyed by what is saved: a save, or a change in another tab that a revalidation brings, shows as it is. */}
      <form key={`${notify}:${watchOnAdd}`} className="profile-form" method="post" onSubmit={(event) => void save(event)}>
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
          <button type="submit" className="button" disabled={busy}>
            {t('profile:notifications.save')}
          </button>
        </p>
      </form>
    </section>
  )
}
