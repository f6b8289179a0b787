import t from 'tap'
import { TOAST_DEFAULT_TIMEOUT_MS, TOAST_MAX } from '../../../shared/constants.ts'
import { currentToasts, dismissToast, showPersistentNotice, showToast } from '../../../client/lib/notices/toasts.ts'

// Spec §9: toasts top-right, 5000 ms, at most 20, no close-on-click; maintenance and version
// notices bottom-right, no timeout, close on click.

function clear(): void {
  for (const toast of currentToasts()) dismissToast(toast.id)
}

t.test('an ordinary toast and a notice get the spec\'s placement and timing', async (t) => {
  clear()
  const requested: number[] = []
  const realSetTimeout = globalThis.setTimeout
  // Record the timers the store asks for instead of waiting for them.
  globalThis.setTimeout = ((_fn: () => void, ms: number) => {
    requested.push(ms)
    return realSetTimeout(() => {}, 0)
  }) as typeof setTimeout
  t.teardown(() => {
    globalThis.setTimeout = realSetTimeout
    clear()
  })
  showToast({ kind: 'error', title: 'error API request' })
  showPersistentNotice({ kind: 'success', title: 'A new version of Softshelf is available' })
  const [toast, notice] = currentToasts()
  t.match(toast, { position: 'top-right', timeoutMs: TOAST_DEFAULT_TIMEOUT_MS, closeOnClick: false })
  t.match(notice, { position: 'bottom-right', timeoutMs: null, closeOnClick: true })
  t.same(requested, [TOAST_DEFAULT_TIMEOUT_MS], 'only the ordinary toast starts a timer')
})

t.test(`at most ${TOAST_MAX} toasts: the oldest give way`, async (t) => {
  clear()
  t.teardown(clear)
  for (let i = 0; i < TOAST_MAX + 3; i++) showToast({ kind: 'info', title: `toast ${i}`, timeoutMs: null })
  const shown = currentToasts()
  t.equal(shown.length, TOAST_MAX)
  t.equal(shown[0]?.title, 'toast 3')
  t.equal(shown.at(-1)?.title, `toast ${TOAST_MAX + 2}`)
})

t.test('dismissing removes exactly that toast', async (t) => {
  clear()
  t.teardown(clear)
  const a = showToast({ kind: 'info', title: 'a', timeoutMs: null })
  showToast({ kind: 'info', title: 'b', timeoutMs: null })
  dismissToast(a)
  t.same(currentToasts().map((toast) => toast.title), ['b'])
})
