import t from 'tap'
import type { ProgramAsWritten } from '../../../shared/catalogue/program-editor.ts'
import { buildStack, operatorTab, signedInTab, type browser } from '../../helpers.ts'

// The console's programs pages render on the server through the BFF for an editor —
// the list (search, paging, the retired mark), the editor (a tab per language that says which
// texts are missing) and the revisions (who, what changed, a revert). Anyone whose roles do not
// read the catalogue never sees them.

type Tab = ReturnType<typeof browser>

const html = async (tab: Tab, url: string, lang?: string) => {
  const response = await tab.get(url, { accept: 'text/html', ...(lang ? { cookie: `${tab.jar.header('/')}; lang=${lang}` } : {}) })
  return { status: response.statusCode, body: response.body }
}

const PROGRAM: ProgramAsWritten = {
  name: 'Zeichenbrett',
  developer: { name: 'Brett Werkstatt' },
  publisher: { name: 'Brett Werkstatt' },
  licenseType: 'subscription',
  price: { amount: 4.5, currency: 'EUR', period: 'month' },
  categories: ['graphics'],
  platforms: ['web'],
  languages: ['de', 'en'],
  version: '1.0',
  updated: '2026-11',
  released: '2026',
  homepage: 'https://zeichenbrett.example/',
  texts: {
    en: { summary: 'A drawing board in the browser.', description: 'Draw together in the browser.' },
    de: { summary: 'Ein Zeichenbrett im Browser.', description: 'Gemeinsam im Browser zeichnen.' },
  },
}

