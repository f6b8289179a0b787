import { useState, type ChangeEvent, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { useRevalidator } from 'react-router'
import { MAX_SCREENSHOTS, SCREENSHOT_ALT_MAX } from '../../../shared/catalogue/media.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiSend, errorMessage, type ApiResult } from '../../lib/api.ts'
import type { ErrorBody } from '../../../shared/types.ts'

// A program's logo and screenshots in the console: the API's media routes
// (docs/API.md "Logos and screenshots"). The file goes as the request's body as it is; the API
// checks, sanitises and re-encodes it and says what was wrong.

/**
 * A file sent as the request's body, its bytes as they are (a program's logo and
 * screenshots), with the anti-forgery header like every write. A network failure is status 0.
 */
async function apiUpload<T>(method: 'POST' | 'PUT', path: string, file: Blob): Promise<ApiResult<T>> {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers: { accept: 'application/json', 'accept-language': document.documentElement.lang || 'en', 'content-type': file.type || 'application/octet-stream', rid: 'anti-csrf' },
      credentials: 'same-origin',
      body: file,
    })
  } catch {
    return { ok: false, status: 0, body: null }
  }
  const type = response.headers.get('content-type') ?? ''
  const parsed = type.includes('application/json') ? ((await response.json()) as T | ErrorBody) : null
  return { ok: response.ok, status: response.status, body: parsed }
}

export interface EditorScreenshot {
  id: string
  position: number
  width: number
  height: number
  alt: Record<string, string>
  srcset: Array<{ url: string; width: number }>
}

export interface ProgramMedia {
  logo: { contentType: string; url: string } | null
  screenshots: EditorScreenshot[]
}

