import t from 'tap'
import { CHAT_WIDGET_DELAY_MS } from '../../../../shared/constants.ts'
import type { UserRecord } from '../../../../shared/types.ts'
import { chatUserOf, createChatWidget, startChatWidget, type ChatUser, type Timers, type WidgetPage } from '../../../../client/lib/support/chat-widget.ts'
import { notifySignedOut } from '../../../../client/lib/session/presence.ts'

// Spec §4 "Chat widget", §9 (500 ms each): the loader's timing on a fake clock — nothing sleeps.

class FakeClock implements Timers {
  private time = 0
  private nextId = 1
  private readonly pending = new Map<number, { at: number; run: () => void }>()
  now(): number {
    return this.time
  }
  setTimeout(run: () => void, ms: number): unknown {
    const id = this.nextId++
    this.pending.set(id, { at: this.time + ms, run })
    return id
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number)
  }
  /** Moves time forward, running each timer due on the way at its own time. */
  advance(ms: number): void {
    const end = this.time + ms
    for (;;) {
      const due = [...this.pending.entries()].filter(([, timer]) => timer.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
      if (!due) break
      this.pending.delete(due[0])
      this.time = due[1].at
      due[1].run()
    }
    this.time = end
  }
  get timers(): number {
    return this.pending.size
  }
}

type Event = { at: number; did: 'insert'; user: ChatUser } | { at: number; did: 'remove' }

function recordingPage(clock: FakeClock): WidgetPage & { events: Event[]; fail(): void } {
  const events: Event[] = []
  let onError: (() => void) | null = null
  return {
    events,
    insert(user, error) {
      events.push({ at: clock.now(), did: 'insert', user })
      onError = error
    },
    remove() {
      events.push({ at: clock.now(), did: 'remove' })
    },
    fail() {
      onError?.()
    },
  }
}

const ada = { id: 'u-1', email: 'ada@example.com', phone: null }
const setup = (firstLoadAt = CHAT_WIDGET_DELAY_MS) => {
  const clock = new FakeClock()
  const page = recordingPage(clock)
  const logged: string[] = []
  const widget = createChatWidget({ page, firstLoadAt, timers: clock, log: (message) => logged.push(message) })
  return { clock, page, widget, logged }
}

t.test('loads once, 500 ms after the app mounts, with the data of that moment', async (t) => {
  const { clock, page, widget } = setup()
  widget.update({})
  clock.advance(CHAT_WIDGET_DELAY_MS - 1)
  t.same(page.events, [], 'nothing before 500 ms')
  widget.update(ada)
  clock.advance(1)
  t.same(page.events, [{ at: 500, did: 'insert', user: ada }], 'at 500 ms, with the user known by then')
  clock.advance(60_000)
  t.equal(page.events.length, 1, 'and only once')
  t.equal(clock.timers, 0)
})

t.test('a loader that arrives late still loads at mount + 500 ms, or at once when that has passed', async (t) => {
  const early = setup(500)
  early.clock.advance(120)
  early.widget.update({})
  early.clock.advance(379)
  t.same(early.page.events, [])
  early.clock.advance(1)
  t.same(early.page.events, [{ at: 500, did: 'insert', user: {} }])

  const late = setup(500)
  late.clock.advance(800)
  late.widget.update({})
  late.clock.advance(0)
  t.same(late.page.events, [{ at: 800, did: 'insert', user: {} }])
})

t.test('changed user data while loaded: removed at once, loaded again after a 500 ms pause', async (t) => {
  const { clock, page, widget } = setup()
  widget.update(ada)
  clock.advance(500)
  clock.advance(1_000)
  widget.update({})
  t.same(page.events.slice(1), [{ at: 1_500, did: 'remove' }], 'removed when the data changes')
  clock.advance(CHAT_WIDGET_DELAY_MS - 1)
  t.equal(page.events.length, 2, 'not before the pause is over')
  clock.advance(1)
  t.same(page.events.slice(2), [{ at: 2_000, did: 'insert', user: {} }])
})

t.test('the same data again (a new object, a page revalidation) changes nothing', async (t) => {
  const { clock, page, widget } = setup()
  widget.update(ada)
  clock.advance(500)
  widget.update({ ...ada })
  widget.update(chatUserOf({ id: 'u-1', email: 'ada@example.com' }))
  clock.advance(5_000)
  t.equal(page.events.length, 1)
})

