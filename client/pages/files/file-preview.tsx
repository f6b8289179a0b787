import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { SHARE_PREVIEW_MAX_BYTES } from '../../../shared/constants.ts'
import { formatBytes, previewKind, type DriveItem } from './model.ts'

// What a file looks like without downloading it, for the drive's owner and a share link's visitor
// alike: an image as an <img>, plain text as text (React writes it as text,
// never markup), a PDF opened in the browser's own viewer in a new tab — every BFF answer forbids
// framing (`frame-ancestors 'none'`), so nothing is embedded. `url` serves the bytes inline, with
// `nosniff` and a sandbox CSP (server/api/files/downloads.ts).

/** Text is shown up to this many bytes: the view-only limit, so a share and the drive agree. */
const TEXT_SHOWN_BYTES = SHARE_PREVIEW_MAX_BYTES.text

function TextPreview({ url, size }: { url: string; size: number }) {
  const { t, i18n } = useTranslation(['files'])
  const [text, setText] = useState<string | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    const controller = new AbortController()
    // A plain fetch (no SDK): a share link's 401 is not a session to refresh (decision 016).
    fetch(url, { credentials: 'same-origin', signal: controller.signal, headers: size > TEXT_SHOWN_BYTES ? { range: `bytes=0-${TEXT_SHOWN_BYTES - 1}` } : {} })
      .then(async (response) => {
        if (!response.ok) throw new Error(String(response.status))
        setText(new TextDecoder('utf-8').decode(await response.arrayBuffer()))
      })
      .catch(() => {
        if (!controller.signal.aborted) setFailed(true)
      })
    return () => controller.abort()
  }, [url, size])
  if (failed) return <p className="hint">{t('files:preview.textFailed')}</p>
  if (text === null) return <p className="hint">{t('files:preview.loading')}</p>
  return (
    <>
      <pre className="file-preview-text" tabIndex={0} data-testid="text-preview">
        {text}
      </pre>
      {size > TEXT_SHOWN_BYTES ? <p className="hint">{t('files:preview.textTruncated', { size: formatBytes(TEXT_SHOWN_BYTES, i18n.language) })}</p> : null}
    </>
  )
}

/** `canDownload`: whether the viewer may download the file too (a view-only share's visitor may not). */
export function FilePreview({ item, url, canDownload }: { item: DriveItem; url: string; canDownload: boolean }) {
  const { t } = useTranslation(['files'])
  const kind = previewKind(item)
  if (kind === 'image') return <img className="file-preview-image" src={url} alt={t('files:preview.imageAlt', { name: item.name })} />
  if (kind === 'text') return <TextPreview url={url} size={item.size} />
  if (kind === 'pdf')
    return (
      <>
        <p>{canDownload ? t('files:preview.pdfNote') : t('files:preview.pdfNoteViewOnly')}</p>
        <p className="file-preview-open">
          <a className="button button-secondary" href={url} target="_blank" rel="noopener noreferrer">
            {t('files:preview.openPdf')}
          </a>
        </p>
      </>
    )
  return null
}