t.test('the programs pages of the console, rendered by the BFF', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const editor = await operatorTab(stack, 'ed@example.com', ['editor'])
  const created = await editor.post('/api/operator/programs', PROGRAM)
  t.equal(created.statusCode, 201, created.body)
  const { id } = created.json() as { id: string }

  t.test('the list: a table of programs, a search, the new-program link; in German too', async (t) => {
    const all = await html(editor, '/@/operator/programs')
    t.equal(all.status, 200)
    t.match(all.body, /<h1[^>]*>Programs<\/h1>/)
    t.match(all.body, /href="\/@\/operator\/programs\/new"[^>]*>New program</)
    t.match(all.body, /<table class="operator-table"/)
    t.match(all.body, /href="\/@\/operator\/programs\/blender"[^>]*>Blender</, 'a program of the seed')
    t.match(all.body, /aria-label="Pages"/, 'the seed is more than a page')
    t.match(all.body, /href="\/@\/operator"[^>]*>Operator console<[\s\S]*href="\/@\/operator\/programs"[^>]*>Programs</, 'the console nav links the section')

    const found = await html(editor, '/@/operator/programs?q=zeichen')
    t.match(found.body, /1 program</)
    t.match(found.body, new RegExp(`href="/@/operator/programs/${id}"[^>]*>Zeichenbrett<`))
    t.notMatch(found.body, />Blender</, 'only what the search finds')
    t.match(found.body, /value="zeichen"/, 'the search box keeps the query')

    const nothing = await html(editor, '/@/operator/programs?q=no-such-thing-anywhere')
    t.match(nothing.body, /No program matches this search/)

    const german = await html(editor, '/@/operator/programs?q=zeichen', 'de')
    t.match(german.body, /<h1[^>]*>Programme<\/h1>/)
    t.match(german.body, /Abonnement/, 'the licence type in German')
  })

  t.test('the editor of a program: its values, a tab per language saying which texts are missing, the revisions', async (t) => {
    const changed = await editor.send('PATCH', `/api/operator/programs/${id}`, { baseRevision: 1, version: '1.1' })
    t.equal(changed.statusCode, 200, changed.body)

    const page = await html(editor, `/@/operator/programs/${id}`)
    t.equal(page.status, 200)
    t.match(page.body, /<h1[^>]*>Edit Zeichenbrett<\/h1>/)
    t.match(page.body, /Revision 2/)
    t.match(page.body, /id="program-name"[^>]*value="Zeichenbrett"|value="Zeichenbrett"[^>]*id="program-name"/)
    t.match(page.body, /role="tablist"/)
    t.equal(page.body.match(/role="tab"/g)?.length, 8, 'a tab per language')
    t.match(page.body, /id="program-tab-de"[^>]*>(?:(?!<\/button>).)*Deutsch<\/span><\/button>/, 'German is written: no mark')
    t.match(page.body, /id="program-tab-es"[^>]*>(?:(?!<\/button>).)*missing/, 'Spanish is missing')
    t.match(page.body, /id="program-price-amount"/, 'a paid licence has a price')
    t.match(page.body, /<h2[^>]*>Revisions<\/h2>/)
    t.match(page.body, /ed@example\.com/, 'who made a revision')
    t.match(page.body, /Version:<\/span> <del>1\.0<\/del> <span aria-hidden="true">→<\/span> <ins>1\.1<\/ins>/, 'what changed')
    t.match(page.body, /<h2[^>]*>Logo and screenshots<\/h2>/)
    t.match(page.body, /No logo is uploaded: the generated mark is shown/)
    t.match(page.body, new RegExp(`src="/logos/${id}\\.svg"`), 'the generated mark')
    t.match(page.body, /Screenshots \(0 of 8\)/)
    t.match(page.body, /aria-label="Revert to revision 1"/, 'an earlier revision can be restored')
    t.notMatch(page.body, /aria-label="Revert to revision 2"/, 'not the current one')

    const german = await html(editor, `/@/operator/programs/${id}`, 'de')
    t.match(german.body, /Revisionen/)
    t.match(german.body, /id="program-tab-es"[^>]*>(?:(?!<\/button>).)*fehlt/, 'missing, in German')
  })

  t.test('a new program: an empty form, English required', async (t) => {
    const page = await html(editor, '/@/operator/programs/new')
    t.equal(page.status, 200)
    t.match(page.body, /<h1[^>]*>New program<\/h1>/)
    t.match(page.body, /id="program-tab-en"[^>]*>(?:(?!<\/button>).)*required/)
    t.match(page.body, />Add program<\/button>/)
    t.notMatch(page.body, /id="program-price-amount"/, 'a free licence (the default) has no price')
  })

  t.test('a retired program is marked in the list and in its editor; an unknown one is the 404 page', async (t) => {
    const retired = await editor.send('DELETE', `/api/operator/programs/${id}`)
    t.equal(retired.statusCode, 200, retired.body)
    const list = await html(editor, `/@/operator/programs?q=${id}`)
    t.match(list.body, /class="operator-row-retired"[\s\S]*>Retired</)
    const page = await html(editor, `/@/operator/programs/${id}`)
    t.match(page.body, /This program is retired/)
    t.notMatch(page.body, />Retire program</, 'nothing left to retire')
    const missing = await html(editor, '/@/operator/programs/no-such-program')
    t.equal(missing.status, 404)
  })

  t.test('support (no catalogue permission) is refused; a user without a role gets the 404 page', async (t) => {
    const support = await operatorTab(stack, 'sue@example.com', ['support'])
    for (const url of ['/@/operator/programs', '/@/operator/programs/blender', '/@/operator/programs/new']) {
      const page = await html(support, url)
      t.not(page.status, 200, url)
      t.notMatch(page.body, /<h1[^>]*>(Programs|Edit Blender|New program)<\/h1>/, `${url}: not the page`)
    }
    t.notMatch((await html(support, '/@/operator')).body, /href="\/@\/operator\/programs"/, 'no Programs in the nav')
    const plain = await signedInTab(stack, 'pat@example.com')
    for (const url of ['/@/operator/programs', '/@/operator/programs/blender']) t.equal((await html(plain, url)).status, 404, url)
  })
})
