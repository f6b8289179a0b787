import { useId, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { data, Link, useLoaderData, useRevalidator, type LoaderFunctionArgs } from 'react-router'
import type { ErrorBody } from '../../../shared/types.ts'
import { viewOnlyPreviewable } from '../../../shared/files/files.ts'
import { BrandLink } from '../../components/brand-link.tsx'
import { LanguageSwitcher } from '../../components/language-switcher.tsx'
import { apiResponse, apiSend, errorMessage } from '../../lib/api.ts'
import { formatBytes, formatDate, previewKind, type DriveItem, type SharedView } from './model.ts'
import { Dialog, FieldError } from './dialogs.tsx'
import { FilePreview } from './file-preview.tsx'

// /sharing/{link}: what someone shared, for anyone holding the link — no layout, no
// session check, no version polling (spec §2). A folder is browsable inside the share only (the
// API answers nothing outside it). A password-protected link asks for the password first; the
// unlock is remembered by an httpOnly cookie the BFF sets, never by anything in the URL.

type SharedLinkData =
  | ({ kind: 'shared'; link: string } & SharedView)
  | { kind: 'password'; link: string }
  | { kind: 'gone'; link: string; reason: 'expired' | 'revoked' }
  | { kind: 'missing'; link: string }

const contentPath = (link: string) => `/api/sharing/${encodeURIComponent(link)}/content`

export async function loader({ params, request, context }: LoaderFunctionArgs) {
  const link = params.link ?? ''
  const folder = new URL(request.url).searchParams.get('folder')
  const query = folder ? `?folder=${encodeURIComponent(folder)}` : ''
  const response = await apiResponse(context, `/api/sharing/${encodeURIComponent(link)}${query}`, request.signal)
  const code = (response.body as Partial<ErrorBody> | null)?.code
  if (response.status === 200) return { kind: 'shared', link, ...(response.body as SharedView) } satisfies SharedLinkData
  if (response.status === 401 && code === 'SHARE_PASSWORD_REQUIRED') return { kind: 'password', link } satisfies SharedLinkData
  // The page itself answers 410 and 404, so a crawler or a script sees what a person reads.
  if (response.status === 410) return data({ kind: 'gone', link, reason: code === 'SHARE_REVOKED' ? 'revoked' : 'expired' } satisfies SharedLinkData, { status: 410 })
  if (response.status === 404) return data({ kind: 'missing', link } satisfies SharedLinkData, { status: 404 })
  throw data(response.body, { status: response.status })
}

function PasswordForm({ link }: { link: string }) {
  const { t } = useTranslation(['files', 'common'])
  const id = useId()
  const revalidator = useRevalidator()
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(null)
    const result = await apiSend('POST', `/api/sharing/${encodeURIComponent(link)}/unlock`, { password })
    setBusy(false)
    if (result.ok) {
      await revalidator.revalidate()
      return
    }
    const code = (result.body as Partial<ErrorBody> | null)?.code
    if (code === 'SHARE_PASSWORD_WRONG') setError(t('files:shared.passwordWrong'))
    else if (code === 'SHARE_TOO_MANY_ATTEMPTS') setError(t('files:shared.tooManyAttempts'))
    else setError(result.status === 0 ? t('common:errors.errorApiRequest') : (errorMessage(result) ?? t('common:errors.occuredSomeError')))
  }

  return (
    <form className="share-password" onSubmit={(event) => void submit(event)} data-testid="share-password-form">
      <div className="field">
        <label htmlFor={`${id}-password`}>{t('files:shared.password')}</label>
        <input
          id={`${id}-password`}
          type="password"
          autoComplete="off"
          required
          value={password}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(event) => setPassword(event.target.value)}
        />
        <FieldError id={`${id}-error`} error={error} />
      </div>
      <button type="submit" className="button" disabled={busy}>
        {t('files:shared.unlock')}
      </button>
    </form>
  )
}

/** What a visitor may see of a file: any type we preview when downloads are allowed; without, only up to the view-only limits. */
const shownTo = (item: DriveItem, allowDownload: boolean) => (allowDownload ? previewKind(item) !== null : viewOnlyPreviewable(item))

function SharedFile({ link, item, allowDownload }: { link: string; item: DriveItem; allowDownload: boolean }) {
  const { t, i18n } = useTranslation(['files'])
  const url = contentPath(link)
  const shown = shownTo(item, allowDownload)
  return (
    <div className="share-file">
      <p className="hint">
        {formatBytes(item.size, i18n.language)} · {formatDate(item.updatedAt, i18n.language)}
      </p>
      {shown ? <FilePreview item={item} url={`${url}?disposition=inline`} canDownload={allowDownload} /> : null}
      {allowDownload ? (
        <p className="actions">
          <a className="button" href={url} download>
            {t('files:shared.download')}
          </a>
        </p>
      ) : (
        <p className="hint">{t('files:shared.viewOnly')}</p>
      )}
    </div>
  )
}

/** A file of a shared folder, previewed in a dialog; with downloads allowed, downloadable from there too. */
function SharedPreviewDialog({ item, url, allowDownload, onClose }: { item: DriveItem; url: string; allowDownload: boolean; onClose: () => void }) {
  const { t } = useTranslation(['files'])
  return (
    <Dialog title={item.name} onClose={onClose} wide testId="preview-dialog">
      <FilePreview item={item} url={`${url}?item=${encodeURIComponent(item.id)}&disposition=inline`} canDownload={allowDownload} />
      <div className="actions">
        {allowDownload ? (
          <a className="button" href={`${url}?item=${encodeURIComponent(item.id)}`} download>
            {t('files:shared.download')}
          </a>
        ) : null}
        <button type="button" className="button button-secondary" onClick={onClose} autoFocus>
          {t('files:actions.close')}
        </button>
      </div>
    </Dialog>
  )
}

