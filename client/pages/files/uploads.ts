import { useCallback, useEffect, useRef, useState } from 'react'
import { defaultOptions, DetailedError, Upload, type PreviousUpload } from 'tus-js-client'
import { isIgnoredPath } from './model.ts'

// Resumable uploads with tus-js-client against the API's tus 1.0.0 endpoint. Each file
// is its own upload; a few run at once and the rest wait their turn. tus-js-client keeps each
// unfinished upload's address in localStorage under the file's fingerprint (name, type, size,
// modification time), so after a reload the same file picked again continues from the last byte
// the server has — browsers never let a page reopen a file by itself, so the person picks it.

const ENDPOINT = '/api/files/uploads'
/**
 * The server confirms the offset after every chunk: a dropped connection costs at most one chunk,
 * even behind a proxy that holds a request body whole before passing it on.
 */
export const UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024
/** Uploads at once: enough to fill a connection with small files, few enough to keep each moving. */
const PARALLEL = 3

export interface PickedFile {
  file: File
  /** "Photos/2024/beach.jpg" for a file of a folder upload (the API makes the folders); absent for a lone file. */
  relativePath?: string
}

export type UploadStatus = 'waiting' | 'uploading' | 'paused' | 'done' | 'error'

export interface UploadRow {
  key: string
  name: string
  relativePath: string | undefined
  size: number
  sent: number
  status: UploadStatus
  /** The API's error code and message when it gave one. */
  error?: { code: string | null; message: string | null }
  /** It continued an upload an earlier page had started. */
  resumed: boolean
}

/** An upload a previous page left unfinished, as tus-js-client stored it. */
export type Unfinished = PreviousUpload

function headers(): Record<string, string> {
  // The BFF's anti-forgery rule applies to every write, tus requests included (DESIGN.md §4.4).
  return { rid: 'anti-csrf', 'accept-language': document.documentElement.lang || 'en' }
}

function apiError(error: Error): { code: string | null; message: string | null } {
  const response = error instanceof DetailedError ? error.originalResponse : null
  if (!response) return { code: null, message: null }
  try {
    const body = JSON.parse(response.getBody()) as { code?: unknown; message?: unknown }
    return { code: typeof body.code === 'string' ? body.code : null, message: typeof body.message === 'string' ? body.message : null }
  } catch {
    return { code: null, message: null }
  }
}

/** Drops what spec §9 ignores: any path with a `$RECYCLE.BIN` segment. */
export function withoutIgnored(files: PickedFile[]): PickedFile[] {
  return files.filter((picked) => !isIgnoredPath(picked.relativePath ?? picked.file.name))
}

let counter = 0

