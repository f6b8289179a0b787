import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { formatBytes } from './model.ts'
import { pickedFiles, type UploadRow, type useUploads } from './uploads.ts'

// The uploads of this page, each with its progress, pause/resume and cancel, and the uploads an
// earlier page left unfinished: a browser cannot reopen a file on its own, so the person picks
// the same file again and the upload continues where the server's copy ends.

const KNOWN_CODES: Record<string, 'quota' | 'tooLarge'> = { FILES_QUOTA_EXCEEDED: 'quota', FILES_TOO_LARGE: 'tooLarge' }

function UploadLine({ row, uploads }: { row: UploadRow; uploads: ReturnType<typeof useUploads> }) {
  const { t, i18n } = useTranslation(['files', 'common'])
  const percent = row.size > 0 ? Math.floor((row.sent / row.size) * 100) : row.status === 'done' ? 100 : 0
  const label = row.relativePath ?? row.name
  const errorText = () => {
    const known = row.error?.code ? KNOWN_CODES[row.error.code] : undefined
    if (known) return t(`files:upload.errors.${known}`)
    return row.error?.message ?? t('common:errors.errorApiRequest')
  }
  return (
    <li className={`upload upload-${row.status}`} data-testid="upload-row" data-status={row.status}>
      <div className="upload-head">
        <span className="upload-name">{label}</span>
        <span className="hint">
          {t(`files:upload.status.${row.status}`, { percent })} · {formatBytes(row.sent, i18n.language)} / {formatBytes(row.size, i18n.language)}
          {row.resumed ? ` · ${t('files:upload.resumed')}` : ''}
        </span>
      </div>
      <progress max={100} value={percent} aria-label={t('files:upload.progress', { name: label, percent })} />
      {row.status === 'error' ? (
        <p className="field-error" role="alert">
          {errorText()}
        </p>
      ) : null}
      <div className="upload-actions">
        {row.status === 'uploading' || row.status === 'waiting' ? (
          <button type="button" className="link-button" onClick={() => uploads.pause(row.key)} aria-label={t('files:upload.pauseNamed', { name: label })}>
            {t('files:upload.pause')}
          </button>
        ) : null}
        {row.status === 'paused' || (row.status === 'error' && !row.error?.code) ? (
          <button type="button" className="link-button" onClick={() => uploads.resume(row.key)} aria-label={t('files:upload.resumeNamed', { name: label })}>
            {t('files:upload.resume')}
          </button>
        ) : null}
        {row.status !== 'done' ? (
          <button type="button" className="link-button" onClick={() => uploads.cancel(row.key)} aria-label={t('files:upload.cancelNamed', { name: label })}>
            {t('files:upload.cancel')}
          </button>
        ) : null}
      </div>
    </li>
  )
}

export function UploadPanel({ uploads }: { uploads: ReturnType<typeof useUploads> }) {
  const { t, i18n } = useTranslation(['files'])
  const id = useId()
  const { rows, unfinished } = uploads
  if (rows.length === 0 && unfinished.length === 0) return null
  const done = rows.filter((row) => row.status === 'done').length
  return (
    <section className="upload-panel" aria-labelledby={`${id}-title`} data-testid="upload-panel">
      {rows.length > 0 ? (
        <>
          <div className="section-heading">
            <h2 id={`${id}-title`}>{t('files:upload.title', { done, total: rows.length })}</h2>
            {done > 0 ? (
              <button type="button" className="link-button" onClick={uploads.clearFinished}>
                {t('files:upload.clear')}
              </button>
            ) : null}
          </div>
          <ul className="upload-list">
            {rows.map((row) => (
              <UploadLine key={row.key} row={row} uploads={uploads} />
            ))}
          </ul>
        </>
      ) : (
        <h2 id={`${id}-title`}>{t('files:upload.unfinishedTitle')}</h2>
      )}
      {unfinished.length > 0 ? (
        <div className="unfinished" data-testid="unfinished-uploads">
          <p>{t('files:upload.unfinishedLead')}</p>
          <ul className="upload-list">
            {unfinished.map((entry) => (
              <li key={entry.urlStorageKey} className="upload unfinished-row">
                <span className="upload-name">{entry.metadata.relativePath ?? entry.metadata.filename}</span>
                <span className="hint">
                  {entry.size !== null ? formatBytes(entry.size, i18n.language) : ''} · {new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(entry.creationTime))}
                </span>
                <div className="upload-actions">
                  <input
                    id={`${id}-${entry.urlStorageKey}`}
                    className="visually-hidden"
                    type="file"
                    onChange={(event) => {
                      uploads.add(pickedFiles(event.currentTarget.files), null)
                      event.currentTarget.value = ''
                    }}
                    data-testid="continue-upload-input"
                  />
                  <label className="link-button" htmlFor={`${id}-${entry.urlStorageKey}`}>
                    {t('files:upload.pickAgain')}
                  </label>
                  <button type="button" className="link-button" onClick={() => void uploads.discard(entry)}>
                    {t('files:upload.discard')}
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  )
}
