import t from 'tap'
import { MarkupTurns } from '../../../server/bff/markup-turns.ts'

/** Turns of the event loop played by hand: `check()` is the next check phase. */
function handTurned(perTurn: number) {
  let pending: Array<() => void> = []
  const turns = new MarkupTurns(perTurn, (next) => pending.push(next))
  return {
    turns,
    check: async () => {
      const now = pending
      pending = []
      for (const next of now) next()
      // Let the pages let through run their continuations.
      await Promise.resolve()
    },
    scheduled: () => pending.length,
  }
}

/** A page that makes its markup when its turn comes, noting `name` in `made`. */
async function page<T>(turns: MarkupTurns, made: T[], name: T): Promise<void> {
  const turn = turns.take()
  if (turn) await turn
  made.push(name)
}

t.test('a few pages a turn go at once; the rest wait for later turns, first come first made', async (t) => {
  const { turns, check } = handTurned(2)
  const made: number[] = []
  const pages = [1, 2, 3, 4, 5].map((n) => page(turns, made, n))
  await Promise.resolve()
  t.same(made, [1, 2], 'two go in the turn they came in')
  t.equal(turns.waiting, 3)
  await check()
  t.same(made, [1, 2, 3, 4], 'two more in the next turn')
  await check()
  t.same(made, [1, 2, 3, 4, 5])
  t.equal(turns.waiting, 0)
  await Promise.all(pages)
})

t.test('a page that comes while others wait is made after them', async (t) => {
  const { turns, check } = handTurned(2)
  const order: string[] = []
  const first = ['a', 'b', 'c', 'd', 'e'].map((name) => page(turns, order, name))
  await check() // c, d
  const late = page(turns, order, 'late') // this turn has used its room: it waits, behind e
  await check() // e, late
  await Promise.all([...first, late])
  t.same(order, ['a', 'b', 'c', 'd', 'e', 'late'])
})

t.test('when nothing waits the turns stop; the next page goes at once', async (t) => {
  const { turns, check, scheduled } = handTurned(1)
  t.equal(turns.take(), undefined)
  t.equal(scheduled(), 1, 'a turn is scheduled to reset the count')
  await check()
  t.equal(scheduled(), 0, 'nothing was let through: no further turn')
  t.equal(turns.take(), undefined, 'a new turn has room')
})

t.test('with real check phases every waiting page is made', async (t) => {
  const turns = new MarkupTurns(1)
  const made = await Promise.all(
    Array.from({ length: 20 }, async (_, n) => {
      const turn = turns.take()
      if (turn) await turn
      return n
    }),
  )
  t.same(made, Array.from({ length: 20 }, (_, n) => n))
  t.equal(turns.waiting, 0)
})
