import { useEffect, useId, useMemo, useRef, useState, type DragEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useNavigation, useRevalidator, type LoaderFunctionArgs } from 'react-router'
import { apiGet, apiResponse } from '../../lib/api.ts'
import { showToast } from '../../lib/notices/toasts.ts'
import { useFailureText, useRouteWrite } from '../../lib/route-writes.ts'
import type { DriveOutcome, ItemRef } from './actions.ts'
import { refusalReason, reportBatch } from './batch.ts'
import { ConfirmDialog, Dialog, MenuButton, NameDialog } from './dialogs.tsx'
import { FilePreview } from './file-preview.tsx'
import { formatBytes, formatDate, previewKind, type DriveItem, type FolderListing, type ShareSummary, type TrashEntry, type Usage } from './model.ts'
import { CopyButton, ShareDialog } from './share-dialog.tsx'
import { UploadPanel } from './upload-panel.tsx'
import { droppedFiles, pickedFiles, useUploads, type PickedFile } from './uploads.ts'

// /@/files: the user's drive. Three views of one page: the folders and files
// (?folder=<id>), the trash (?view=trash) and the share links (?view=links). Used space against
// the quota heads every view. Sorting and the name filter work on the folder in view, in the
// browser: the API lists a folder whole.
// Every write goes through the route's action (actions.ts); each view says what it did.
// One file over 500 lines: the three views share one state (the folder in view, the selection,
// the open dialog, the uploads under way) and its handlers; what stands alone is beside it
// (actions.ts, dialogs.tsx, batch.ts, uploads.ts and upload-panel.tsx, share-dialog.tsx, file-preview.tsx, model.ts).

export { action } from './actions.ts'

type DriveData =
  | { view: 'files'; listing: FolderListing }
  | { view: 'trash'; items: TrashEntry[]; usage: Usage }
  | { view: 'links'; shares: ShareSummary[] | null; usage: Usage }

export async function loader({ request, context }: LoaderFunctionArgs): Promise<DriveData> {
  const params = new URL(request.url).searchParams
  const view = params.get('view')
  if (view === 'trash') {
    const trash = await apiGet<{ items: TrashEntry[]; usage: Usage }>(context, '/api/files/trash', request.signal)
    return { view: 'trash', items: trash.items, usage: trash.usage }
  }
  if (view === 'links') {
    const [shares, root] = await Promise.all([apiResponse(context, '/api/files/shares', request.signal), apiGet<FolderListing>(context, '/api/files', request.signal)])
    // The links failing to load leaves the rest of the drive usable.
    return { view: 'links', shares: shares.status === 200 ? (shares.body as { items: ShareSummary[] }).items : null, usage: root.usage }
  }
  const folder = params.get('folder')
  const listing = await apiGet<FolderListing>(context, folder ? `/api/files?folder=${encodeURIComponent(folder)}` : '/api/files', request.signal)
  return { view: 'files', listing }
}

const folderLink = (id: string | null) => (id ? `/@/files?folder=${encodeURIComponent(id)}` : '/@/files')
const contentUrl = (item: Pick<DriveItem, 'id'>, inline = false) => `/api/files/${encodeURIComponent(item.id)}/content${inline ? '?disposition=inline' : ''}`
/** "Download selected": the API zips up to this many items at once. */
const ARCHIVE_MAX_ITEMS = 100
const archiveUrl = (items: Array<Pick<DriveItem, 'id'>>) => `/api/files/archive?items=${items.map((item) => encodeURIComponent(item.id)).join(',')}`

/** The fields that name items for the drive's action. */
function itemFields(items: ItemRef[]): { id: string[]; name: string[] } {
  return { id: items.map((item) => item.id), name: items.map((item) => item.name) }
}

function UsageMeter({ usage }: { usage: Usage }) {
  const { t, i18n } = useTranslation(['files'])
  const id = useId()
  const fraction = usage.quota > 0 ? Math.min(1, usage.used / usage.quota) : 0
  return (
    <div className={`usage${fraction > 0.9 ? ' usage-full' : ''}`} data-testid="usage">
      <span id={id}>{t('files:usage', { used: formatBytes(usage.used, i18n.language), quota: formatBytes(usage.quota, i18n.language) })}</span>
      <progress max={1} value={fraction} aria-labelledby={id} />
    </div>
  )
}

