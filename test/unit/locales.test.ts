import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { LOCALES, NAMESPACES } from '../../shared/locales.ts'
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

/** Values that are the same in English by nature: fixed spec strings, names, symbols. */
const SAME_AS_ENGLISH = new Set([
  'common:errors.errorApiRequest', // spec §8 text, shown as is
  'common:categories.3d',
  'common:footer.copyright',
  'es:common:errors.other.title', // "Error" is Spanish too
  'de:common:footer.version', // "Version" is German too
  'de:common:categories.simulation',
])

for (const ns of NAMESPACES) {
  const english = flatten(read('en', ns))
  for (const lng of LOCALES.filter((l) => l !== 'en')) {
    t.test(`${lng}/${ns}.json matches English`, async (t) => {
      const file = path.join(root, 'locales', lng, `${ns}.json`)
      t.ok(fs.existsSync(file), 'exists')
      const other = flatten(read(lng, ns))
      t.same([...other.keys()].sort(), [...english.keys()].sort(), 'same keys')
      const copies: string[] = []
      for (const [key, value] of english) {
        const translated = other.get(key)
        if (translated === undefined) continue
        t.same(placeholders(translated), placeholders(value), `placeholders of ${key}`)
        if (translated === value && !SAME_AS_ENGLISH.has(`${ns}:${key}`) && !SAME_AS_ENGLISH.has(`${lng}:${ns}:${key}`)) copies.push(key)
      }
      t.same(copies, [], 'no English copies')
    })
  }
}
