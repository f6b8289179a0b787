import fs from 'node:fs'
import path from 'node:path'
import { createElement, type ReactNode } from 'react'
import { renderToString } from 'react-dom/server'
import { I18nextProvider as ServerProvider, useTranslation as useServerTranslation } from 'react-i18next'
import t, { type Test } from 'tap'
import { createI18n } from '../../../client/lib/i18n/i18n.ts'
import { BrowserI18n } from '../../../client/lib/i18n/browser.ts'
import { I18nextProvider as BrowserProvider, useTranslation as useBrowserTranslation } from '../../../client/lib/i18n/react.tsx'
import { loadLocaleCatalog } from '../../../server/bff/locales.ts'
import { LOCALES, NAMESPACES, type Locale } from '../../../shared/locales.ts'
import type { NamespaceResources } from '../../../shared/web/ssr-contract.ts'
import { root } from '../../helpers.ts'

// Decision 031: the server renders with i18next, the browser hydrates with its own small
// runtime over the same resources. Hydration holds only if both write the very same text: every
// key of every namespace of all eight languages, with the values the strings ask for, the plural
// counts 0, 1, 2, 5 and 21 (the languages' categories: one, few, many, other), a context, default
// values, objects and arrays, keys that are missing — through the paths the pages call: a page's
// `t` for its first namespace, `ns:key`, and the instance's `t` with `ns`.

const catalog = loadLocaleCatalog(root)
type Options = Record<string, unknown>
type Translate = (key: string, options?: Options) => unknown

const PLURAL = /_(zero|one|two|few|many|other)$/
const COUNTS = [0, 1, 2, 5, 21]

/** Every key the pages can ask for (plural forms as their base key), every object, and the values the strings name. */
function keysOf(tree: Record<string, unknown>) {
  const leaves = new Map<string, Set<string>>()
  const plurals = new Set<string>()
  const objects: string[] = []
  const walk = (node: unknown, path: string[]) => {
    if (node && typeof node === 'object') {
      if (path.length > 0) objects.push(path.join('.'))
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key])
      return
    }
    const key = path.join('.').replace(PLURAL, '')
    if (key !== path.join('.')) plurals.add(key)
    const names = leaves.get(key) ?? new Set<string>()
    for (const match of String(node).matchAll(/\{\{-?([^}]+)\}\}/g)) names.add(match[1]!.trim())
    leaves.set(key, names)
  }
  walk(tree, [])
  return { leaves, plurals, objects }
}

/** The calls a page makes for one key: plain, with values, with counts (all five for a plural key), a context, a default value. */
function callsFor(names: Set<string>, plural: boolean): Options[] {
  const values: Options = {}
  for (const name of names) values[name] = `«${name}»`
  const calls: Options[] = [{}, values, { defaultValue: 'Default {{x}}', x: 'X' }, { ...values, context: 'formal' }]
  for (const count of plural ? COUNTS : [2]) calls.push({ ...values, count }, { count, context: 'formal', defaultValue_one: 'one {{count}}', defaultValue_other: 'other {{count}}' })
  // A value that itself looks like a placeholder stays as given.
  if (names.size > 0) calls.push(Object.fromEntries([...names].map((name) => [name, `{{${name}}}`])))
  return calls
}

