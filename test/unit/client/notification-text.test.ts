import fs from 'node:fs'
import path from 'node:path'
import i18next from 'i18next'
import t from 'tap'
import type { Notification } from '../../../shared/catalogue/living.ts'
import { notificationText, relativeTime } from '../../../client/pages/notifications.tsx'
import { root } from '../../helpers.ts'

// What a notification says on /@/notifications, in the page's language, with the
// catalogue's own words for prices ("€9.99 per month", "Free") and licence types.

async function translator(language: string) {
  const read = (ns: string) => JSON.parse(fs.readFileSync(path.join(root, 'locales', language, `${ns}.json`), 'utf8')) as Record<string, unknown>
  const instance = i18next.createInstance()
  await instance.init({ lng: language, resources: { [language]: { notifications: read('notifications'), catalogue: read('catalogue') } }, interpolation: { escapeValue: false } })
  return { t: instance.getFixedT(language, 'notifications'), catalogueT: instance.getFixedT(language, 'catalogue') }
}

const base = { id: '1', programId: 'blender', at: '2026-12-06T10:00:00.000Z', read: false }
const release = { ...base, type: 'release', data: { version: '4.5', date: '2026-12-05', source: 'editor', programName: 'Blender' } } as Notification
const price = (before: unknown, after: unknown) => ({ ...base, type: 'price', data: { before, after, programName: 'Affinity Photo' } }) as Notification
const licence = { ...base, type: 'licence', data: { before: 'freeware', after: 'open-source', programName: 'Krita' } } as Notification
const search = { ...base, type: 'search', data: { searchId: 's1', searchName: 'Free 3D', query: 'category=3d&price=free', programName: 'Blender' } } as Notification

t.test('each type says what happened, in English', async (t) => {
  const { t: tn, catalogueT } = await translator('en')
  const say = (item: Notification) => notificationText(item, tn, catalogueT, 'en')
  t.equal(say(release), 'Blender 4.5 was released')
  t.equal(say(price({ amount: 54.99, currency: 'EUR', period: 'one-time' }, { amount: 9.99, currency: 'EUR', period: 'month' })), 'The price of Affinity Photo changed from €54.99 to €9.99 per month')
  t.equal(say(price({ amount: 70, currency: 'USD', period: 'year' }, null)), 'Affinity Photo is now free (it cost $70.00 per year)')
  t.equal(say(price(null, { amount: 5, currency: 'EUR', period: 'one-time' })), 'Affinity Photo is no longer free: it now costs €5.00')
  t.equal(say(licence), 'The licence of Krita is now Open source (it was Freeware)')
  t.equal(say(search), 'Blender matches your saved search “Free 3D”')
})

t.test('in the page\'s language, prices as that language writes them', async (t) => {
  const { t: tn, catalogueT } = await translator('de')
  t.equal(notificationText(release, tn, catalogueT, 'de'), 'Blender 4.5 ist erschienen')
  t.equal(notificationText(price({ amount: 54.99, currency: 'EUR', period: 'one-time' }, { amount: 9.99, currency: 'EUR', period: 'month' }), tn, catalogueT, 'de'), 'Der Preis von Affinity Photo hat sich von 54,99\u00a0€ auf 9,99\u00a0€ pro Monat geändert')
  t.equal(notificationText(licence, tn, catalogueT, 'de'), 'Die Lizenz von Krita ist jetzt Open Source (vorher Freeware)')
})

t.test('when: relative to the time the page was read', async (t) => {
  const now = '2026-12-06T12:00:00.000Z'
  t.equal(relativeTime('2026-12-06T12:00:00.000Z', now, 'en'), 'now')
  t.equal(relativeTime('2026-12-06T11:58:30.000Z', now, 'en'), '1 minute ago')
  t.equal(relativeTime('2026-12-06T09:00:00.000Z', now, 'en'), '3 hours ago')
  t.equal(relativeTime('2026-12-05T10:00:00.000Z', now, 'en'), 'yesterday')
  t.equal(relativeTime('2026-11-20T12:00:00.000Z', now, 'en'), '2 weeks ago')
  t.equal(relativeTime('2025-10-01T12:00:00.000Z', now, 'en'), 'last year')
  t.equal(relativeTime('2026-12-06T09:00:00.000Z', now, 'ro'), 'acum 3 ore')
})
