import { useEffect, useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { DELETION_COMMENT_MAX_LENGTH } from '../../../shared/constants.ts'
import { DELETION_REASONS, checkDeletionReason, type DeletionReason } from '../../../shared/account/profile.ts'
import type { DeletionSummary, UserRecord } from '../../../shared/types.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { apiResponse } from '../../lib/api.ts'
import { useFailureText, useRouteWrite, type WriteFailure } from '../../lib/route-writes.ts'
import { formatBytes } from '../files/model.ts'
import { showToast } from '../../lib/notices/toasts.ts'
import { onSignedOut } from '../../lib/session/presence.ts'
import type { ProfileOutcome } from './actions.ts'

// Deleting the account (spec §1, §9): a reason (a comment is required for "other"), the
// account's email typed again, and — when the server asks for it — a current authenticator code.
// Nothing is deleted until the server has checked all of it (the profile's action, actions.ts,
// which also leaves the page once it is done).

type Status = { kind: 'error'; text: string } | { kind: 'error'; key: 'comment' | 'reason' }

/**
 * What deleting the account removes beyond the profile, library and picture: the files
 * (how many, how large), the shared links, the subscriptions by name — said before the person
 * confirms. When the summary cannot be read, what deletion removes is still said, without numbers.
 */
function DeletionConsequences() {
  const { t, i18n } = useTranslation(['profile'])
  const [summary, setSummary] = useState<DeletionSummary | 'unavailable' | null>(null)
  useEffect(() => {
    let current = true
    apiResponse(undefined, '/api/user/deletion-summary')
      .then((answer) => current && setSummary(answer.status === 200 ? (answer.body as DeletionSummary) : 'unavailable'))
      .catch(() => current && setSummary('unavailable'))
    return () => {
      current = false
    }
  }, [])
  if (summary === null) return null
  if (summary === 'unavailable') return <p className="hint" data-testid="deletion-summary">{t('profile:deletion.summaryUnavailable')}</p>
  const { files, shareLinks, subscriptions } = summary
  if (files.count === 0 && shareLinks === 0 && subscriptions.length === 0) {
    return <p className="hint" data-testid="deletion-summary">{t('profile:deletion.nothingElse')}</p>
  }
  const names = new Intl.ListFormat(i18n.language, { style: 'long', type: 'conjunction' }).format(subscriptions.map((subscription) => subscription.name))
  return (
    <div className="deletion-summary" data-testid="deletion-summary">
      <p className="hint">{t('profile:deletion.alsoHeading')}</p>
      <ul>
        {files.count > 0 ? <li>{t('profile:deletion.files', { count: files.count, size: formatBytes(files.bytes, i18n.language) })}</li> : null}
        {shareLinks > 0 ? <li>{t('profile:deletion.shareLinks', { count: shareLinks })}</li> : null}
        {subscriptions.length > 0 ? <li>{t('profile:deletion.subscriptions', { count: subscriptions.length, names })}</li> : null}
      </ul>
    </div>
  )
}

export function DeleteAccountSection({ user }: { user: UserRecord }) {
  const { t } = useTranslation(['profile', 'common'])
  const id = useId()
  const failureText = useFailureText()
  /** Why the server did not delete the account, in words. */
  const refusal = (failure: WriteFailure): Status => {
    if (failure.code === 'BFF_TOTP_CODE_REQUIRED') return { kind: 'error', text: t('profile:deletion.codeNeeded') }
    if (failure.code === 'BFF_CONFIRM_EMAIL_MISMATCH') return { kind: 'error', text: t('profile:deletion.emailMismatch') }
    if (failure.code === 'BFF_TOTP_INVALID') return { kind: 'error', text: t('profile:deletion.codeWrong') }
    return { kind: 'error', text: failureText(failure) }
  }
  const write = useRouteWrite<ProfileOutcome>((outcome) => {
    if (outcome.intent !== 'deleteAccount' || !outcome.failure) return
    if (outcome.failure.code === 'BFF_TOTP_CODE_REQUIRED') setAskCode(true)
    setStatus(refusal(outcome.failure))
  })
  // A form sent before the script ran comes back refused with what was chosen and written.
  const refused = write.initial?.intent === 'deleteAccount' ? write.initial : undefined
  const [reason, setReason] = useState<DeletionReason | null>(() => (DELETION_REASONS as readonly string[]).includes(refused?.values?.reason ?? '') ? (refused!.values!.reason as DeletionReason) : null)
  const [comment, setComment] = useState(refused?.values?.comment ?? '')
  const [askCode, setAskCode] = useState(refused?.failure?.code === 'BFF_TOTP_CODE_REQUIRED')
  const [status, setStatus] = useState<Status | null>(() => (refused?.failure ? refusal(refused.failure) : null))

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    if (!reason) {
      setStatus({ kind: 'error', key: 'reason' })
      return
    }
    const checked = checkDeletionReason(reason, comment)
    if ('problem' in checked) {
      setStatus({ kind: 'error', key: 'comment' })
      return
    }
    setStatus(null)
    // Deleted, the action ends the tab's session and the page is left: said here, as it happens.
    const stop = onSignedOut(() => {
      stop()
      showToast({ kind: 'success', title: t('profile:deletion.done') })
    })
    void write.submit({
      intent: 'deleteAccount',
      reason: checked.reason,
      comment: checked.comment ?? '',
      confirmEmail: String(form.get('confirmEmail') ?? ''),
      totp: String(form.get('totp') ?? ''),
    }).finally(stop)
  }

  const statusText = (shown: Status): string => {
    if ('text' in shown) return shown.text
    if (shown.key === 'reason') return t('profile:deletion.chooseReason')
    return t('profile:deletion.commentInvalid', { max: DELETION_COMMENT_MAX_LENGTH })
  }

  return (
    <section className="profile-section profile-danger" aria-labelledby={`${id}-heading`} data-testid="delete-account">
      <h2 id={`${id}-heading`}>{t('profile:deletion.heading')}</h2>
      <p className="hint">{t('profile:deletion.lead')}</p>
      <DeletionConsequences />
      <form className="profile-form" method="post" onSubmit={submit}>
        <input type="hidden" name="intent" value="deleteAccount" />
        <fieldset className="deletion-reasons">
          <legend>{t('profile:deletion.reasonLegend')}</legend>
          {DELETION_REASONS.map((value) => (
            <label key={value} className="radio">
              <input type="radio" name="reason" value={value} checked={reason === value} onChange={() => setReason(value)} required />
              {t(`profile:deletion.reasons.${value}`)}
            </label>
          ))}
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-comment`}>{reason === 'other' ? t('profile:deletion.commentRequired') : t('profile:deletion.comment')}</label>
          <textarea
            id={`${id}-comment`}
            name="comment"
            rows={3}
            maxLength={DELETION_COMMENT_MAX_LENGTH}
            required={reason === 'other'}
            value={comment}
            onChange={(event) => setComment(event.currentTarget.value)}
            aria-describedby={`${id}-comment-hint`}
          />
          <p id={`${id}-comment-hint`} className="hint">
            {t('profile:deletion.commentHint', { count: DELETION_COMMENT_MAX_LENGTH - [...comment].length })}
          </p>
        </div>
        <Field
          id={`${id}-email`}
          label={t('profile:deletion.confirmEmail')}
          hint={t('profile:deletion.confirmEmailHint', { email: user.email })}
          name="confirmEmail"
          type="email"
          autoComplete="off"
          required
        />
        {askCode ? (
          <Field autoFocus id={`${id}-totp`} label={t('profile:deletion.code')} name="totp" type="text" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9 ]{6,9}" required />
        ) : null}
        {status ? (
          <Notice kind="error" testId="delete-status">
            {statusText(status)}
          </Notice>
        ) : null}
        <p className="actions">
          <button type="submit" className="button button-danger" disabled={write.busy}>
            {t('profile:deletion.submit')}
          </button>
        </p>
      </form>
    </section>
  )
}
