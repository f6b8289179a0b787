import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import {
  ACCOUNT_DISABLED_MESSAGE,
  ERROR_PAGE_DEFAULT_CAUSE,
  ERROR_PAGE_DEFAULT_STATUS_MESSAGE,
  TOAST_DEFAULT_BUTTON_TEXT,
} from '../../shared/constants.ts'
import { CATEGORY_NAMES_EN, LICENSE_TYPE_NAMES_EN } from '../../shared/catalogue/catalogue.ts'
import { LOCALES, NAMESPACES, SERVER_NAMESPACES } from '../../shared/locales.ts'
import { root } from '../helpers.ts'

// DESIGN.md §4.7: every locale has the same key set, and translations are real translations.

type Tree = Record<string, unknown>

function flatten(tree: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof tree === 'string') out.set(prefix, tree)
  else if (Array.isArray(tree)) tree.forEach((value, index) => flatten(value, `${prefix}.${index}`, out))
  else if (tree && typeof tree === 'object') for (const [key, value] of Object.entries(tree)) flatten(value, prefix ? `${prefix}.${key}` : key, out)
  return out
}

function read(lng: string, ns: string): Tree {
  return JSON.parse(fs.readFileSync(path.join(root, 'locales', lng, `${ns}.json`), 'utf8')) as Tree
}