function ViewTabs({ current }: { current: DriveData['view'] }) {
  const { t } = useTranslation(['files'])
  const tabs = [
    { view: 'files', to: '/@/files', label: t('files:views.files') },
    { view: 'links', to: '/@/files?view=links', label: t('files:views.links') },
    { view: 'trash', to: '/@/files?view=trash', label: t('files:views.trash') },
  ] as const
  return (
    <nav className="tabs" aria-label={t('files:views.label')}>
      {tabs.map((tab) => (
        <Link key={tab.view} to={tab.to} className={`tab${tab.view === current ? ' tab-active' : ''}`} aria-current={tab.view === current ? 'page' : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  )
}

type Sort = 'name-asc' | 'name-desc' | 'size-desc' | 'size-asc' | 'date-desc' | 'date-asc'
const SORTS: Sort[] = ['name-asc', 'name-desc', 'size-desc', 'size-asc', 'date-desc', 'date-asc']

function sortItems(items: DriveItem[], sort: Sort, locale: string): DriveItem[] {
  const collator = new Intl.Collator(locale, { numeric: true, sensitivity: 'base' })
  const [key, order] = sort.split('-') as ['name' | 'size' | 'date', 'asc' | 'desc']
  const direction = order === 'asc' ? 1 : -1
  return [...items].sort((a, b) => {
    // Folders stay first, as in every file manager.
    if (a.type !== b.type) return a.type === 'folder' ? -1 : 1
    const by = key === 'name' ? collator.compare(a.name, b.name) : key === 'size' ? a.size - b.size : Date.parse(a.updatedAt) - Date.parse(b.updatedAt)
    return by * direction || collator.compare(a.name, b.name)
  })
}

/** Picks a destination folder, browsing from the folder in view; the moved folders are not offered. */
function MoveDialog({ items, startFolder, busy, onMove, onClose }: { items: DriveItem[]; startFolder: string | null; busy: boolean; onMove: (folderId: string | null) => void; onClose: () => void }) {
  const { t } = useTranslation(['files', 'common'])
  const [folderId, setFolderId] = useState<string | null>(startFolder)
  const [listing, setListing] = useState<FolderListing | null>(null)
  const moving = new Set(items.map((item) => item.id))

  useEffect(() => {
    let live = true
    void apiGet<FolderListing>(undefined, folderLink(folderId).replace('/@/files', '/api/files'))
      .then((answer) => live && setListing(answer))
      .catch(() => live && setListing(null))
    return () => {
      live = false
    }
  }, [folderId])

  const folders = (listing?.items ?? []).filter((item) => item.type === 'folder' && !moving.has(item.id))
  const here = listing?.folder
  return (
    <Dialog title={t('files:move.title', { count: items.length })} onClose={onClose} testId="move-dialog">
      <p className="hint" aria-live="polite">
        {t('files:move.current', { folder: here?.id ? here.name : t('files:root') })}
      </p>
      <ul className="move-list">
        {here?.id ? (
          <li>
            <button type="button" className="link-button" onClick={() => setFolderId(here.parentId)}>
              {t('files:move.up')}
            </button>
          </li>
        ) : null}
        {folders.map((folder) => (
          <li key={folder.id}>
            <button type="button" className="link-button file-name-folder" onClick={() => setFolderId(folder.id)}>
              {folder.name}
            </button>
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="button" disabled={busy || !listing} onClick={() => onMove(folderId)}>
          {t('files:move.here')}
        </button>
        <button type="button" className="button button-secondary" onClick={onClose}>
          {t('files:actions.cancel')}
        </button>
      </div>
    </Dialog>
  )
}

/** The file as the pages show it (file-preview.tsx), from the drive's own inline content URL. */
function PreviewDialog({ item, onClose }: { item: DriveItem; onClose: () => void }) {
  const { t } = useTranslation(['files'])
  return (
    <Dialog title={item.name} onClose={onClose} wide testId="preview-dialog">
      <FilePreview item={item} url={contentUrl(item, true)} canDownload />
      <div className="actions">
        <a className="button" href={contentUrl(item)} download>
          {t('files:actions.download')}
        </a>
        <button type="button" className="button button-secondary" onClick={onClose} autoFocus>
          {t('files:actions.close')}
        </button>
      </div>
    </Dialog>
  )
}

/** Downloads through a link, so the browser's own download handling (and its progress) applies. */
function download(url: string): void {
  const anchor = document.createElement('a')
  anchor.href = url
  anchor.download = ''
  document.body.append(anchor)
  anchor.click()
  anchor.remove()
}

type Modal =
  | { kind: 'newFolder' }
  | { kind: 'rename'; item: DriveItem }
  | { kind: 'move'; items: DriveItem[] }
  | { kind: 'delete'; items: DriveItem[] }
  | { kind: 'share'; item: DriveItem }
  | { kind: 'preview'; item: DriveItem }

function FilesView({ listing }: { listing: FolderListing }) {
  const { t, i18n } = useTranslation(['files', 'common'])
  const id = useId()
  const revalidator = useRevalidator()
  const { folder } = listing
  const uploads = useUploads(() => void revalidator.revalidate())
  const [nameFailure, setNameFailure] = useState<string | null>(null)
  const write = useRouteWrite<DriveOutcome>((outcome) => {
    switch (outcome.intent) {
      case 'newFolder':
      case 'rename':
        if (outcome.failure) return setNameFailure(refusalReason(t, outcome.failure, outcome.name))
        setModal(null)
        if (outcome.intent === 'newFolder') showToast({ kind: 'success', title: t('files:folder.created', { name: outcome.name }) })
        return
      case 'move':
      case 'delete':
        setModal(null)
        // What was refused stays selected, to try again or look at.
        setSelected(new Set(outcome.refused.map(({ item }) => item.id)))
        if (outcome.intent === 'move') reportBatch(t, outcome, { done: (count) => t('files:move.done', { count }), refused: (count) => t('files:move.refused', { count }) })
        else reportBatch(t, outcome, { done: (count) => t('files:trash.moved', { count }), refused: (count) => t('files:trash.refused', { count }) })
        return
    }
  })
  const [sort, setSort] = useState<Sort>('name-asc')
  const [query, setQuery] = useState('')
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [modal, setModal] = useState<Modal | null>(null)
  const [dragging, setDragging] = useState(false)
  const dragDepth = useRef(0)

  // Another folder: a fresh selection and filter.
  useEffect(() => {
    setSelected(new Set())
    setQuery('')
  }, [folder.id])

  const visible = useMemo(() => {
    const needle = query.trim().normalize('NFC').toLocaleLowerCase(i18n.language)
    const shown = needle ? listing.items.filter((item) => item.name.toLocaleLowerCase(i18n.language).includes(needle)) : listing.items
    return sortItems(shown, sort, i18n.language)
  }, [listing.items, query, sort, i18n.language])

  const chosen = visible.filter((item) => selected.has(item.id))
  const allChosen = visible.length > 0 && chosen.length === visible.length
  const toggle = (item: DriveItem, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current)
      if (on) next.add(item.id)
      else next.delete(item.id)
      return next
    })

  const startUploads = (files: PickedFile[]) => {
    const count = uploads.add(files, folder.id)
    if (count < files.length) showToast({ kind: 'info', title: t('files:upload.ignored', { count: files.length - count }) })
  }

  const onDrop = (event: DragEvent) => {
    event.preventDefault()
    dragDepth.current = 0
    setDragging(false)
    void droppedFiles(event.dataTransfer).then(startUploads)
  }

  const openModal = (next: Modal) => {
    setNameFailure(null)
    setModal(next)
  }
  const createFolder = (name: string) => {
    setNameFailure(null)
    void write.submit({ intent: 'newFolder', parentId: folder.id ?? '', newName: name })
  }
  const rename = (item: DriveItem) => (name: string) => {
    setNameFailure(null)
    void write.submit({ intent: 'rename', ...itemFields([item]), newName: name })
  }

  const downloadItems = (items: DriveItem[]) => {
    // One item: its bytes (a folder: its zip). Several: one zip of them all, files.zip.
    if (items.length === 1) download(contentUrl(items[0]!))
    else if (items.length > ARCHIVE_MAX_ITEMS) showToast({ kind: 'info', title: t('files:selection.tooManyToDownload', { max: ARCHIVE_MAX_ITEMS }) })
    else if (items.length > 1) download(archiveUrl(items))
  }

  const menuFor = (item: DriveItem) => [
    ...(previewKind(item) ? [{ label: t('files:actions.preview'), onSelect: () => openModal({ kind: 'preview', item }) }] : []),
    { label: t('files:actions.download'), onSelect: () => downloadItems([item]) },
    { label: t('files:actions.share'), onSelect: () => openModal({ kind: 'share', item }) },
    { label: t('files:actions.rename'), onSelect: () => openModal({ kind: 'rename', item }) },
    { label: t('files:actions.move'), onSelect: () => openModal({ kind: 'move', items: [item] }) },
    { label: t('files:actions.delete'), onSelect: () => openModal({ kind: 'delete', items: [item] }), danger: true },
  ]

  const [sortKey, sortOrder] = sort.split('-') as ['name' | 'size' | 'date', 'asc' | 'desc']
  const ariaSort = (key: typeof sortKey) => (sortKey === key ? (sortOrder === 'asc' ? 'ascending' : 'descending') : undefined)

  return (
    <>
      {/* At the top of the drive the page's heading already says where one is. */}
      <nav aria-label={t('files:breadcrumbs')} className="breadcrumbs" hidden={!folder.id}>
        <ol>
          <li>
            <Link to="/@/files">{t('files:root')}</Link>
          </li>
          {folder.path.map((crumb, index) =>
            index === folder.path.length - 1 ? (
              <li key={crumb.id}>
                <span aria-current="page">{crumb.name}</span>
              </li>
            ) : (
              <li key={crumb.id}>
                <Link to={folderLink(crumb.id)}>{crumb.name}</Link>
              </li>
            ),
          )}
        </ol>
      </nav>

      <div className="drive-toolbar">
        <div className="drive-toolbar-actions">
          <button type="button" className="button button-small" onClick={() => openModal({ kind: 'newFolder' })}>
            {t('files:actions.newFolder')}
          </button>
          <input
            id={`${id}-files`}
            className="visually-hidden"
            type="file"
            multiple
            onChange={(event) => {
              startUploads(pickedFiles(event.currentTarget.files))
              event.currentTarget.value = ''
            }}
            data-testid="upload-files-input"
          />
          <label className="button button-small button-secondary" htmlFor={`${id}-files`}>
            {t('files:actions.uploadFiles')}
          </label>
          <input
            id={`${id}-folder`}
            className="visually-hidden"
            type="file"
            // @ts-expect-error -- a non-standard attribute every current browser supports; React passes it through.
            webkitdirectory=""
            onChange={(event) => {
              startUploads(pickedFiles(event.currentTarget.files))
              event.currentTarget.value = ''
            }}
            data-testid="upload-folder-input"
          />
          <label className="button button-small button-secondary" htmlFor={`${id}-folder`}>
            {t('files:actions.uploadFolder')}
          </label>
        </div>
        <div className="drive-toolbar-filters">
          <div className="field field-search">
            <label htmlFor={`${id}-search`}>{t('files:search.label')}</label>
            <input id={`${id}-search`} type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-sort`}>{t('files:sort.label')}</label>
            <select id={`${id}-sort`} value={sort} onChange={(event) => setSort(event.target.value as Sort)}>
              {SORTS.map((value) => (
                <option key={value} value={value}>
                  {t(`files:sort.${value}`)}
                </option>
              ))}
            </select>
          </div>
        </div>
      </div>

      {chosen.length > 0 ? (
        <div className="selection-bar" role="region" aria-label={t('files:selection.label')} data-testid="selection-bar">
          <span>{t('files:selection.count', { count: chosen.length })}</span>
          <button type="button" className="button button-small button-secondary" onClick={() => downloadItems(chosen)}>
            {t('files:actions.download')}
          </button>
          <button type="button" className="button button-small button-secondary" onClick={() => openModal({ kind: 'move', items: chosen })}>
            {t('files:actions.move')}
          </button>
          <button type="button" className="button button-small button-danger" onClick={() => openModal({ kind: 'delete', items: chosen })}>
            {t('files:actions.delete')}
          </button>
          <button type="button" className="link-button" onClick={() => setSelected(new Set())}>
            {t('files:selection.clear')}
          </button>
        </div>
      ) : null}

      <UploadPanel uploads={uploads} />

      <section
        className={`drive-drop${dragging ? ' drive-drop-active' : ''}`}
        aria-labelledby={`${id}-listing`}
        onDragEnter={(event) => {
          if (!event.dataTransfer.types.includes('Files')) return
          event.preventDefault()
          dragDepth.current += 1
          setDragging(true)
        }}
        onDragOver={(event) => {
          if (event.dataTransfer.types.includes('Files')) event.preventDefault()
        }}
        onDragLeave={() => {
          dragDepth.current = Math.max(0, dragDepth.current - 1)
          if (dragDepth.current === 0) setDragging(false)
        }}
        onDrop={onDrop}
        data-testid="drop-zone"
      >
        <h2 id={`${id}-listing`} className="visually-hidden">
          {folder.id ? folder.name : t('files:root')}
        </h2>
        <p className="hint drop-hint">{dragging ? t('files:upload.dropNow') : t('files:upload.dropHint')}</p>
        {visible.length === 0 ? (
          <p className="drive-empty" data-testid="drive-empty">
            {query ? t('files:search.none') : t('files:list.emptyFolder')}
          </p>
        ) : (
          <table className="drive-table">
            <caption className="visually-hidden">{t('files:list.caption')}</caption>
            <thead>
              <tr>
                <td className="col-check">
                  <input
                    type="checkbox"
                    aria-label={t('files:selection.all')}
                    checked={allChosen}
                    ref={(box) => {
                      if (box) box.indeterminate = chosen.length > 0 && !allChosen
                    }}
                    onChange={(event) => setSelected(event.target.checked ? new Set(visible.map((item) => item.id)) : new Set())}
                  />
                </td>
                <th scope="col" aria-sort={ariaSort('name')}>
                  {t('files:list.name')}
                </th>
                <th scope="col" className="col-size" aria-sort={ariaSort('size')}>
                  {t('files:list.size')}
                </th>
                <th scope="col" className="col-date" aria-sort={ariaSort('date')}>
                  {t('files:list.modified')}
                </th>
                <th scope="col" className="col-actions">
                  <span className="visually-hidden">{t('files:list.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {visible.map((item) => (
                <tr key={item.id} className={selected.has(item.id) ? 'row-selected' : undefined} data-testid="drive-row">
                  <td className="col-check">
                    <input type="checkbox" aria-label={t('files:selection.one', { name: item.name })} checked={selected.has(item.id)} onChange={(event) => toggle(item, event.target.checked)} />
                  </td>
                  <th scope="row" className="col-name">
                    {item.type === 'folder' ? (
                      <Link className="file-name file-name-folder" to={folderLink(item.id)}>
                        {item.name}
                      </Link>
                    ) : previewKind(item) ? (
                      <button type="button" className="link-button file-name file-name-file" onClick={() => openModal({ kind: 'preview', item })}>
                        {item.name}
                      </button>
                    ) : (
                      <a className="file-name file-name-file" href={contentUrl(item)} download>
                        {item.name}
                      </a>
                    )}
                    <span className="row-meta">
                      {formatBytes(item.size, i18n.language)} · {formatDate(item.updatedAt, i18n.language, false)}
                    </span>
                  </th>
                  <td className="col-size">{formatBytes(item.size, i18n.language)}</td>
                  <td className="col-date">{formatDate(item.updatedAt, i18n.language)}</td>
                  <td className="col-actions">
                    <MenuButton label={t('files:actions.menu', { name: item.name })} items={menuFor(item)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {modal?.kind === 'newFolder' ? (
        <NameDialog
          title={t('files:folder.title')}
          label={t('files:folder.name')}
          initial=""
          submitLabel={t('files:folder.create')}
          busy={write.busy}
          failure={nameFailure}
          onSubmit={createFolder}
          onClose={() => setModal(null)}
        />
      ) : null}
      {modal?.kind === 'rename' ? (
        <NameDialog
          title={t('files:rename.title', { name: modal.item.name })}
          label={t('files:rename.label')}
          initial={modal.item.name}
          submitLabel={t('files:actions.rename')}
          busy={write.busy}
          failure={nameFailure}
          onSubmit={rename(modal.item)}
          onClose={() => setModal(null)}
        />
      ) : null}
      {modal?.kind === 'move' ? (
        <MoveDialog
          items={modal.items}
          startFolder={folder.id}
          busy={write.busy}
          onMove={(parentId) => void write.submit({ intent: 'move', ...itemFields(modal.items), parentId: parentId ?? '' })}
          onClose={() => setModal(null)}
        />
      ) : null}
      {modal?.kind === 'delete' ? (
        <ConfirmDialog
          title={t('files:trash.confirmTitle', { count: modal.items.length })}
          text={modal.items.length === 1 ? t('files:trash.confirmOne', { name: modal.items[0]!.name }) : t('files:trash.confirmMany', { count: modal.items.length })}
          confirmLabel={t('files:actions.delete')}
          danger
          busy={write.busy}
          onConfirm={() => void write.submit({ intent: 'delete', ...itemFields(modal.items) })}
          onClose={() => setModal(null)}
        />
      ) : null}
      {modal?.kind === 'share' ? <ShareDialog item={modal.item} onClose={() => setModal(null)} /> : null}
      {modal?.kind === 'preview' ? <PreviewDialog item={modal.item} onClose={() => setModal(null)} /> : null}
    </>
  )
}

function TrashView({ items }: { items: TrashEntry[] }) {
  const { t, i18n } = useTranslation(['files', 'common'])
  const failureText = useFailureText()
  const [confirmEmpty, setConfirmEmpty] = useState(false)
  const write = useRouteWrite<DriveOutcome>((outcome) => {
    if (outcome.intent === 'restore') {
      reportBatch(t, outcome, { done: (_count, name) => t('files:trash.restored', { name }), refused: (count) => t('files:trash.notRestored', { count }) })
    } else if (outcome.intent === 'emptyTrash') {
      setConfirmEmpty(false)
      showToast(outcome.failure ? { kind: 'error', title: failureText(outcome.failure) } : { kind: 'success', title: t('files:trash.emptied') })
    }
  })

  return (
    <section aria-labelledby="trash-heading">
      <div className="section-heading">
        <h2 id="trash-heading">{t('files:views.trash')}</h2>
        {items.length > 0 ? (
          <button type="button" className="button button-small button-danger" onClick={() => setConfirmEmpty(true)}>
            {t('files:trash.empty')}
          </button>
        ) : null}
      </div>
      <p className="hint">{t('files:trash.lead')}</p>
      {items.length === 0 ? (
        <p className="drive-empty" data-testid="trash-empty">
          {t('files:trash.nothing')}
        </p>
      ) : (
        <ul className="trash-list">
          {items.map((item) => (
            <li key={item.id} className="trash-row" data-testid="trash-row">
              <div>
                <span className={`file-name ${item.type === 'folder' ? 'file-name-folder' : 'file-name-file'}`}>{item.name}</span>
                <span className="row-meta">
                  {formatBytes(item.size, i18n.language)} · {t('files:trash.deletedOn', { date: formatDate(item.trashedAt, i18n.language) })} ·{' '}
                  {t('files:trash.purgeOn', { date: formatDate(item.purgeAt, i18n.language, false) })}
                </span>
              </div>
              <button type="button" className="button button-small button-secondary" disabled={write.busy}
                onClick={() => void write.submit({ intent: 'restore', ...itemFields([item]) })}
                aria-label={t('files:trash.restoreNamed', { name: item.name })}>
                {t('files:trash.restore')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {confirmEmpty ? (
        <ConfirmDialog title={t('files:trash.emptyTitle')} text={t('files:trash.emptyText')} confirmLabel={t('files:trash.empty')} danger busy={write.busy} onConfirm={() => void write.submit({ intent: 'emptyTrash' })} onClose={() => setConfirmEmpty(false)} />
      ) : null}
    </section>
  )
}

const SHARE_STATES = new Set(['active', 'expired', 'revoked'])

/** A row of the links view: the API's link, or one revoked here a moment ago. */
type LinkRow = Omit<ShareSummary, 'state'> & { state: ShareSummary['state'] | 'revoked' }

function LinksView({ shares: listed }: { shares: ShareSummary[] | null }) {
  const { t, i18n } = useTranslation(['files', 'common'])
  const failureText = useFailureText()
  const [revoking, setRevoking] = useState<LinkRow | null>(null)
  // The API lists no revoked link; one revoked here stays in its place, marked, until the page is left.
  const [revoked, setRevoked] = useState<LinkRow[]>([])
  const shares = useMemo(() => {
    if (listed === null) return null
    const gone = revoked.filter((share) => !listed.some((other) => other.id === share.id)).map((share): LinkRow => ({ ...share, state: 'revoked' }))
    return [...listed, ...gone].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
  }, [listed, revoked])

  const write = useRouteWrite<DriveOutcome>((outcome) => {
    if (outcome.intent !== 'revokeLink') return
    setRevoking(null)
    if (!outcome.failure) return showToast({ kind: 'success', title: t('files:links.revoked', { name: outcome.share.name }) })
    setRevoked((current) => current.filter((share) => share.id !== outcome.share.id))
    showToast({ kind: 'error', title: failureText(outcome.failure) })
  })

  return (
    <section aria-labelledby="links-heading">
      <h2 id="links-heading">{t('files:views.links')}</h2>
      <p className="hint">{t('files:links.lead')}</p>
      {shares === null ? (
        <p className="notice notice-error" role="alert">
          {t('files:links.unavailable')}
        </p>
      ) : shares.length === 0 ? (
        <p className="drive-empty">{t('files:links.none')}</p>
      ) : (
        <ul className="links-list">
          {shares.map((share) => (
            <li key={share.id} className="link-row" data-testid="share-row">
              <div className="link-row-main">
                <span className={`file-name ${share.itemType === 'folder' ? 'file-name-folder' : 'file-name-file'}`}>{share.itemName}</span>
                <span className={`badge link-state link-state-${share.state}`}>{SHARE_STATES.has(share.state) ? t(`files:links.states.${share.state as 'active'}`) : share.state}</span>
                <span className="row-meta">
                  {[
                    t('files:links.views', { count: share.views }),
                    t('files:links.createdOn', { date: formatDate(share.createdAt, i18n.language, false) }),
                    share.expiresAt ? t('files:links.expiresOn', { date: formatDate(share.expiresAt, i18n.language, false) }) : t('files:links.noExpiry'),
                    share.hasPassword ? t('files:links.withPassword') : t('files:links.noPassword'),
                    share.allowDownload ? t('files:links.download') : t('files:links.viewOnly'),
                  ].join(' · ')}
                </span>
                <code className="link-url">{share.url}</code>
              </div>
              <div className="actions">
                {share.state === 'active' ? <CopyButton text={share.url} label={t('files:share.copy')} /> : null}
                {share.state !== 'revoked' ? (
                  <button type="button" className="button button-small button-danger" onClick={() => setRevoking(share)} aria-label={t('files:links.revokeNamed', { name: share.itemName })}>
                    {t('files:links.revoke')}
                  </button>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      {revoking ? (
        <ConfirmDialog
          title={t('files:links.revokeTitle')}
          text={t('files:links.revokeText', { name: revoking.itemName })}
          confirmLabel={t('files:links.revoke')}
          danger
          busy={write.busy}
          onConfirm={() => {
            // Marked revoked at once: the list loaded after the write no longer has it (undone if refused).
            setRevoked((current) => [...current, revoking])
            void write.submit({ intent: 'revokeLink', id: revoking.id, name: revoking.itemName })
          }}
          onClose={() => setRevoking(null)}
        />
      ) : null}
    </section>
  )
}

export function Component() {
  const data = useLoaderData() as DriveData
  const { t } = useTranslation(['files'])
  const navigation = useNavigation()
  const usage = data.view === 'files' ? data.listing.usage : data.usage
  return (
    <main id="content" className="drive" aria-busy={navigation.state === 'loading'}>
      <header className="drive-header">
        <h1>{t('files:title')}</h1>
        <UsageMeter usage={usage} />
      </header>
      <ViewTabs current={data.view} />
      {data.view === 'files' ? <FilesView listing={data.listing} /> : data.view === 'trash' ? <TrashView items={data.items} /> : <LinksView shares={data.shares} />}
    </main>
  )
}
