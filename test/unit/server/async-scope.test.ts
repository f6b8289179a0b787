import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import { IdleAsyncScope } from '../../../server/async-scope.ts'

t.test('a run sees its store across awaits and timers; outside any run there is none', async (t) => {
  const scope = new IdleAsyncScope<string>()
  t.equal(scope.getStore(), undefined)
  const seen = await scope.run('a', async () => {
    const before = scope.getStore()
    await nextTurn()
    const afterTurn = scope.getStore()
    const inTimer = await new Promise<string | undefined>((resolve) => setTimeout(() => resolve(scope.getStore()), 1))
    return [before, afterTurn, inTimer]
  })
  t.same(seen, ['a', 'a', 'a'])
  t.equal(scope.running, 0)
  t.equal(scope.getStore(), undefined, 'switched off once no run is in progress')
})

t.test('a run that ends while another is in progress does not switch the storage off under it', async (t) => {
  const scope = new IdleAsyncScope<string>()
  let finishFirst!: () => void
  const first = scope.run('first', () => new Promise<void>((resolve) => (finishFirst = resolve)))
  let step!: () => void
  const secondSaw: Array<string | undefined> = []
  const second = scope.run('second', async () => {
    secondSaw.push(scope.getStore())
    await new Promise<void>((resolve) => (step = resolve))
    secondSaw.push(scope.getStore())
    await nextTurn()
    secondSaw.push(scope.getStore())
  })
  t.equal(scope.running, 2)
  finishFirst()
  await first
  t.equal(scope.running, 1)
  step()
  await second
  t.same(secondSaw, ['second', 'second', 'second'])
  t.equal(scope.running, 0)
})

t.test('a run that fails still ends: its error reaches the caller and the storage is off again', async (t) => {
  const scope = new IdleAsyncScope<number>()
  await t.rejects(
    scope.run(1, async () => {
      await nextTurn()
      throw new Error('the body failed')
    }),
    { message: 'the body failed' },
  )
  t.equal(scope.running, 0)
  // And it runs again as before.
  t.equal(await scope.run(2, async () => scope.getStore()), 2)
})

t.test('nested runs see the innermost store, then the outer one again', async (t) => {
  const scope = new IdleAsyncScope<string>()
  const seen = await scope.run('outer', async () => {
    const inner = await scope.run('inner', async () => {
      await nextTurn()
      return scope.getStore()
    })
    await nextTurn()
    return [inner, scope.getStore()]
  })
  t.same(seen, ['inner', 'outer'])
})
