import { useSyncExternalStore } from 'react'
import { COMPARE_MAX } from '../../../shared/catalogue/living.ts'

// The programs a visitor picks to compare: up to COMPARE_MAX, kept in the browser's
// localStorage, so the list survives moving between pages, reloads and signing in, and every tab
// of the site shows the same list (the `storage` event). Nothing of it reaches the server: the
// comparison itself is the URL /compare?programs=a,b,c, which the tray links to.

export interface ComparedProgram {
  id: string
  name: string
}

export const COMPARE_STORAGE_KEY = 'softshelf.compare'

const listeners = new Set<() => void>()
let cachedRaw: string | null | undefined
let cached: ComparedProgram[] = []
const empty: ComparedProgram[] = []

function read(): ComparedProgram[] {
  let raw: string | null
  try {
    raw = localStorage.getItem(COMPARE_STORAGE_KEY)
  } catch {
    // Storage refused (private mode, a blocked site): nothing can be kept.
    return empty
  }
  if (raw === cachedRaw) return cached
  cachedRaw = raw
  cached = parse(raw)
  return cached
}

/** What was stored, kept only as far as it is a list of {id, name} (another version, or a hand edit, may have left anything). */
function parse(raw: string | null): ComparedProgram[] {
  if (!raw) return empty
  try {
    const value: unknown = JSON.parse(raw)
    if (!Array.isArray(value)) return empty
    const out: ComparedProgram[] = []
    for (const item of value as unknown[]) {
      const { id, name } = (item ?? {}) as Partial<ComparedProgram>
      if (typeof id === 'string' && typeof name === 'string' && !out.some((p) => p.id === id)) out.push({ id, name })
    }
    return out.slice(0, COMPARE_MAX)
  } catch {
    return empty
  }
}

function write(list: ComparedProgram[]): void {
  try {
    if (list.length === 0) localStorage.removeItem(COMPARE_STORAGE_KEY)
    else localStorage.setItem(COMPARE_STORAGE_KEY, JSON.stringify(list))
  } catch {
    return
  }
  for (const listener of listeners) listener()
}

function onStorage(event: StorageEvent): void {
  if (event.key === COMPARE_STORAGE_KEY || event.key === null) for (const listener of listeners) listener()
}

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0) window.addEventListener('storage', onStorage)
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
    if (listeners.size === 0) window.removeEventListener('storage', onStorage)
  }
}

/**
 * The list now; null while the page is the server's HTML (and during hydration), so what depends on
 * the browser's list renders only once the page's script runs — the server cannot know it.
 */
export function useCompareList(): ComparedProgram[] | null {
  return useSyncExternalStore<ComparedProgram[] | null>(subscribe, read, () => null)
}

/** Adds a program; false when the list is full (COMPARE_MAX), which changes nothing. */
export function addToCompare(program: ComparedProgram): boolean {
  const list = read()
  if (list.some((p) => p.id === program.id)) return true
  if (list.length >= COMPARE_MAX) return false
  write([...list, { id: program.id, name: program.name }])
  return true
}

export function removeFromCompare(id: string): void {
  write(read().filter((p) => p.id !== id))
}

export function clearCompare(): void {
  write([])
}
