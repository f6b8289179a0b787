import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { DELETION_COMMENT_MAX_LENGTH } from '../../../shared/constants.ts'
import { DELETION_REASONS, checkDeletionReason, type DeletionReason } from '../../../shared/profile.ts'
import type { ErrorBody, UserRecord } from '../../../shared/types.ts'
import { Field, Notice } from '../../components/auth-shell.tsx'
import { apiSend, errorMessage } from '../../lib/api.ts'
import { notifySignedOut } from '../../lib/session-state.ts'
import { showToast } from '../../lib/toasts.ts'

// Deleting the account (issue 11, spec §1, §9): a reason (a comment is required for "other"), the
// account's email typed again, and — when the server asks for it — a current authenticator code.
// Nothing is deleted until the server has checked all of it.

type Status = { kind: 'error'; text: string } | { kind: 'error'; key: 'comment' | 'reason' | 'network' | 'other' }

export function DeleteAccountSection({ user }: { user: UserRecord }) {
  const { t } = useTranslation(['profile', 'common'])
  const id = useId()
  const [reason, setReason] = useState<DeletionReason | null>(null)
  const [comment, setComment] = useState('')
  const [askCode, setAskCode] = useState(false)
  const [status, setStatus] = useState<Status | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
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
    setBusy(true)
    setStatus(null)
    const totp = String(form.get('totp') ?? '').trim()
    const result = await apiSend('POST', '/api/user/delete', {
      reason: checked.reason,
      comment: checked.comment,
      confirmEmail: String(form.get('confirmEmail') ?? ''),
      ...(totp ? { totp } : {}),
    })
    setBusy(false)
    if (result.status === 204 || (result.body as Partial<ErrorBody> | null)?.code === 'BFF_DELETION_PENDING') {
      showToast({ kind: 'success', title: t('profile:deletion.done') })
      // This browser's session is gone (the answer cleared its cookies): leave the private pages.
      notifySignedOut()
      return
    }
    const code = (result.body as Partial<ErrorBody> | null)?.code
    if (code === 'BFF_TOTP_CODE_REQUIRED') {
      setAskCode(true)
      setStatus({ kind: 'error', text: t('profile:deletion.codeNeeded') })
      return
    }
    if (code === 'BFF_CONFIRM_EMAIL_MISMATCH') {
      setStatus({ kind: 'error', text: t('profile:deletion.emailMismatch') })
      return
    }
    if (code === 'BFF_TOTP_INVALID') {
      setStatus({ kind: 'error', text: t('profile:deletion.codeWrong') })
      return
    }
    setStatus(result.status === 0 ? { kind: 'error', key: 'network' } : { kind: 'error', text: errorMessage(result) ?? t('common:errors.occuredSomeError') })
  }

  const statusText = (shown: Status): string => {
    if ('text' in shown) return shown.text
    if (shown.key === 'reason') return t('profile:deletion.chooseReason')
    if (shown.key === 'comment') return t('profile:deletion.commentInvalid', { max: DELETION_COMMENT_MAX_LENGTH })
    return shown.key === 'network' ? t('common:errors.errorApiRequest') : t('common:errors.occuredSomeError')
  }

  return (
    <section className="profile-section profile-danger" aria-labelledby={`${id}-heading`} data-testid="delete-account">
      <h2 id={`${id}-heading`}>{t('profile:deletion.heading')}</h2>
      <p className="hint">{t('profile:deletion.lead')}</p>
      <form className="profile-form" method="post" onSubmit={(event) => void submit(event)}>
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
          <button type="submit" className="button button-danger" disabled={busy}>
            {t('profile:deletion.submit')}
          </button>
        </p>
      </form>
    </section>
  )
}
