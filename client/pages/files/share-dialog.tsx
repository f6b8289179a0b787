import { useId, useRef, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useFailureText, useRouteWrite } from '../../lib/route-writes.ts'
import type { DriveOutcome } from './actions.ts'
import { Dialog, FieldError, SubmitOrCancel } from './dialogs.tsx'
import type { DriveItem } from './model.ts'

// Sharing a file or folder: an optional password (sent once, stored hashed; never part
// of the URL), an optional last day, and whether visitors may download. The answer's URL is shown
// with a copy button; the list of links (links view of the drive) shows views, state and revoke.

/** Copies to the clipboard; where the API is refused, the text is selected for the person to copy. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useTranslation(['files'])
  const [copied, setCopied] = useState(false)
  return (
    <>
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={() => {
          void navigator.clipboard
            .writeText(text)
            .then(() => setCopied(true))
            .catch(() => setCopied(false))
        }}
      >
        {label}
      </button>
      <span role="status" className="hint">
        {copied ? t('files:share.copied') : ''}
      </span>
    </>
  )
}

/** The end of the chosen day in the person's own time zone. */
function endOfDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number)
  return new Date(year!, month! - 1, date!, 23, 59, 59).toISOString()
}

function today(): string {
  const now = new Date()
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`
}

export function ShareDialog({ item, onClose }: { item: DriveItem; onClose: () => void }) {
  const { t } = useTranslation(['files', 'common'])
  const failureText = useFailureText()
  const id = useId()
  const [usePassword, setUsePassword] = useState(false)
  const [password, setPassword] = useState('')
  const [expires, setExpires] = useState('')
  const [allowDownload, setAllowDownload] = useState(true)
  const [error, setError] = useState<string | null>(null)
  const [url, setUrl] = useState<string | null>(null)
  const urlField = useRef<HTMLInputElement>(null)
  const write = useRouteWrite<DriveOutcome>((outcome) => {
    if (outcome.intent !== 'share') return
    if (outcome.failure || !outcome.url) return setError(failureText(outcome.failure ?? { status: 500 }))
    setUrl(outcome.url)
    requestAnimationFrame(() => urlField.current?.select())
  })

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    void write.submit({
      intent: 'share',
      id: item.id,
      name: item.name,
      ...(allowDownload ? { allowDownload: 'on' } : {}),
      ...(usePassword ? { password } : {}),
      ...(expires ? { expiresAt: endOfDay(expires) } : {}),
    })
  }

  return (
    <Dialog title={t('files:share.title', { name: item.name })} onClose={onClose} testId="share-dialog">
      {url ? (
        <div className="drive-form">
          <p role="status">{t('files:share.created')}</p>
          <div className="field">
            <label htmlFor={`${id}-url`}>{t('files:share.url')}</label>
            <input ref={urlField} id={`${id}-url`} readOnly value={url} data-testid="share-url" onFocus={(event) => event.currentTarget.select()} />
          </div>
          <div className="actions">
            <CopyButton text={url} label={t('files:share.copy')} />
            <button type="button" className="button" onClick={onClose}>
              {t('files:actions.done')}
            </button>
          </div>
        </div>
      ) : (
        <form className="drive-form" onSubmit={submit}>
          <div className="field field-check">
            <input id={`${id}-protect`} type="checkbox" checked={usePassword} onChange={(event) => setUsePassword(event.target.checked)} />
            <label htmlFor={`${id}-protect`}>{t('files:share.protect')}</label>
          </div>
          {usePassword ? (
            <div className="field">
              <label htmlFor={`${id}-password`}>{t('files:share.password')}</label>
              <input id={`${id}-password`} type="password" autoComplete="new-password" required minLength={4} value={password} onChange={(event) => setPassword(event.target.value)} />
            </div>
          ) : null}
          <div className="field">
            <label htmlFor={`${id}-expires`}>{t('files:share.expires')}</label>
            <input id={`${id}-expires`} type="date" min={today()} value={expires} aria-describedby={`${id}-expires-hint`} onChange={(event) => setExpires(event.target.value)} />
            <p className="hint" id={`${id}-expires-hint`}>
              {t('files:share.expiresHint')}
            </p>
          </div>
          <div className="field field-check">
            <input id={`${id}-download`} type="checkbox" checked={allowDownload} onChange={(event) => setAllowDownload(event.target.checked)} />
            <label htmlFor={`${id}-download`}>{t('files:share.allowDownload')}</label>
          </div>
          <FieldError error={error} />
          <SubmitOrCancel busy={write.busy} submitLabel={t('files:share.create')} onCancel={onClose} />
        </form>
      )}
    </Dialog>
  )
}
