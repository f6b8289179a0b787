import t from 'tap'
import { negotiateLocale } from '../../../shared/locales.ts'

t.test('a valid lang cookie wins over Accept-Language', async (t) => {
  t.equal(negotiateLocale('sk', 'de-DE,de;q=0.9'), 'sk')
})

t.test('an invalid cookie is ignored', async (t) => {
  t.equal(negotiateLocale('xx', 'pl'), 'pl')
  t.equal(negotiateLocale('../etc', undefined), 'en')
})

t.test('Accept-Language: q-values, regional tags, unsupported languages', async (t) => {
  t.equal(negotiateLocale(undefined, 'de-AT'), 'de')
  t.equal(negotiateLocale(undefined, 'fr-FR,fr;q=0.9,hu;q=0.8,en;q=0.5'), 'hu')
  t.equal(negotiateLocale(undefined, 'en;q=0.2, cs;q=0.9'), 'cs')
  t.equal(negotiateLocale(undefined, 'ro;q=0, es'), 'es')
  t.equal(negotiateLocale(undefined, 'fr, it'), 'en')
  t.equal(negotiateLocale(undefined, '*'), 'en')
  t.equal(negotiateLocale(undefined, ''), 'en')
  t.equal(negotiateLocale(undefined, 'garbage;;;q=abc,,,'), 'en')
})

t.test('an Accept-Language seen before gives the same language, and hundreds of distinct ones are each still read afresh', async (t) => {
  t.equal(negotiateLocale(undefined, 'de-AT,de;q=0.9,en;q=0.5'), 'de')
  t.equal(negotiateLocale(undefined, 'de-AT,de;q=0.9,en;q=0.5'), 'de', 'the same the second time')
  // More distinct values than the memo keeps (256): every one is still negotiated by its own content.
  for (let i = 0; i < 600; i++) {
    const locale = i % 2 === 0 ? 'sk' : 'pl'
    t.equal(negotiateLocale(undefined, `x-${i};q=0.9,${locale};q=0.8`), locale)
  }
  t.equal(negotiateLocale('cs', 'de'), 'cs', 'the cookie still wins over a value seen before')
  t.equal(negotiateLocale(undefined, 'de'), 'de')
})
