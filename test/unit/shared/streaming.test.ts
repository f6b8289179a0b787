import t from 'tap'
import { KEYBOARD_LAYOUTS, defaultLayoutFor, isKeyboardLayout, suggestRegion } from '../../../shared/streaming.ts'
import { LOCALES } from '../../../shared/locales.ts'

t.test('the layout list: unique ids, a default for every interface language', async (t) => {
  t.equal(new Set(KEYBOARD_LAYOUTS.map((layout) => layout.id)).size, KEYBOARD_LAYOUTS.length)
  for (const locale of LOCALES) t.ok(isKeyboardLayout(defaultLayoutFor(locale)), locale)
  t.equal(defaultLayoutFor('de'), 'de-DE')
  t.equal(defaultLayoutFor('xx'), 'en-US')
  t.notOk(isKeyboardLayout('de'))
})

t.test('the nearest region: from the time zone, else the language\'s country; one with room first', async (t) => {
  const regions = [
    { id: 'us-east', free: 3 },
    { id: 'eu-central', free: 0 },
    { id: 'eu-west', free: 2 },
    { id: 'ap-southeast', free: 1 },
  ]
  t.equal(suggestRegion(regions, { timeZone: 'Europe/Bratislava', languages: ['en-US'] }), 'eu-west', 'the time zone wins; a full region is passed over')
  t.equal(suggestRegion(regions, { timeZone: 'America/Chicago' }), 'us-east')
  t.equal(suggestRegion(regions, { timeZone: 'Asia/Tokyo' }), 'ap-southeast')
  t.equal(suggestRegion(regions, { languages: ['de-AT'] }), 'eu-west')
  t.equal(suggestRegion(regions, { languages: ['cs'] }), 'eu-west')
  t.equal(suggestRegion(regions, { timeZone: 'UTC', languages: ['de', 'en-US'] }), 'eu-west', 'the page\'s language before the browser\'s')
  t.equal(suggestRegion(regions, { timeZone: 'UTC', languages: ['en'] }), 'us-east', 'nothing known: the first with room')
  t.equal(suggestRegion([{ id: 'eu-central', free: 0 }], { timeZone: 'America/Chicago' }), 'eu-central')
  t.equal(suggestRegion([], {}), undefined)
})

t.test('every layout has a name in every interface language, and error codes a translation', async (t) => {
  const fs = await import('node:fs')
  for (const locale of LOCALES) {
    const bundle = JSON.parse(fs.readFileSync(new URL(`../../../locales/${locale}/streaming.json`, import.meta.url), 'utf8')) as { layouts: Record<string, string> }
    t.same(Object.keys(bundle.layouts).sort(), KEYBOARD_LAYOUTS.map((layout) => layout.id).sort(), locale)
  }
})