function compare(t: Test, locale: Locale, resources: NamespaceResources) {
  const server = createI18n({ locale, resources, namespaces: [...NAMESPACES] })
  const browser = new BrowserI18n({ locale, resources, namespaces: [...NAMESPACES] })
  const mismatches: string[] = []
  let compared = 0
  const check = (what: string, a: Translate, b: Translate, key: string, options?: Options) => {
    const expected = a(key, options && { ...options })
    const actual = b(key, options && { ...options })
    compared++
    if (JSON.stringify(actual) !== JSON.stringify(expected) && mismatches.length < 20) {
      mismatches.push(`${locale} ${what} t(${JSON.stringify(key)}, ${JSON.stringify(options)}): i18next ${JSON.stringify(expected)}, browser ${JSON.stringify(actual)}`)
    }
  }
  for (const ns of NAMESPACES) {
    const { leaves, plurals, objects } = keysOf(resources[ns] ?? {})
    // As react-i18next's useTranslation([ns, 'common']) makes it: the first namespace, fixed.
    const serverPage = server.getFixedT(locale, ns) as unknown as Translate
    const browserPage = browser.getFixedT(locale, ns) as Translate
    const serverCommon = server.getFixedT(locale, 'common') as unknown as Translate
    const browserCommon = browser.getFixedT(locale, 'common') as Translate
    const serverT = server.t.bind(server) as unknown as Translate
    const browserT = browser.t as Translate
    for (const [key, names] of leaves) {
      const calls = callsFor(names, plurals.has(key))
      for (const options of calls) check(`${ns} page`, serverPage, browserPage, key, options)
      // The other two paths differ only in how the namespace is found.
      for (const options of [calls[1], calls[4]]) {
        check('common page, ns:key', serverCommon, browserCommon, `${ns}:${key}`, options)
        check('instance, ns option', serverT, browserT, key, { ...options, ns })
      }
    }
    for (const key of objects) {
      check(`${ns} object`, serverPage, browserPage, key, { returnObjects: true, operator: 'Op', contactEmail: 'a@b.c', count: 2 })
      check(`${ns} object without returnObjects`, serverPage, browserPage, key, {})
      check(`${ns} object`, serverCommon, browserCommon, `${ns}:${key}`, { returnObjects: true })
    }
    for (const key of ['missing', 'missing.deeper', `${[...leaves.keys()][0]}.below`, 'sentence, with: colon']) {
      for (const options of [{}, { defaultValue: 'Default' }, { count: 2, defaultValue_other: '{{count}} others' }, { defaultValue: { a: 'x' }, returnObjects: true }]) {
        check(`${ns} missing`, serverPage, browserPage, key, options)
      }
    }
  }
  t.same(mismatches, [], `${locale}: the browser writes what i18next writes`)
  return compared
}

t.test('every key of every namespace in all eight languages: the browser writes what i18next writes', async (t) => {
  let compared = 0
  for (const locale of LOCALES) compared += compare(t, locale, catalog.resources[locale])
  // The comparison reaches every key: thousands per language.
  t.ok(compared > LOCALES.length * 10_000, `${compared} translations compared`)
})

t.test('the comparison sees plural forms, values and objects at work', async (t) => {
  const browser = new BrowserI18n({ locale: 'cs', resources: catalog.resources.cs, namespaces: [...NAMESPACES] })
  const legal = browser.getFixedT('cs', 'legal')('terms.sections', { returnObjects: true, operator: 'Softshelf s.r.o.' }) as Record<string, unknown>
  t.match(JSON.stringify(legal), /Softshelf s\.r\.o\./, 'values reach the strings inside returned objects')
  t.notMatch(JSON.stringify(legal), /\{\{operator\}\}/)
  const files = browser.getFixedT('cs', 'files')
  const plural = [...keysOf(catalog.resources.cs.files ?? {}).leaves.keys()].find((key) => files(`${key}_few`) !== `${key}_few`)
  t.ok(plural, 'Czech has a key with a "few" form')
  const forms = new Set(COUNTS.map((count) => files(plural!, { count })))
  t.ok(forms.size >= 3, `one, few and many/other differ: ${[...forms].join(' | ')}`)
})

