import { useSyncExternalStore } from 'react'
import { TOAST_DEFAULT_TIMEOUT_MS, TOAST_MAX } from '../../../shared/constants.ts'

// A small toast store (spec §9): ordinary toasts top-right, 5000 ms, at most 20, not closed by a
// click; maintenance and version notices bottom-right, no timeout, closed by a click.

export type ToastKind = 'success' | 'error' | 'info' | 'warning'

export interface Toast {
  id: number
  kind: ToastKind
  title: string
  description?: string | undefined
  position: 'top-right' | 'bottom-right'
  /** null: stays until closed. */
  timeoutMs: number | null
  closeOnClick: boolean
  /** A button that does what the toast suggests ("Reload" on the new-version notice). */
  action?: { label: string; run: () => void } | undefined
}

export type ToastInput = Omit<Toast, 'id' | 'position' | 'timeoutMs' | 'closeOnClick'> & Partial<Pick<Toast, 'position' | 'timeoutMs' | 'closeOnClick'>>

let toasts: Toast[] = []
let nextId = 1
const listeners = new Set<() => void>()
const timers = new Map<number, ReturnType<typeof setTimeout>>()

function emit(): void {
  for (const listener of listeners) listener()
}

export function showToast(input: ToastInput): number {
  const toast: Toast = {
    position: 'top-right',
    timeoutMs: TOAST_DEFAULT_TIMEOUT_MS,
    closeOnClick: false,
    ...input,
    id: nextId++,
  }
  toasts = [...toasts, toast]
  while (toasts.length > TOAST_MAX) {
    const oldest = toasts[0]
    if (oldest) dismissToast(oldest.id, false)
  }
  if (toast.timeoutMs !== null) timers.set(toast.id, setTimeout(() => dismissToast(toast.id), toast.timeoutMs))
  emit()
  return toast.id
}

/** A notice that stays until the user clicks it (maintenance, new version). */
export function showPersistentNotice(input: Omit<ToastInput, 'position' | 'timeoutMs' | 'closeOnClick'>): number {
  return showToast({ ...input, position: 'bottom-right', timeoutMs: null, closeOnClick: true })
}

export function dismissToast(id: number, notify = true): void {
  const timer = timers.get(id)
  if (timer) clearTimeout(timer)
  timers.delete(id)
  toasts = toasts.filter((toast) => toast.id !== id)
  if (notify) emit()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

const noToasts: Toast[] = []

/** The toasts on screen now, oldest first. */
export function currentToasts(): Toast[] {
  return toasts
}

export function useToasts(): Toast[] {
  return useSyncExternalStore(subscribe, currentToasts, () => noToasts)
}
