import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import t from 'tap'
import type { ProgramAsWritten } from '../../../shared/catalogue/program-editor.ts'
import type { NotificationList } from '../../../shared/catalogue/living.ts'
import { runSavedSearches } from '../../../server/api/notifications/saved-searches.ts'
import { buildStack, mailsIn, operatorTab, signedInTab, waitUntil } from '../../helpers.ts'

// The living catalogue's "done when", as one person meets it, each step through the HTTP API a browser or a
// mail provider uses: a feed served on loopback bumps Blender's version; the user who watches
// Blender has a notification (the bell's count in the user record too) and, with `immediate`, one
// mail whose one-click unsubscribe works without a session; a saved search tells of a program an
// editor adds. The parts have their own tests; this one proves they meet.

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/feeds')

interface StoredMail {
  to: string
  subject: string
  headers?: Record<string, string>
}

const NEW_PROGRAM: ProgramAsWritten = {
  name: 'Meshwerk',
  developer: { name: 'Meshwerk Collective' },
  publisher: { name: 'Meshwerk Collective' },
  licenseType: 'open-source',
  price: null,
  categories: ['3d'],
  platforms: ['linux', 'windows'],
  languages: ['en'],
  version: '1.0',
  updated: '2026-11',
  released: '2026',
  homepage: 'https://meshwerk.example/',
  texts: { en: { summary: 'Repairs and retopologises scanned 3D meshes.', description: 'Meshwerk cleans up scanned meshes for printing and games.' } },
}

t.test('a feed bumps Blender; its watcher is notified and mailed; the mail unsubscribes in one click; a saved search tells of a new program', async (t) => {
  const feed = http.createServer((req, res) => {
    if (req.url !== '/flathub.xml') return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'application/xml' }).end(fs.readFileSync(path.join(FIXTURES, 'appstream.xml')))
  })
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve))
  t.teardown(() => feed.close())
  const feedName = `appstream:http://127.0.0.1:${(feed.address() as AddressInfo).port}/flathub.xml`
  const stack = await buildStack(t, { auth: true, env: { CATALOGUE_FEEDS: feedName, RATE_LIMIT_ACCOUNT_MAX: '100000' } })
  const { bff, db } = stack

  // A user watches Blender (its ids in other catalogues are the seed's) and wants mail at once.
  const ada = await signedInTab(stack, 'ada@example.com')
  t.equal((await ada.send('PATCH', '/api/user', { notify: 'immediate' })).statusCode, 200)
  t.equal((await ada.put('/api/user/watches/blender', { events: ['release'] })).statusCode, 200)
  t.equal((await ada.get('/api/user')).json().unreadNotifications, 0)
  const blenderBefore = (await bff.inject({ url: '/api/programs/blender' })).json() as { version: string; externalIds: Record<string, string> }
  t.equal(blenderBefore.externalIds.flathub, 'org.blender.Blender', "the seed's Flathub id")
  t.not(blenderBefore.version, '4.5')

  // The feed is read (the console's "read now"; the timer does the same every interval).
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const sync = await editor.post('/api/operator/feeds/sync')
  t.equal(sync.statusCode, 200, sync.body)
  t.match(sync.json(), { feeds: [{ releases: [{ programId: 'blender', version: '4.5' }] }] })
  const history = (await db.query<{ version: string; source: string }>(`SELECT version, source FROM api.program_releases WHERE program_id = 'blender' ORDER BY recorded_at DESC LIMIT 1`)).rows[0]
  t.same(history, { version: '4.5', source: 'appstream:127.0.0.1' }, 'a release from the feed')

  // The watcher's notification, and the bell's count in the user record.
  stack.api.notificationFanout.wake()
  await waitUntil(async () => (await ada.get('/api/user')).json().unreadNotifications === 1, 10_000)
  const list = (await ada.get('/api/user/notifications')).json() as NotificationList
  t.match(list, { unread: 1, items: [{ type: 'release', programId: 'blender', read: false, data: { version: '4.5', source: 'appstream:127.0.0.1', programName: 'Blender' } }] })

  // One mail, at once, with RFC 8058's headers.
  t.equal(await bff.notificationMail.tick(), 1, 'one mail queued')
  await bff.mailOutbox.tick()
  const mails = (mailsIn(stack.config.dataDir, 'ada@example.com') as StoredMail[]).filter((mail) => mail.headers?.['List-Unsubscribe'])
  t.equal(mails.length, 1)
  t.equal(mails[0]!.subject, 'New version of Blender: 4.5')
  t.equal(mails[0]!.headers!['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click')
  const link = new URL(/^<(.+)>$/.exec(mails[0]!.headers!['List-Unsubscribe']!)![1]!)

  // The mail provider's one-click POST: no session, no cookie, no anti-forgery header.
  const unsubscribe = await bff.inject({
    method: 'POST',
    url: `${link.pathname}${link.search}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  })
  t.equal(unsubscribe.statusCode, 200, unsubscribe.body)
  t.equal((await ada.get('/api/user')).json().notify, 'off', 'no more notification mail for this account')

  // A saved search, then a program an editor adds that it matches: a notification.
  const saved = await ada.post('/api/user/saved-searches', { name: 'Free 3D on Linux', query: 'category=3d&price=free&platform=linux' })
  t.equal(saved.statusCode, 201, saved.body)
  const created = await editor.post('/api/operator/programs', NEW_PROGRAM)
  t.equal(created.statusCode, 201, created.body)
  await Promise.all([
    waitUntil(async () => (await ada.get('/api/user')).json().unreadNotifications === 2, 15_000),
    runSavedSearches(db, stack.api.catalogue),
  ])
  const after = (await ada.get('/api/user/notifications')).json() as NotificationList
  t.match(after.items[0], { type: 'search', programId: created.json().id, data: { searchName: 'Free 3D on Linux', programName: 'Meshwerk' } })
  t.equal(after.items.filter((item) => item.type === 'search').length, 1, 'told once')
})