export function ProgramMediaSection({ programId, media }: { programId: string; media: ProgramMedia }) {
  const { t } = useTranslation(['operator', 'common'])
  const revalidator = useRevalidator()
  const [busy, setBusy] = useState(false)
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const [alt, setAlt] = useState('')
  const base = `/api/operator/programs/${encodeURIComponent(programId)}`

  const run = async (action: () => Promise<ApiResult<unknown>>, done: string) => {
    setBusy(true)
    setStatus(null)
    const result = await action()
    if (result.ok) await revalidator.revalidate()
    setBusy(false)
    setStatus(
      result.ok
        ? { kind: 'success', text: done }
        : { kind: 'error', text: result.status === 0 ? t('programs.errors.network') : (errorMessage(result) ?? t('common:errors.occuredSomeError')) },
    )
    return result.ok
  }

  const uploadLogo = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget
    const file = input.files?.[0]
    if (!file) return
    await run(() => apiUpload('PUT', `${base}/logo`, file), t('programs.media.logoSaved'))
    input.value = ''
  }

  const addScreenshot = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const file = (form.elements.namedItem('screenshot') as HTMLInputElement | null)?.files?.[0]
    if (!file) return setStatus({ kind: 'error', text: t('programs.media.chooseFile') })
    const query = alt.trim() ? `?${new URLSearchParams({ alt: alt.trim() }).toString()}` : ''
    if (await run(() => apiUpload('POST', `${base}/screenshots${query}`, file), t('programs.media.screenshotAdded'))) {
      form.reset()
      setAlt('')
    }
  }

  const full = media.screenshots.length >= MAX_SCREENSHOTS
  return (
    <section className="operator-media" aria-labelledby="program-media-title">
      <h2 id="program-media-title">{t('programs.media.title')}</h2>
      {status ? (
        <Notice kind={status.kind} testId="media-status">
          {status.text}
        </Notice>
      ) : null}
      <div className="operator-media-logo">
        <img src={media.logo?.url ?? `/logos/${encodeURIComponent(programId)}.svg`} alt="" width={64} height={64} />
        <div>
          <p>{media.logo ? t('programs.media.logoUploaded') : t('programs.media.logoGenerated')}</p>
          <div className="field">
            <label htmlFor="program-logo-file">{t('programs.media.logoUpload')}</label>
            <input id="program-logo-file" type="file" accept="image/svg+xml,image/png,image/webp" onChange={(event) => void uploadLogo(event)} disabled={busy} aria-describedby="program-logo-hint" />
            <p id="program-logo-hint" className="hint">
              {t('programs.media.logoHint')}
            </p>
          </div>
          {media.logo ? (
            <button type="button" className="button button-secondary button-small" disabled={busy} onClick={() => void run(() => apiSend('DELETE', `${base}/logo`), t('programs.media.logoRemoved'))}>
              {t('programs.media.logoRemove')}
            </button>
          ) : null}
        </div>
      </div>

      <h3>{t('programs.media.screenshots', { count: media.screenshots.length, max: MAX_SCREENSHOTS })}</h3>
      {media.screenshots.length === 0 ? <p className="hint">{t('programs.media.none')}</p> : null}
      <ol className="operator-shots">
        {media.screenshots.map((shot, index) => {
          const description = shot.alt.en ?? ''
          const label = t('programs.media.screenshot', { number: index + 1 })
          return (
            <li key={shot.id} className="operator-shot">
              <img
                src={shot.srcset[0]?.url}
                srcSet={shot.srcset.map((file) => `${file.url} ${file.width}w`).join(', ')}
                sizes="14rem"
                width={shot.width}
                height={shot.height}
                alt={description}
                loading="lazy"
              />
              <p>
                <strong>{label}</strong>
                {description ? ` — ${description}` : ''}
              </p>
              <div className="operator-actions">
                <button
                  type="button"
                  className="button button-secondary button-small"
                  disabled={busy || index === 0}
                  aria-label={t('programs.media.earlierNamed', { name: label })}
                  onClick={() => void run(() => apiSend('PATCH', `${base}/screenshots/${encodeURIComponent(shot.id)}`, { position: index - 1 }), t('programs.media.moved'))}
                >
                  {t('programs.media.earlier')}
                </button>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  disabled={busy || index === media.screenshots.length - 1}
                  aria-label={t('programs.media.laterNamed', { name: label })}
                  onClick={() => void run(() => apiSend('PATCH', `${base}/screenshots/${encodeURIComponent(shot.id)}`, { position: index + 1 }), t('programs.media.moved'))}
                >
                  {t('programs.media.later')}
                </button>
                <button
                  type="button"
                  className="button button-secondary button-small"
                  disabled={busy}
                  aria-label={t('programs.media.removeNamed', { name: label })}
                  onClick={() => void run(() => apiSend('DELETE', `${base}/screenshots/${encodeURIComponent(shot.id)}`), t('programs.media.removed'))}
                >
                  {t('programs.media.remove')}
                </button>
              </div>
            </li>
          )
        })}
      </ol>
      {full ? (
        <p className="hint">{t('programs.media.full', { max: MAX_SCREENSHOTS })}</p>
      ) : (
        <form className="operator-media-add" onSubmit={(event) => void addScreenshot(event)}>
          <div className="field">
            <label htmlFor="program-screenshot-file">{t('programs.media.screenshotFile')}</label>
            <input id="program-screenshot-file" name="screenshot" type="file" accept="image/png,image/jpeg,image/webp" disabled={busy} aria-describedby="program-screenshot-hint" />
            <p id="program-screenshot-hint" className="hint">
              {t('programs.media.screenshotHint')}
            </p>
          </div>
          <div className="field">
            <label htmlFor="program-screenshot-alt">{t('programs.media.alt')}</label>
            <input id="program-screenshot-alt" type="text" value={alt} maxLength={SCREENSHOT_ALT_MAX} onChange={(event) => setAlt(event.target.value)} disabled={busy} />
          </div>
          <button type="submit" className="button button-small" disabled={busy}>
            {t('programs.media.add')}
          </button>
        </form>
      )}
    </section>
  )
}
