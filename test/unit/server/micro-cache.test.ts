import t from 'tap'
import { MicroCache } from '../../../server/bff/micro-cache.ts'

t.test('concurrent callers share one load and the value lives for the TTL', async (t) => {
  let now = 0
  let loads = 0
  const cache = new MicroCache<number>(1_000, () => now)
  const load = async () => ++loads
  const [a, b, c] = await Promise.all([cache.get('k', load), cache.get('k', load), cache.get('k', load)])
  t.same([a, b, c], [1, 1, 1])
  now = 999
  t.equal(await cache.get('k', load), 1)
  now = 1_000
  t.equal(await cache.get('k', load), 2, 'expired after the TTL')
})

t.test('values the caller rejects are not kept, and failures are not cached', async (t) => {
  let loads = 0
  const cache = new MicroCache<number>(1_000, () => 0)
  await cache.get('k', async () => ++loads, () => false)
  await cache.get('k', async () => ++loads, () => false)
  t.equal(loads, 2)
  await t.rejects(cache.get('x', async () => Promise.reject(new Error('down'))))
  t.equal(await cache.get('x', async () => 7), 7)
})

t.test('forget drops the value, and a load under way when it was forgotten is not kept (issue 28: maintenance set from the console)', async (t) => {
  let loads = 0
  const cache = new MicroCache<number>(1_000, () => 0)
  t.equal(await cache.get('k', async () => ++loads), 1)
  cache.forget('k')
  t.equal(await cache.get('k', async () => ++loads), 2, 'loaded afresh')
  cache.forget('k')
  let finish: (value: number) => void = () => {}
  const slow = cache.get('k', () => new Promise<number>((resolve) => (finish = resolve)))
  cache.forget('k')
  const fresh = cache.get('k', async () => 10)
  finish(3)
  t.equal(await slow, 3, 'the caller of the old load still gets its answer')
  t.equal(await fresh, 10, 'a caller after forget does not share the old load')
  t.equal(await cache.get('k', async () => 99), 10, 'the fresh value is kept, not the old one')
})