t.test('edge cases of interpolation and lookup agree with i18next', async (t) => {
  const resources: NamespaceResources = {
    common: {
      both: '{{raw}} and {{ spaced }} and {{raw}}',
      nested: 'Hi {{user.name}}, {{user.missing}}',
      repeat: '{{a}}{{a}}{{b}}',
      list: ['one {{x}}', 'two', { item: 'three {{x}}' }],
      empty: '',
      ctx: 'neutral',
      ctx_formal: 'formal {{name}}',
      ctx_formal_one: 'formal one',
      thing_zero: 'nothing',
      thing_one: 'one thing',
      thing_other: '{{count}} things',
    },
    other: { only: 'in other', ctx: 'other ns' },
  }
  const server = createI18n({ locale: 'en', resources, namespaces: ['common', 'other'] })
  const browser = new BrowserI18n({ locale: 'en', resources, namespaces: ['common', 'other'] })
  const cases: [string, Options | string | undefined][] = [
    ['both', { raw: '<b>{{spaced}}</b>', spaced: 'S' }],
    ['both', { raw: '{{raw}}' }],
    ['both', {}],
    ['nested', { user: { name: 'Ann' } }],
    ['repeat', { a: 1, b: null }],
    ['repeat', { a: { toString: () => 'obj' }, b: undefined }],
    ['repeat', { replace: { a: 'R' }, a: 'ignored' }],
    ['list', { returnObjects: true, x: 'X' }],
    ['list.2.item', { x: 'X' }],
    ['list', undefined],
    ['empty', { defaultValue: 'not used' }],
    ['ctx', { context: 'formal', name: 'N' }],
    ['ctx', { context: 'formal', count: 1 }],
    ['ctx', { context: 'formal', count: 2, name: 'N' }],
    ['ctx', { context: '' }],
    ['ctx', { context: 'unknown' }],
    ['thing', { count: 0 }],
    ['thing', { count: 1 }],
    ['thing', { count: 7 }],
    ['thing', { count: '7' }],
    ['only', { ns: ['common', 'other'] }],
    ['ctx', { ns: ['other', 'common'] }],
    ['other:only', undefined],
    ['other:missing', undefined],
    ['a:b:c', undefined],
    ['Is this a sentence: yes?', undefined],
    ['missing', 'a default given as a string'],
    ['missing', { count: 0, defaultValue_zero: 'zero default', defaultValue_other: 'other default' }],
    ['missing', { lng: 'de', defaultValue: 'x' }],
  ]
  for (const [key, options] of cases) {
    const copy = () => (typeof options === 'object' ? { ...options } : options)
    t.same(browser.t(key, copy() as never), server.t(key, copy() as never), `t(${JSON.stringify(key)}, ${JSON.stringify(options)})`)
  }
})

// What the runtime leaves out (client/lib/i18n/browser.ts): i18next would treat it otherwise, so
// neither the resources nor the browser's code may use it.
t.test('the resources and the code use nothing the browser runtime leaves out', async (t) => {
  const found: string[] = []
  const walk = (node: unknown, path: string) => {
    if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key.includes('.')) found.push(`${path}: a key with a dot, "${key}"`)
        if (/_ordinal_/.test(key)) found.push(`${path}.${key}: an ordinal plural`)
        walk(value, `${path}.${key}`)
      }
    } else if (typeof node === 'string') {
      if (/\{\{-/.test(node)) found.push(`${path}: {{-value}}`)
      if (/\$t\(/.test(node)) found.push(`${path}: nesting $t(…)`)
      if (/\{\{[^}]*,[^}]*\}\}/.test(node)) found.push(`${path}: a format {{value, format}}`)
    }
  }
  for (const locale of LOCALES) for (const ns of NAMESPACES) walk(catalog.resources[locale][ns], `${locale}/${ns}`)
  const source = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? source(path.join(dir, entry.name)) : /\.tsx?$/.test(entry.name) ? [path.join(dir, entry.name)] : []))
  for (const file of source('client')) {
    if (file.endsWith(path.join('lib', 'i18n-browser.ts'))) continue
    if (/\bordinal\s*:/.test(fs.readFileSync(path.join(root, file), 'utf8'))) found.push(`${file}: t(…, { ordinal })`)
  }
  t.same(found, [])
})