export function useUploads(onUploaded: () => void) {
  const [rows, setRows] = useState<UploadRow[]>([])
  const [unfinished, setUnfinished] = useState<Unfinished[]>([])
  const uploads = useRef(new Map<string, Upload>())
  const queue = useRef<string[]>([])
  const running = useRef(new Set<string>())
  const onUploadedRef = useRef(onUploaded)
  onUploadedRef.current = onUploaded

  const update = useCallback((key: string, change: Partial<UploadRow>) => {
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...change } : row)))
  }, [])

  const refreshUnfinished = useCallback(async () => {
    const stored = await defaultOptions.urlStorage.findAllUploads().catch(() => [] as Unfinished[])
    // Uploads running in this page are stored too; only the ones no upload here is carrying count.
    const busy = new Set([...uploads.current.values()].map((upload) => upload.url).filter(Boolean))
    setUnfinished(stored.filter((entry) => entry.uploadUrl && !busy.has(entry.uploadUrl)))
  }, [])

  useEffect(() => {
    void refreshUnfinished()
    const active = uploads.current
    // Leaving the page pauses what runs; the stored addresses let a later visit continue.
    return () => {
      for (const upload of active.values()) void upload.abort()
    }
  }, [refreshUnfinished])

  const pump = useCallback(() => {
    while (running.current.size < PARALLEL && queue.current.length > 0) {
      const key = queue.current.shift()!
      const upload = uploads.current.get(key)
      if (!upload) continue
      running.current.add(key)
      update(key, { status: 'uploading' })
      void upload
        .findPreviousUploads()
        .then((previous) => {
          const earlier = previous[0]
          if (earlier) {
            upload.resumeFromPreviousUpload(earlier)
            update(key, { resumed: true })
          }
          upload.start()
          if (earlier) void refreshUnfinished()
        })
        .catch(() => upload.start())
    }
  }, [refreshUnfinished, update])

  const finish = useCallback(
    (key: string, change: Partial<UploadRow>) => {
      running.current.delete(key)
      update(key, change)
      pump()
    },
    [pump, update],
  )

  const add = useCallback(
    (files: PickedFile[], parentId: string | null) => {
      const added: UploadRow[] = []
      for (const { file, relativePath } of withoutIgnored(files)) {
        const key = `u${++counter}`
        const metadata: Record<string, string> = { filename: file.name }
        if (parentId) metadata.parentId = parentId
        if (relativePath) metadata.relativePath = relativePath
        const upload = new Upload(file, {
          endpoint: ENDPOINT,
          chunkSize: UPLOAD_CHUNK_BYTES,
          retryDelays: [0, 1000, 3000, 5000, 10000],
          metadata,
          headers: headers(),
          storeFingerprintForResuming: true,
          removeFingerprintOnSuccess: true,
          onProgress: (sent) => update(key, { sent }),
          onSuccess: () => {
            finish(key, { status: 'done', sent: file.size })
            onUploadedRef.current()
            void refreshUnfinished()
          },
          onError: (error) => finish(key, { status: 'error', error: apiError(error) }),
        })
        uploads.current.set(key, upload)
        queue.current.push(key)
        added.push({ key, name: file.name, relativePath, size: file.size, sent: 0, status: 'waiting', resumed: false })
      }
      setRows((current) => [...current, ...added])
      pump()
      return added.length
    },
    [finish, pump, refreshUnfinished, update],
  )

  const pause = useCallback(
    (key: string) => {
      const upload = uploads.current.get(key)
      if (!upload) return
      queue.current = queue.current.filter((queued) => queued !== key)
      void upload.abort()
      finish(key, { status: 'paused' })
    },
    [finish],
  )

  const resume = useCallback(
    (key: string) => {
      if (!uploads.current.has(key)) return
      update(key, { status: 'waiting', error: undefined })
      queue.current.push(key)
      pump()
    },
    [pump, update],
  )

  const cancel = useCallback(
    (key: string) => {
      const upload = uploads.current.get(key)
      queue.current = queue.current.filter((queued) => queued !== key)
      running.current.delete(key)
      uploads.current.delete(key)
      // Terminates the upload on the server too, and forgets its stored address.
      if (upload) void upload.abort(true).catch(() => undefined)
      setRows((current) => current.filter((row) => row.key !== key))
      pump()
    },
    [pump],
  )

  const discard = useCallback(
    async (entry: Unfinished) => {
      if (entry.uploadUrl) await Upload.terminate(entry.uploadUrl, { headers: headers() }).catch(() => undefined)
      await defaultOptions.urlStorage.removeUpload(entry.urlStorageKey)
      await refreshUnfinished()
    },
    [refreshUnfinished],
  )

  const clearFinished = useCallback(() => {
    setRows((current) => current.filter((row) => row.status !== 'done'))
  }, [])

  return { rows, unfinished, add, pause, resume, cancel, discard, clearFinished, refreshUnfinished }
}

/** Every file under a dropped folder, with its path; `$RECYCLE.BIN` is never even entered. */
async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (isIgnoredPath(entry.name)) return
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject))
    out.push(prefix ? { file, relativePath: `${prefix}${file.name}` } : { file })
    return
  }
  if (!entry.isDirectory) return
  const reader = (entry as FileSystemDirectoryEntry).createReader()
  const path = `${prefix}${entry.name}/`
  // readEntries answers in batches (100 in Chromium) until an empty one.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject))
    if (batch.length === 0) break
    for (const child of batch) await walk(child, path, out)
  }
}

/**
 * The files of a drop, folders walked. The entries must be taken during the drop event itself
 * (the DataTransfer empties after it), so call this synchronously from the handler.
 */
export function droppedFiles(transfer: DataTransfer): Promise<PickedFile[]> {
  const entries = [...transfer.items].filter((item) => item.kind === 'file').map((item) => item.webkitGetAsEntry?.() ?? null)
  if (entries.some((entry) => entry === null)) {
    // No entry API: plain files only.
    return Promise.resolve([...transfer.files].map((file) => ({ file })))
  }
  return (async () => {
    const out: PickedFile[] = []
    for (const entry of entries) await walk(entry!, '', out)
    return out
  })()
}

/** The files of an `<input type=file webkitdirectory>` or a multiple pick, with their folder paths. */
export function pickedFiles(list: FileList | null): PickedFile[] {
  return [...(list ?? [])].map((file) => (file.webkitRelativePath ? { file, relativePath: file.webkitRelativePath } : { file }))
}