const placeholders = (value: string) => [...value.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort()

const PLURAL = /_(zero|one|two|few|many|other)$/

/** Keys with i18next plural suffixes folded into their base: languages have different plural forms. */
function baseKeys(keys: Iterable<string>): string[] {
  return [...new Set([...keys].map((key) => key.replace(PLURAL, '')))].sort()
}

/** The English key a translated key corresponds to (plural forms map to English's `_other`). */
function englishKey(key: string, english: Map<string, string>): string | undefined {
  if (english.has(key)) return key
  const base = key.replace(PLURAL, '')
  return base !== key && english.has(`${base}_other`) ? `${base}_other` : undefined
}

/** Values that are the same in English by nature: fixed spec strings, names, symbols. */
const SAME_AS_ENGLISH = new Set([
  'common:errors.errorApiRequest', // spec §8 text, shown as is
  'common:categories.3d',
  'common:footer.copyright',
  'es:common:errors.other.title', // "Error" is Spanish too
  'de:common:footer.version', // "Version" is German too
  'hu:catalogue:filters.platform', // "Platform" is Hungarian too
  'de:catalogue:releases.version', // "Version 4.5" too (issue 29)
  'de:common:categories.simulation',
  // The operator console's role names that are the same word in these languages.
  'es:operator:shell.roles.editor',
  'ro:operator:shell.roles.admin',
  'ro:operator:shell.roles.editor',
  'pl:operator:shell.roles.admin',
  'de:operator:shell.roles.admin',
  'de:operator:shell.roles.support',
  'es:operator:accounts.no', // "No" and "Roles" are Spanish too
  'es:operator:accounts.fields.roles',
  'es:operator:accounts.roles.heading',
  // The console's programs: "program" (one), "Public", "Licence", "Name", "Version" and "Revision" are these languages' own words.
  ...['sk', 'ro', 'pl', 'hu', 'cs'].map((lng) => `${lng}:operator:programs.count_one`),
  'ro:operator:programs.public',
  'cs:operator:programs.columns.licenseType',
  ...['columns.name', 'columns.version', 'fields.name', 'fields.version', 'editor.revision', 'revisions.entry', 'media.screenshot'].map((key) => `de:operator:programs.${key}`),
  // Catalogue: loanwords and platform names that the languages use as they are.
  'catalogue:program.price',
  'catalogue:platforms.windows',
  'catalogue:platforms.macos',
  'catalogue:platforms.linux',
  'catalogue:platforms.web',
  'catalogue:licenseTypes.freemium',
  ...['de', 'pl', 'cs', 'sk', 'ro', 'hu'].map((lng) => `${lng}:catalogue:licenseTypes.freeware`),
  ...['pl', 'cs', 'sk'].map((lng) => `${lng}:catalogue:licenseTypes.open-source`),
  ...['pl', 'cs', 'sk', 'ro', 'hu'].map((lng) => `${lng}:catalogue:results.count_one`),
  'hu:catalogue:results.count_other',
  'de:catalogue:program.version',
  'de:catalogue:program.details',
  'de:catalogue:organisation.website',
  'cs:catalogue:program.licenseType',
  'email:footer', // the operator's name, a dash and the tagline are set per language below
  // The drive: a progress figure is a number and a sign in every language; "Name" is German too.
  // Streaming: "Program", "Region" and "Cluster" are these languages' own words too.
  ...['sk', 'ro', 'pl', 'hu', 'cs'].flatMap((lng) => [`${lng}:streaming:form.program`, `${lng}:streaming:assignment.program`]),
  ...['pl', 'de', 'cs'].flatMap((lng) => [`${lng}:streaming:form.region`, `${lng}:streaming:assignment.region`]),
  ...['ro', 'de', 'cs'].map((lng) => `${lng}:streaming:assignment.cluster`),
  'files:upload.progress',
  'files:upload.status.uploading',
  'de:files:list.name',
  // The phone header's menu button; Polish interfaces call it "Menu" too. "2 active"
  // (filters in use) is Romanian as well.
  'pl:common:nav.menu',
  'ro:catalogue:filters.active_few',
])

for (const ns of [...NAMESPACES, ...SERVER_NAMESPACES]) {
  const english = flatten(read('en', ns))
  for (const lng of LOCALES.filter((l) => l !== 'en')) {
    t.test(`${lng}/${ns}.json matches English`, async (t) => {
      const file = path.join(root, 'locales', lng, `${ns}.json`)
      t.ok(fs.existsSync(file), 'exists')
      const other = flatten(read(lng, ns))
      t.same(baseKeys(other.keys()), baseKeys(english.keys()), 'same keys')
      // Every plural family has exactly the forms this language's plural rules use.
      const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories.sort()
      for (const base of baseKeys(english.keys()).filter((key) => english.has(`${key}_other`))) {
        const forms = [...other.keys()].filter((key) => key.replace(PLURAL, '') === base && PLURAL.test(key)).map((key) => PLURAL.exec(key)![1]!)
        t.same(forms.sort(), categories, `plural forms of ${base}`)
      }
      const copies: string[] = []
      for (const [key, translated] of other) {
        const source = englishKey(key, english)
        if (source === undefined) continue
        const value = english.get(source)!
        t.same(placeholders(translated), placeholders(value), `placeholders of ${key}`)
        if (translated === value && !SAME_AS_ENGLISH.has(`${ns}:${key}`) && !SAME_AS_ENGLISH.has(`${lng}:${ns}:${key}`)) copies.push(key)
      }
      t.same(copies, [], 'no English copies')
    })
  }
}

t.test('the English texts are the spec\'s texts', async (t) => {
  const common = flatten(read('en', 'common'))
  t.equal(common.get('errors.notFound.title'), ERROR_PAGE_DEFAULT_STATUS_MESSAGE)
  t.equal(common.get('errors.notFound.cause'), ERROR_PAGE_DEFAULT_CAUSE)
  t.equal(common.get('toast.close'), TOAST_DEFAULT_BUTTON_TEXT)
  t.equal(common.get('errors.errorApiRequest'), 'error API request')
  t.equal(common.get('errors.accountDisabled.message'), ACCOUNT_DISABLED_MESSAGE)
  const auth = flatten(read('en', 'auth'))
  // Spec §5: the sign-up rewrite; spec §8: the TOTP failures. (The external sign-in's checks are
  // shown in the SDK's own English words beside the visitor's language: test/e2e.)
  t.equal(auth.get('welcome.emailExists'), 'This email already exists. Please log in.')
  t.equal(auth.get('mfa.mustBeLoggedIn'), 'User must be logged in')
  t.equal(auth.get('mfa.cannotCreate'), 'Unable to create TOTP device')
  t.equal(auth.get('mfa.cannotVerify'), 'Unable to verify TOTP code')
})

t.test('the English names in page titles are the names the English interface shows', async (t) => {
  const { all: _all, ...categories } = (read('en', 'common') as { categories: Record<string, string> }).categories
  t.same(CATEGORY_NAMES_EN, categories)
  t.same(LICENSE_TYPE_NAMES_EN, (read('en', 'catalogue') as { licenseTypes: Record<string, string> }).licenseTypes)
})