function SharedFolder({ view, link }: { view: Extract<SharedLinkData, { kind: 'shared' }>; link: string }) {
  const { t, i18n } = useTranslation(['files'])
  const items = view.items ?? []
  const path = view.folder?.path ?? []
  const base = `/sharing/${encodeURIComponent(link)}`
  const url = contentPath(link)
  const allowDownload = view.share.allowDownload
  const [previewing, setPreviewing] = useState<DriveItem | null>(null)
  return (
    <>
      {/* The path starts at the shared folder itself; at its top the heading says where one is. */}
      {path.length > 1 ? (
        <nav aria-label={t('files:breadcrumbs')} className="breadcrumbs">
          <ol>
            {path.map((crumb, index) => (
              <li key={crumb.id}>
                {index === path.length - 1 ? (
                  <span aria-current="page">{crumb.name}</span>
                ) : (
                  <Link to={index === 0 ? base : `${base}?folder=${encodeURIComponent(crumb.id)}`}>{crumb.name}</Link>
                )}
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      {view.share.allowDownload ? (
        <p className="actions">
          {/* "Download all": the whole share, also from a folder inside it. */}
          <a className="button" href={url} download data-testid="share-download-folder">
            {t('files:shared.downloadFolder')}
          </a>
        </p>
      ) : (
        <p className="hint">{items.some((item) => shownTo(item, false)) ? t('files:shared.viewOnlyPreview') : t('files:shared.viewOnly')}</p>
      )}
      {items.length === 0 ? (
        <p className="hint">{t('files:list.emptyFolder')}</p>
      ) : (
        <ul className="share-list" aria-label={t('files:list.label')}>
          {items.map((item) => (
            <li key={item.id} className="share-row">
              {item.type === 'folder' ? (
                <Link className="file-name file-name-folder" to={`${base}?folder=${encodeURIComponent(item.id)}`}>
                  {item.name}
                </Link>
              ) : allowDownload ? (
                <a className="file-name file-name-file" href={`${url}?item=${encodeURIComponent(item.id)}`} download>
                  {item.name}
                </a>
              ) : shownTo(item, false) ? (
                <button type="button" className="link-button file-name file-name-file" onClick={() => setPreviewing(item)}>
                  {item.name}
                </button>
              ) : (
                <span className="file-name file-name-file">{item.name}</span>
              )}
              <span className="hint">
                {formatBytes(item.size, i18n.language)} · {formatDate(item.updatedAt, i18n.language, false)}
                {allowDownload && shownTo(item, true) ? (
                  <>
                    {' · '}
                    <button type="button" className="link-button" onClick={() => setPreviewing(item)} aria-label={t('files:preview.named', { name: item.name })}>
                      {t('files:actions.preview')}
                    </button>
                  </>
                ) : null}
              </span>
            </li>
          ))}
        </ul>
      )}
      {previewing ? <SharedPreviewDialog item={previewing} url={url} allowDownload={allowDownload} onClose={() => setPreviewing(null)} /> : null}
    </>
  )
}

export function Component() {
  const view = useLoaderData() as SharedLinkData
  const { t, i18n } = useTranslation(['files', 'common'])
  let title: string
  let body: React.ReactNode
  switch (view.kind) {
    case 'password':
      title = t('files:shared.passwordTitle')
      body = (
        <>
          <p>{t('files:shared.passwordLead')}</p>
          <PasswordForm link={view.link} />
        </>
      )
      break
    case 'gone':
      title = t(`files:shared.${view.reason}.title`)
      body = <p data-testid="share-gone">{t(`files:shared.${view.reason}.text`)}</p>
      break
    case 'missing':
      title = t('files:shared.missing.title')
      body = <p data-testid="share-missing">{t('files:shared.missing.text')}</p>
      break
    case 'shared':
      title = view.share.name
      body = (
        <>
          <p className="hint">
            {view.share.type === 'folder' ? t('files:shared.folderLead') : t('files:shared.fileLead')}
            {view.share.expiresAt ? ` ${t('files:shared.expires', { date: formatDate(view.share.expiresAt, i18n.language) })}` : ''}
          </p>
          {view.share.type === 'folder' ? (
            <SharedFolder view={view} link={view.link} />
          ) : view.item ? (
            <SharedFile link={view.link} item={view.item} allowDownload={view.share.allowDownload} />
          ) : null}
        </>
      )
      break
  }
  return (
    <div className="share-shell">
      <header className="auth-header share-header">
        <BrandLink />
        <LanguageSwitcher />
      </header>
      <main id="content" className="card share-card">
        <h1>{title}</h1>
        {body}
      </main>
      {/* Where the link comes from, and the way into it. */}
      <aside className="share-about" aria-label={t('files:shared.aboutLabel')}>
        <p>{t('files:shared.about')}</p>
        <p className="actions">
          <Link to="/library">{t('files:shared.browseCatalogue')}</Link>
          <Link to="/welcome">{t('files:intro.signUp')}</Link>
        </p>
      </aside>
    </div>
  )
}
