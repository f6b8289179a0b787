import t from 'tap'
import type { EditorProgram } from '../../shared/catalogue/program-editor.ts'
import { changesOf, draftOf, emptyDraft, errorTarget, mergeDrafts, partsChanged, writtenOf } from '../../client/pages/operator/program-draft.ts'

// The console's editor sends only what changed, on top of the revision it opened, and
// after a conflict keeps the editor's own changes over the other editor's revision.

const PROGRAM: EditorProgram = {
  id: 'kritzel',
  name: 'Kritzel',
  developer: { id: 'kritzel-werkstatt', name: 'Kritzel Werkstatt' },
  publisher: { id: 'kritzel-werkstatt', name: 'Kritzel Werkstatt' },
  licenseType: 'commercial',
  price: { amount: 49.5, currency: 'EUR', period: 'one-time' },
  categories: ['graphics', '3d'],
  platforms: ['windows'],
  languages: ['de', 'en'],
  version: '2.1',
  updated: '2026-11',
  released: '2019',
  homepage: 'https://kritzel.example/',
  texts: { en: { summary: 'Sketch.', description: 'Sketching.' }, de: { summary: 'Skizzieren.', description: 'Skizzieren auf Papier.' } },
  revision: 4,
  retired: false,
  retiredAt: null,
  externalIds: { flathub: 'example.kritzel.Kritzel', homebrew: 'kritzel' },
}

t.test('a draft read back unchanged is the program as written, and changes nothing', async (t) => {
  const draft = draftOf(PROGRAM)
  const { id: _id, revision: _revision, retired: _retired, retiredAt: _retiredAt, ...written } = PROGRAM
  t.same(writtenOf(draft), written)
  t.same(changesOf(draft, draftOf(PROGRAM)), {})
})

t.test('issue 29: external ids as typed — trimmed, an emptied one left out, a change sends the whole set', async (t) => {
  const base = draftOf(PROGRAM)
  t.same(base.externalIds, { flathub: 'example.kritzel.Kritzel', winget: '', homebrew: 'kritzel' })
  const edited = { ...base, externalIds: { flathub: '', winget: ' Kritzel.Kritzel ', homebrew: 'kritzel' } }
  t.same(changesOf(base, edited), { externalIds: { winget: 'Kritzel.Kritzel', homebrew: 'kritzel' } })
  t.same(partsChanged(base, edited), ['externalIds'])
  t.same(writtenOf(emptyDraft()).externalIds, {}, 'a new program: none')
  t.equal(errorTarget('externalIds.winget'), 'externalIds.winget', "an error names the catalogue's input")
})

t.test('only the changed fields: texts by language, an emptied language removed, a renamed developer without its old id', async (t) => {
  const base = draftOf(PROGRAM)
  const edited = { ...base, version: ' 2.2 ', developer: 'Kritzel GmbH', texts: { ...base.texts, de: { summary: '', description: '' }, es: { summary: 'Dibujar.', description: 'Dibujar en papel.' } } }
  t.same(changesOf(base, edited), {
    developer: { name: 'Kritzel GmbH' },
    version: '2.2',
    texts: { de: null, es: { summary: 'Dibujar.', description: 'Dibujar en papel.' } },
  })
})

t.test('a free licence has no price; a price typed with a comma is a number', async (t) => {
  const base = draftOf(PROGRAM)
  t.same(changesOf(base, { ...base, licenseType: 'freeware' }), { licenseType: 'freeware', price: null })
  t.same(changesOf(base, { ...base, priceAmount: '12,50' }), { price: { amount: 12.5, currency: 'EUR', period: 'one-time' } })
  t.ok(Number.isNaN(writtenOf({ ...emptyDraft(), licenseType: 'trial', priceAmount: '' }).price?.amount), 'an empty amount is refused, not zero')
})

t.test('after a conflict: theirs, with mine on top, so saving again sends only mine', async (t) => {
  const base = draftOf(PROGRAM)
  const mine = { ...base, version: '2.2', texts: { ...base.texts, de: { summary: 'Zeichnen.', description: 'Zeichnen auf Papier.' } } }
  const theirs = draftOf({ ...PROGRAM, revision: 5, name: 'Kritzel Pro', homepage: 'https://kritzel.example/pro' })
  const merged = mergeDrafts(base, mine, theirs)
  t.equal(merged.name, 'Kritzel Pro', 'their name kept')
  t.equal(merged.homepage, 'https://kritzel.example/pro')
  t.equal(merged.version, '2.2', 'my version kept')
  t.same(merged.texts.de, { summary: 'Zeichnen.', description: 'Zeichnen auf Papier.' })
  t.same(changesOf(theirs, merged), { version: '2.2', texts: { de: { summary: 'Zeichnen.', description: 'Zeichnen auf Papier.' } } })
  t.same(partsChanged(base, mine), ['version', 'texts.de'])
})

t.test('an error the API names lands on its input', async (t) => {
  t.equal(errorTarget('texts.de.summary'), 'texts.de.summary')
  t.equal(errorTarget('texts.de'), 'texts.de.summary')
  t.equal(errorTarget('categories[1]'), 'categories')
  t.equal(errorTarget('developer.name'), 'developer')
  t.equal(errorTarget('price'), 'price.amount')
  t.equal(errorTarget('price.currency'), 'price.currency')
  t.equal(errorTarget('homepage'), 'homepage')
})