t.test('changes during the pause: one load, with the latest data', async (t) => {
  const { clock, page, widget } = setup()
  widget.update(ada)
  clock.advance(500)
  widget.update({})
  clock.advance(200)
  widget.update({ id: 'u-2', email: 'grace@example.com', phone: null })
  clock.advance(300)
  t.same(page.events.map((event) => event.did), ['insert', 'remove', 'insert'])
  t.same(page.events[2], { at: 1_000, did: 'insert', user: { id: 'u-2', email: 'grace@example.com', phone: null } }, 'the pause counts from the removal')
  clock.advance(5_000)
  t.equal(page.events.length, 3)
})

t.test('changes before the first load do not add loads', async (t) => {
  const { clock, page, widget } = setup()
  widget.update({})
  clock.advance(100)
  widget.update(ada)
  widget.update({})
  widget.update(ada)
  clock.advance(400)
  t.same(page.events, [{ at: 500, did: 'insert', user: ada }])
})

t.test('a script that fails to load is only logged; a later change still removes and reloads it', async (t) => {
  const { clock, page, widget, logged } = setup()
  widget.update(ada)
  clock.advance(500)
  t.doesNotThrow(() => page.fail())
  t.same(logged, ['[softshelf] the chat widget script did not load'])
  clock.advance(10_000)
  t.equal(page.events.length, 1, 'no retry of its own')
  widget.update({})
  clock.advance(500)
  t.same(page.events.map((event) => event.did), ['insert', 'remove', 'insert'])
})

t.test('unmounting cancels a pending load and removes a loaded widget', async (t) => {
  const pending = setup()
  pending.widget.update(ada)
  pending.widget.dispose()
  pending.clock.advance(5_000)
  t.same(pending.page.events, [])

  const loaded = setup()
  loaded.widget.update(ada)
  loaded.clock.advance(500)
  loaded.widget.dispose()
  loaded.widget.update({})
  loaded.clock.advance(5_000)
  t.same(loaded.page.events.map((event) => event.did), ['insert', 'remove'])
})

t.test('the widget learns id, email and phone of a user, nothing else', async (t) => {
  const record: UserRecord = {
    id: 'u-1', email: 'ada@example.com', isTosAccepted: true, isInMailList: true, name: 'Ada', language: 'en',
    languageChosen: true, avatarUrl: '/a.png', timeJoined: '2026-01-01T00:00:00Z', librarySize: 3, roles: [],
    notify: 'daily', watchOnAdd: true, unreadNotifications: 0,
  }
  t.strictSame(chatUserOf(record), { id: 'u-1', email: 'ada@example.com', phone: null })
  t.strictSame(chatUserOf({ ...record, phone: '+421900000000' }), { id: 'u-1', email: 'ada@example.com', phone: '+421900000000' })
  t.strictSame(chatUserOf({ ...record, phoneNumber: '+40700000000' }), { id: 'u-1', email: 'ada@example.com', phone: '+40700000000' }, 'spec §3: phone or phoneNumber')
})

t.test('the tab keeps a signed-in user outside /@ until the session ends, then sends {}', async (t) => {
  const clock = new FakeClock()
  const page = recordingPage(clock)
  const widget = startChatWidget({ page, firstLoadAt: 500, timers: clock })
  t.teardown(() => widget.stop())
  const record = { id: 'u-1', email: 'ada@example.com', isTosAccepted: true, isInMailList: false, name: null, language: 'en', languageChosen: false, avatarUrl: null, timeJoined: '2026-01-01T00:00:00Z', librarySize: 0, roles: [], notify: 'daily' as const, watchOnAdd: true, unreadNotifications: 0 }
  widget.signedInUser(record)
  clock.advance(500)
  widget.signedInUser(undefined)
  clock.advance(2_000)
  t.same(page.events, [{ at: 500, did: 'insert', user: ada }], 'the terms page, say: still the same person')
  notifySignedOut()
  clock.advance(500)
  t.same(page.events.slice(1), [
    { at: 2_500, did: 'remove' },
    { at: 3_000, did: 'insert', user: {} },
  ])
  widget.stop()
  notifySignedOut()
  t.equal(page.events.length, 4, 'stopped: removed, and deaf to later sign-outs')
})
