import t from 'tap'
import { CHUNK_RELOAD_MIN_INTERVAL_MS } from '../../../shared/constants.ts'
import { isChunkLoadError, reloadAfterChunkError } from '../../../client/lib/notices/chunk-reload.ts'

// Spec §4/§9: after a failed chunk load the page reloads, at most once per 10 s.

t.test('reloads once, then not again within 10 s, then again after', async (t) => {
  const store = new Map<string, string>()
  let reloads = 0
  const globals = globalThis as Record<string, unknown>
  globals.sessionStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) }
  globals.window = { location: { reload: () => void reloads++ } }
  t.teardown(() => {
    delete globals.sessionStorage
    delete globals.window
  })
  const start = 1_000_000
  t.equal(reloadAfterChunkError(start), true)
  t.equal(reloadAfterChunkError(start + CHUNK_RELOAD_MIN_INTERVAL_MS - 1), false)
  t.equal(reloads, 1)
  t.equal(reloadAfterChunkError(start + CHUNK_RELOAD_MIN_INTERVAL_MS), true)
  t.equal(reloads, 2)
})

t.test('recognises the browsers\' chunk-load failures only', async (t) => {
  t.equal(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: /assets/home-x.js')), true)
  t.equal(isChunkLoadError(new TypeError('Importing a module script failed.')), true)
  t.equal(isChunkLoadError(new TypeError('error loading dynamically imported module')), true)
  t.equal(isChunkLoadError(new Error('Cannot read properties of undefined')), false)
  t.equal(isChunkLoadError('Failed to fetch dynamically imported module'), false)
})