t.test('switching the language fetches every namespace the tab has, then tells its listeners', async (t) => {
  const fetched: string[] = []
  const fetchJson = async (url: string) => {
    fetched.push(url)
    const [, , hash, lng, file] = url.split('/')
    const body = hash === catalog.hash ? catalog.files.get(`${lng}/${file!.replace(/\.json$/, '')}`) : undefined
    if (body === undefined) throw new Error(`${url}: 404`)
    return JSON.parse(body) as unknown
  }
  const i18n = new BrowserI18n({ locale: 'en', resources: { common: catalog.resources.en.common!, home: catalog.resources.en.home! }, namespaces: ['common', 'home'], localesHash: catalog.hash, fetchJson })
  t.ok(i18n.hasLoadedNamespace('home'))
  t.notOk(i18n.hasLoadedNamespace('catalogue'), 'a namespace the page did not bring is not there yet')
  await i18n.loadNamespaces(['catalogue', 'home'])
  t.same(fetched, [`/locales/${catalog.hash}/en/catalogue.json`], 'only what the tab lacks is fetched')
  const heard: string[] = []
  const listener = (language: string) => heard.push(`${language}:${i18n.t('catalogue:title', { defaultValue: '' }) === '' ? 'none' : 'some'}`)
  i18n.on('languageChanged', listener)
  const switching = i18n.changeLanguage('de')
  t.equal(i18n.language, 'en', 'the language stays until the new one is there')
  await switching
  t.equal(i18n.language, 'de')
  t.same(fetched.slice(1).sort(), ['common', 'home', 'catalogue'].map((ns) => `/locales/${catalog.hash}/de/${ns}.json`).sort(), 'each namespace the tab has, in German')
  t.equal(heard.length, 1, 'listeners hear of it once')
  const server = createI18n({ locale: 'de', resources: catalog.resources.de, namespaces: [...NAMESPACES] })
  t.equal(i18n.getFixedT('de', 'home')('hero.title'), server.getFixedT('de', 'home')('hero.title'))
  i18n.off('languageChanged', listener)
  await i18n.changeLanguage('cs')
  t.equal(heard.length, 1, 'a listener that left hears nothing')
  // A namespace that cannot be fetched stays missing: its keys show, and asking again tries again.
  const broken = new BrowserI18n({ locale: 'en', resources: {}, namespaces: [], localesHash: 'stale', fetchJson })
  await broken.loadNamespaces(['files'])
  t.notOk(broken.hasLoadedNamespace('files'))
  t.equal(broken.getFixedT('en', 'files')('drive.title'), 'drive.title')
  const before = fetched.length
  await broken.loadNamespaces(['files'])
  t.equal(fetched.length, before + 1)
})

t.test('a component renders the same HTML with react-i18next on the server and the browser runtime', async (t) => {
  function Page(props: { useTranslation: (ns?: string | readonly string[]) => { t: Translate; i18n: { language: string } } }): ReactNode {
    const { t: tc, i18n } = props.useTranslation(['catalogue', 'common'])
    const { t: common } = props.useTranslation()
    return createElement(
      'main',
      { lang: i18n.language },
      createElement('h1', null, tc('common:nav.skipToContent') as string),
      createElement('p', null, tc('results', { count: 5 }) as string),
      createElement('p', null, common('language.label') as string),
    )
  }
  for (const locale of LOCALES) {
    const resources = catalog.resources[locale]
    const server = renderToString(createElement(ServerProvider, { i18n: createI18n({ locale, resources, namespaces: [...NAMESPACES] }) }, createElement(Page, { useTranslation: useServerTranslation as never })))
    const browser = renderToString(createElement(BrowserProvider, { i18n: new BrowserI18n({ locale, resources, namespaces: [...NAMESPACES] }) }, createElement(Page, { useTranslation: useBrowserTranslation as never })))
    t.equal(browser, server, locale)
    t.match(server, /<p>[^<]+<\/p>/)
  }
})
