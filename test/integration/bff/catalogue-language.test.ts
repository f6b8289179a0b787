import t from 'tap'
import { readSeed } from '../../../server/api/catalogue/seed.ts'
import { buildStack, LogCapture, signedInTab } from '../../helpers.ts'

// Program summaries and descriptions in the visitor's language. The BFF passes the
// language on (one of the eight, as Accept-Language) on every page render and proxied call, and
// neither its shared cache of catalogue answers nor its page cache hands one language's texts to
// a visitor of another.

// A German text of the test's own: the assertions do not depend on the seed's translation texts.
const GERMAN = {
  summary: 'Freie 3D-Suite für Modellierung, Animation und Rendering — Fassung dieses Tests.',
  description: 'Blender deckt in dieser Testfassung die ganze 3D-Pipeline ab, vom Modellieren bis zum Rendern.',
}

t.test('program texts in the visitor\'s language, through pages and the proxy', async (t) => {
  const apiLog = new LogCapture()
  const stack = await buildStack(t, { auth: true, env: { LOG_LEVEL: 'info' }, apiLogStream: apiLog })
  const { bff, db } = stack
  await db.query(
    `INSERT INTO api.program_translations (program_id, locale, summary, description) VALUES ('blender', 'de', $1, $2)
     ON CONFLICT (program_id, locale) DO UPDATE SET summary = EXCLUDED.summary, description = EXCLUDED.description`,
    [GERMAN.summary, GERMAN.description],
  )
  // Whatever the seed's files translate, gimp has no Hungarian here: the English fallback on a Hungarian page.
  await db.query(`DELETE FROM api.program_translations WHERE program_id = 'gimp' AND locale = 'hu'`)
  const english = new Map(readSeed().programs.map((p) => [p.id, p]))
  const apiCalls = (url: string) => apiLog.lines.filter((line) => line.includes('"request completed"') && line.includes(`"url":"${url}"`)).length
  const escaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

  t.test('a proxied call gets the texts of its language; the shared cache keeps each language apart', async (t) => {
    const url = '/api/programs/blender'
    const german = await bff.inject({ url, headers: { 'accept-language': 'de' } })
    t.equal(german.statusCode, 200)
    t.match(german.json(), { summary: GERMAN.summary, description: GERMAN.description, textLanguage: 'de' })
    t.equal(german.headers['content-language'], 'de')
    t.match(german.headers.vary, /accept-language/i, 'the browser\'s cache is told the answer depends on the language')
    const inEnglish = await bff.inject({ url, headers: { 'accept-language': 'en-US,en;q=0.9' } })
    t.match(inEnglish.json(), { summary: english.get('blender')!.summary, textLanguage: 'en' }, 'no German for an English visitor from the cache')
    t.equal(inEnglish.headers['content-language'], 'en')
    const austrian = await bff.inject({ url, headers: { 'accept-language': 'de-AT,de;q=0.9,en;q=0.5' } })
    t.match(austrian.json(), { summary: GERMAN.summary }, 'de-AT is German')
    t.equal(apiCalls(url), 2, 'one API call per language: the third answer came from the shared cache')
    const compressed = await bff.inject({ url: '/api/programs?pageSize=50', headers: { 'accept-language': 'de', 'accept-encoding': 'gzip' } })
    t.equal(compressed.headers['content-encoding'], 'gzip')
    t.match(compressed.headers.vary, /accept-language/i, 'compression keeps Vary: Accept-Language')
    t.match(compressed.headers.vary, /accept-encoding/i)
  })

  t.test('the program page, its meta description and the listings follow the page\'s language', async (t) => {
    const page = async (url: string, lang: string) => (await bff.inject({ url, headers: { cookie: `lang=${lang}` } })).body
    const description = (html: string) => /<meta name="description" content="([^"]*)">/.exec(html)?.[1]
    const german = await page('/programs/blender', 'de')
    t.match(german, `<p class="program-summary">${escaped(GERMAN.summary)}</p>`)
    t.match(german, `<p>${escaped(GERMAN.description)}</p>`)
    t.equal(description(german), escaped(GERMAN.summary))
    const englishPage = await page('/programs/blender', 'en')
    t.match(englishPage, `<p class="program-summary">${escaped(english.get('blender')!.summary)}</p>`, 'the page cache keeps languages apart too')
    t.equal(description(englishPage), escaped(english.get('blender')!.summary))
    const hungarian = await page('/programs/gimp', 'hu')
    t.match(hungarian, `<p class="program-summary" lang="en">${escaped(english.get('gimp')!.summary)}</p>`, 'an English fallback is marked as English')
    const listing = await page('/library?q=blender', 'de')
    t.match(listing, `<p class="program-card-summary">${escaped(GERMAN.summary)}</p>`, 'search results')
    const category = await page('/category/3d', 'de')
    t.match(category, `<p class="program-card-summary">${escaped(GERMAN.summary)}</p>`, 'listing cards')
  })

  t.test('the signed-in library lists the texts of its language', async (t) => {
    const tab = await signedInTab(stack, 'texts@example.com')
    t.equal((await tab.post('/api/user/program/blender')).statusCode, 200)
    const german = await tab.get('/api/user/programs', { 'accept-language': 'de' })
    t.match(german.json().items, [{ id: 'blender', summary: GERMAN.summary, textLanguage: 'de' }])
    t.equal(german.headers['content-language'], 'de')
    const inEnglish = await tab.get('/api/user/programs', { 'accept-language': 'en' })
    t.match(inEnglish.json().items, [{ id: 'blender', summary: english.get('blender')!.summary, textLanguage: 'en' }])
  })

  t.test('a date shows only what is known of it, in the page\'s language', async (t) => {
    const label = { en: 'First released', de: 'Erstveröffentlichung' }
    const released = async (id: string, lang: 'en' | 'de') => {
      const html = (await bff.inject({ url: `/programs/${id}`, headers: { cookie: `lang=${lang}` } })).body
      return new RegExp(`<dt>${label[lang]}</dt><dd>([^<]*)</dd>`).exec(html)?.[1]
    }
    t.equal(await released('blender', 'en'), '1998', 'the year alone, not "Jan 1, 1998"')
    t.equal(await released('blender', 'de'), '1998')
    t.equal(await released('autodesk-maya', 'en'), 'February 1998')
    t.equal(await released('autodesk-maya', 'de'), 'Februar 1998')
    t.equal(await released('adobe-photoshop', 'en'), 'Feb 19, 1990')
    t.equal(await released('adobe-photoshop', 'de'), '19.02.1990')
  })
})
