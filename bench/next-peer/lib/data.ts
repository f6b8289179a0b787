// The same data as Softshelf's API (server/api/seed/*.json) and the same English texts
// (locales/en/*.json), read once per process; texts by a plain dictionary lookup.
import fs from 'node:fs'
import path from 'node:path'

export interface Price {
  amount: number
  currency: string
  period?: 'month' | 'year' | null
}

export interface Program {
  id: string
  name: string
  summary: string
  description: string
  developer: string
  publisher: string
  licenseType: string
  price: Price | null
  categories: string[]
  platforms: string[]
  languages: string[]
  homepage: string
  version: string
  released: string
  updated: string
  popularity: number
}

const root = process.env.SOFTSHELF_ROOT ?? path.resolve(process.cwd(), '..', '..')
const seedDir = path.join(root, 'server', 'api', 'seed')

const byName = (a: Program, b: Program) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' })

export const programs: Program[] = fs
  .readdirSync(seedDir)
  .filter((file) => /^programs-\d+\.json$/.test(file))
  .flatMap((file) => JSON.parse(fs.readFileSync(path.join(seedDir, file), 'utf8')) as Program[])
  .sort((a, b) => b.popularity - a.popularity || byName(a, b))

export const programById = new Map(programs.map((program) => [program.id, program]))

type Dictionary = Record<string, unknown>
const dictionaries: Record<string, Dictionary> = Object.fromEntries(
  ['common', 'catalogue'].map((ns) => [ns, JSON.parse(fs.readFileSync(path.join(root, 'locales', 'en', `${ns}.json`), 'utf8')) as Dictionary]),
)

/** `t('catalogue:program.about', { name })`: the English text, `{{name}}` filled in. */
export function t(key: string, values?: Record<string, string | number>): string {
  const [ns, rest] = key.includes(':') ? (key.split(':') as [string, string]) : ['common', key]
  let text: unknown = dictionaries[ns]
  for (const part of rest.split('.')) text = (text as Dictionary | undefined)?.[part]
  let out = typeof text === 'string' ? text : key
  if (values) for (const [name, value] of Object.entries(values)) out = out.replaceAll(`{{${name}}}`, String(value))
  return out
}

export const PAGE_SIZE = 24

/** The footer's version: Softshelf's, as the bench passes it (SOFTSHELF_VERSION), else its package's. */
export const version = process.env.SOFTSHELF_VERSION ?? (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version

const currency = new Map<string, Intl.NumberFormat>()
export function priceText(price: Price | null): string {
  if (!price) return t('catalogue:program.free')
  let format = currency.get(price.currency)
  if (!format) currency.set(price.currency, (format = new Intl.NumberFormat('en', { style: 'currency', currency: price.currency })))
  const formatted = format.format(price.amount)
  return t(price.period === 'month' ? 'catalogue:program.perMonth' : price.period === 'year' ? 'catalogue:program.perYear' : 'catalogue:program.price', { price: formatted })
}

export const dateText = (iso: string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso))
export const languageName = (code: string) => new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code
export const slug = (name: string) => name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')
export const isFree = (program: Program) => program.price === null

/** Programs that share the program's first category, most popular first: the program page's "related". */
export function relatedTo(program: Program): Program[] {
  return programs.filter((other) => other.id !== program.id && other.categories.includes(program.categories[0] ?? '')).slice(0, 6)
}

export const CATEGORIES = ['3d', 'graphics', 'architecture-engineering', 'video-motion', 'game-development', 'data-analytics', 'audio-music', 'productivity', 'publishing', 'simulation']
export const LOCALES: Array<[string, string]> = [
  ['en', 'English'],
  ['es', 'Español'],
  ['sk', 'Slovenčina'],
  ['ro', 'Română'],
  ['pl', 'Polski'],
  ['hu', 'Magyar'],
  ['de', 'Deutsch'],
  ['cs', 'Čeština'],
]
