// A generated catalogue for the search benchmark (10,000 programs). Programs, developers
// and publishers are made up from word lists with a seeded PRNG, so every run inserts the same rows
// and two databases get identical data. Rows go in with a few set-based INSERTs (unnest over
// arrays), on top of the real seed the API applied at start.
import { PROGRAM_CATEGORIES, type LicenseType, type ProgramCategory } from '../shared/catalogue/catalogue.ts'
import { slugify } from '../server/api/catalogue/seed.ts'
import type { Database, Queryable } from '../server/db/database.ts'
import { START_UP_TIMEOUT_MS } from '../server/db/guard.ts'

/** mulberry32: tiny, fast and good enough to pick words. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Random = () => number

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T
}

function weighted<T>(random: Random, items: ReadonlyArray<readonly [T, number]>): T {
  const total = items.reduce((sum, [, weight]) => sum + weight, 0)
  let r = random() * total
  for (const [item, weight] of items) {
    r -= weight
    if (r < 0) return item
  }
  return items[items.length - 1]![0]
}

/** Per category: words that start a program name, what it is, and what it is for. */
const VOCABULARY: Record<ProgramCategory, { nouns: string[]; things: string[]; tasks: string[] }> = {
  '3d': {
    nouns: ['Mesh', 'Poly', 'Voxel', 'Sculpt', 'Vertex', 'Cube', 'Shade', 'Model'],
    things: ['3D modeller', '3D suite', 'sculpting tool', 'renderer', 'scene editor'],
    tasks: ['polygon modelling', 'digital sculpting', 'UV unwrapping', 'retopology', 'rigging', 'path-traced rendering', 'product visualisation'],
  },
  graphics: {
    nouns: ['Pixel', 'Photo', 'Vector', 'Paint', 'Canvas', 'Brush', 'Colour', 'Layer'],
    things: ['photo editor', 'illustration app', 'raster editor', 'vector editor', 'painting program'],
    tasks: ['photo retouching', 'photo editing', 'vector illustration', 'digital painting', 'icon design', 'batch image conversion', 'colour correction'],
  },
  'architecture-engineering': {
    nouns: ['Draft', 'Beam', 'Plan', 'Struct', 'Site', 'Grid', 'Arch', 'Span'],
    things: ['CAD application', 'BIM tool', 'drafting program', 'engineering suite', 'design tool'],
    tasks: ['2D drafting', 'BIM modelling', 'structural analysis', 'floor plans', 'MEP design', 'parametric design', 'site surveys'],
  },
  'video-motion': {
    nouns: ['Frame', 'Clip', 'Motion', 'Reel', 'Vision', 'Vista', 'Cut', 'Lens'],
    things: ['video editor', 'compositor', 'motion graphics tool', 'screen recorder', 'colour grading suite'],
    tasks: ['non-linear video editing', 'motion graphics', 'colour grading', 'compositing', 'screen recording', 'subtitle timing', 'visual effects'],
  },
  'game-development': {
    nouns: ['Sprite', 'Level', 'Quest', 'Tile', 'Game', 'Play', 'Pixel', 'Realm'],
    things: ['game engine', 'level editor', 'sprite editor', 'game framework', 'shader editor'],
    tasks: ['2D games', '3D games', 'level design', 'sprite animation', 'shader authoring', 'physics prototyping', 'tile maps'],
  },
  'data-analytics': {
    nouns: ['Data', 'Chart', 'Query', 'Insight', 'Metric', 'Stat', 'Visual', 'Table'],
    things: ['analytics platform', 'statistics package', 'BI tool', 'notebook environment', 'charting app'],
    tasks: ['data visualisation', 'statistical analysis', 'dashboards', 'SQL querying', 'spreadsheet modelling', 'forecasting', 'data cleaning'],
  },
  'audio-music': {
    nouns: ['Sound', 'Wave', 'Beat', 'Tone', 'Synth', 'Audio', 'Echo', 'Chord'],
    things: ['digital audio workstation', 'audio editor', 'synthesiser', 'notation program', 'mastering suite'],
    tasks: ['multitrack recording', 'audio mastering', 'beat making', 'podcast editing', 'sound design', 'music notation', 'audio restoration'],
  },
  productivity: {
    nouns: ['Note', 'Task', 'Docs', 'Flow', 'Focus', 'Desk', 'Office', 'Plan'],
    things: ['note-taking app', 'office suite', 'task manager', 'mind-mapping tool', 'writing app'],
    tasks: ['note taking', 'task management', 'document editing', 'mind mapping', 'time tracking', 'team wikis', 'PDF editing'],
  },
  publishing: {
    nouns: ['Page', 'Type', 'Print', 'Press', 'Layout', 'Book', 'Folio', 'Ink'],
    things: ['desktop publishing program', 'layout tool', 'ebook editor', 'font editor', 'typesetting system'],
    tasks: ['desktop publishing', 'ebook creation', 'typesetting', 'magazine layout', 'font design', 'print preparation', 'photo books'],
  },
  simulation: {
    nouns: ['Sim', 'Flux', 'Field', 'Orbit', 'Particle', 'Fluid', 'Vortex', 'Circuit'],
    things: ['simulation package', 'physics solver', 'FEA tool', 'CFD suite', 'modelling environment'],
    tasks: ['fluid dynamics', 'finite element analysis', 'circuit simulation', 'flight simulation', 'particle systems', 'thermal analysis', 'robotics'],
  },
}

const ADJECTIVES = ['Swift', 'Open', 'Bright', 'Nova', 'Quantum', 'Blue', 'Deep', 'Smart', 'Rapid', 'Micro', 'Hyper', 'True', 'Zen', 'Iron', 'Crystal', 'Polar', 'Solar', 'Lumen', 'Arc', 'Silver']
const SECOND_WORDS = ['Forge', 'Studio', 'Lab', 'Works', 'Suite', 'Kit', 'Craft', 'Builder', 'Editor', 'Designer', 'Maker', 'Hub', 'Box', 'Flow', 'Shop', 'Master']
const TAILS = ['', '', '', ' Pro', ' 7', ' 2', ' X', ' Lite', ' 2025', ' Plus', ' Express']
const QUALITIES = ['Fast', 'Lightweight', 'Professional', 'Free', 'Cross-platform', 'Easy-to-use', 'Powerful', 'Modular', 'Collaborative', 'Open', 'Compact', 'Full-featured']

const PLACES = [
  'Northwind', 'Bluefield', 'Redstone', 'Silverleaf', 'Greenhill', 'Ironbark', 'Oakridge', 'Stonebridge', 'Clearwater', 'Fairlight', 'Brightlake',
  'Highpoint', 'Westbrook', 'Eastgate', 'Kestrel', 'Falcon', 'Heron', 'Lynx', 'Otter', 'Raven', 'Cedar', 'Maple', 'Willow', 'Aspen', 'Birch',
  'Juniper', 'Harbor', 'Summit', 'Meridian', 'Zenith', 'Nimbus', 'Cobalt', 'Indigo', 'Amber', 'Crimson', 'Saffron', 'Obsidian', 'Quartz',
  'Granite', 'Basalt', 'Tatra', 'Danube', 'Vltava', 'Carpathia', 'Baltic', 'Alder', 'Hazel', 'Rowan', 'Sorrel', 'Thistle', 'Fjord', 'Tundra',
  'Mistral', 'Sirocco', 'Monsoon', 'Aurora', 'Comet', 'Pulsar', 'Quasar', 'Nebula',
]
const DEVELOPER_KINDS = ['Software', 'Labs', 'Studio', 'Systems', 'Digital', 'Interactive', 'Technologies', 'GmbH', 'Ltd', 'Inc.', 's.r.o.', 'Collective', 'Foundation', 'Works']
const PUBLISHER_KINDS = ['Publishing', 'Media', 'Distribution', 'Group', 'Holdings']

const LANGUAGE_ODDS: ReadonlyArray<readonly [string, number]> = [
  ['de', 0.5], ['fr', 0.5], ['es', 0.5], ['ja', 0.35], ['zh', 0.35], ['it', 0.35], ['pt', 0.3], ['ru', 0.3], ['ko', 0.25], ['pl', 0.2],
  ['nl', 0.2], ['cs', 0.15], ['sv', 0.15], ['tr', 0.15], ['uk', 0.1], ['hu', 0.1], ['sk', 0.08], ['ro', 0.08], ['da', 0.08], ['fi', 0.08],
]
const PLATFORM_ODDS: ReadonlyArray<readonly [string, number]> = [['windows', 0.85], ['macos', 0.65], ['linux', 0.35], ['web', 0.15]]
const LICENSES: ReadonlyArray<readonly [LicenseType, number]> = [
  ['freeware', 20], ['open-source', 20], ['freemium', 15], ['trial', 10], ['commercial', 20], ['subscription', 15],
]

interface Organisation {
  id: string
  name: string
  website: string
}

function organisations(random: Random, count: number, kinds: readonly string[], taken: Set<string>): Organisation[] {
  const out: Organisation[] = []
  for (let attempt = 0; out.length < count && attempt < count * 50; attempt++) {
    const name = `${pick(random, PLACES)}${random() < 0.3 ? ` ${pick(random, PLACES)}` : ''} ${pick(random, kinds)}`
    const id = slugify(name)
    if (taken.has(id)) continue
    taken.add(id)
    out.push({ id, name, website: `https://www.${slugify(name.replace(/ (GmbH|Ltd|Inc\.|s\.r\.o\.)$/, ''))}.example` })
  }
  return out
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

const DAY = 86_400_000
const OLDEST = Date.UTC(1995, 0, 1)
const NEWEST = Date.UTC(2025, 9, 31)

interface Program {
  id: string
  name: string
  summary: string
  description: string
  developer: Organisation
  publisher: Organisation
  licenseType: LicenseType
  price: { amount: number; currency: string; period: 'one-time' | 'month' | 'year' } | null
  categories: ProgramCategory[]
  platforms: string[]
  languages: string[]
  version: string
  released: string
  updated: string
  popularity: number
}

function price(random: Random, licenseType: LicenseType): Program['price'] {
  const currency = random() < 0.6 ? 'USD' : 'EUR'
  if (licenseType === 'subscription') {
    const monthly = pick(random, [4.99, 9.99, 14.99, 19.99, 29.99, 49.99])
    return random() < 0.6 ? { amount: monthly, currency, period: 'month' } : { amount: Math.round(monthly * 10), currency, period: 'year' }
  }
  if (licenseType === 'trial' || licenseType === 'commercial') {
    return { amount: pick(random, [19, 29, 39.99, 49, 79, 99, 149, 199, 299, 499, 999]), currency, period: 'one-time' }
  }
  return null
}

function generatePrograms(random: Random, count: number, developers: Organisation[], publishers: Organisation[], takenIds: Set<string>): Program[] {
  const programs: Program[] = []
  while (programs.length < count) {
    const primary = pick(random, PROGRAM_CATEGORIES)
    const words = VOCABULARY[primary]
    const noun = pick(random, words.nouns)
    const form = random()
    const base = form < 0.3 ? `${pick(random, ADJECTIVES)} ${noun}` : form < 0.7 ? `${noun} ${pick(random, SECOND_WORDS)}` : `${pick(random, ADJECTIVES)} ${noun} ${pick(random, SECOND_WORDS)}`
    const name = `${base}${pick(random, TAILS)}`
    let id = slugify(name)
    // The same name twice happens in real catalogues too; ids must still differ.
    for (let n = 2; takenIds.has(id); n++) id = `${slugify(name)}-${n}`
    takenIds.add(id)

    const categories = [primary]
    for (const extra of [0.5, 0.2]) {
      const other = pick(random, PROGRAM_CATEGORIES)
      if (random() < extra && !categories.includes(other)) categories.push(other)
    }
    // Few developers make many programs: squaring skews the pick towards the list's start.
    const developer = developers[Math.floor(random() ** 2 * developers.length)]!
    const publisher = random() < 0.75 ? developer : pick(random, publishers)
    const licenseType = weighted(random, LICENSES)
    const platforms = PLATFORM_ODDS.filter(([, odds]) => random() < odds).map(([p]) => p)
    if (platforms.length === 0) platforms.push('windows')
    const languages = ['en', ...LANGUAGE_ODDS.filter(([, odds]) => random() < odds).map(([l]) => l)]
    const [task1, task2] = [pick(random, words.tasks), pick(random, words.tasks)]
    const thing = pick(random, words.things)
    const tasks = task1 === task2 ? task1 : `${task1} and ${task2}`
    const summary = `${pick(random, QUALITIES)} ${thing} for ${tasks}.`
    const description =
      `${name} is a ${thing} from ${developer.name} for ${tasks}. ` +
      `It runs on ${platforms.join(', ')} and is available in ${languages.length} ${languages.length === 1 ? 'language' : 'languages'}. ` +
      `Projects can be exported to common formats and shared with other tools of the ${primary} workflow.`
    const released = OLDEST + Math.floor(random() * ((NEWEST - OLDEST) / DAY)) * DAY
    const updated = released + Math.floor(random() * ((NEWEST - released) / DAY)) * DAY
    programs.push({
      id,
      name,
      summary,
      description,
      developer,
      publisher,
      licenseType,
      price: price(random, licenseType),
      categories,
      platforms,
      languages,
      version: random() < 0.2 ? `${new Date(updated).getUTCFullYear()}.${1 + Math.floor(random() * 4)}` : `${1 + Math.floor(random() * 15)}.${Math.floor(random() * 10)}`,
      released: isoDate(released),
      updated: isoDate(updated),
      // Most programs are niche, a few are popular.
      popularity: Math.min(100, Math.round(random() ** 2.5 * 100)),
    })
  }
  return programs
}

async function insertOrganisations(tx: Queryable, table: 'developers' | 'publishers', rows: Organisation[]): Promise<void> {
  await tx.query(`INSERT INTO api.${table} (id, name, website) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`, [
    rows.map((r) => r.id),
    rows.map((r) => r.name),
    rows.map((r) => r.website),
  ])
}

async function insertPrograms(tx: Queryable, ps: Program[]): Promise<void> {
  await tx.query(
    `INSERT INTO api.programs (id, name, summary, description, developer_id, publisher_id, license_type, price_amount, price_currency,
       price_period, platforms, languages, homepage, version, released_on, updated_on, popularity, search_text)
     SELECT id, name, summary, description, developer_id, publisher_id, license_type, price_amount, price_currency, price_period,
       string_to_array(platforms, ','), string_to_array(languages, ','), homepage, version, released_on::date, updated_on::date, popularity, search_text
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::numeric[], $9::text[], $10::text[],
       $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::int[], $18::text[])
       AS s(id, name, summary, description, developer_id, publisher_id, license_type, price_amount, price_currency, price_period, platforms,
         languages, homepage, version, released_on, updated_on, popularity, search_text)`,
    [
      ps.map((p) => p.id),
      ps.map((p) => p.name),
      ps.map((p) => p.summary),
      ps.map((p) => p.description),
      ps.map((p) => p.developer.id),
      ps.map((p) => p.publisher.id),
      ps.map((p) => p.licenseType),
      ps.map((p) => p.price?.amount ?? null),
      ps.map((p) => p.price?.currency ?? null),
      ps.map((p) => p.price?.period ?? null),
      ps.map((p) => p.platforms.join(',')),
      ps.map((p) => p.languages.join(',')),
      ps.map((p) => `https://${p.id}.example.com`),
      ps.map((p) => p.version),
      ps.map((p) => p.released),
      ps.map((p) => p.updated),
      ps.map((p) => p.popularity),
      // As the seed builds it: what search matches against.
      ps.map((p) => [p.name, p.summary, p.developer.name, p.publisher.name].join(' ').toLowerCase()),
    ],
  )
  const links = ps.flatMap((p) => p.categories.map((category, index) => [p.id, category, index === 0] as const))
  await tx.query(
    'INSERT INTO api.program_categories (program_id, category_id, is_primary) SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[])',
    [links.map((l) => l[0]), links.map((l) => l[1]), links.map((l) => l[2])],
  )
}

export interface GeneratedCatalogue {
  /** Programs in the catalogue afterwards (seed + generated). */
  total: number
  inserted: number
  developers: number
  publishers: number
  /** The generated developer with the most programs, for a `developer=` query. */
  busiestDeveloper: { id: string; programs: number }
  ms: number
}

/**
 * Fills the catalogue up to `total` programs (default 10,000) with generated ones, then ANALYZEs so
 * the planner sees the real row counts. Expects the API's migrations and seed to be applied.
 */
export async function generateCatalogue(db: Database, options: { total?: number; seed?: number; batch?: number } = {}): Promise<GeneratedCatalogue> {
  const started = performance.now()
  const total = options.total ?? 10_000
  const random = prng(options.seed ?? 20261122)
  // The seed's ids stay untouched: generated organisations and programs never reuse one.
  const orgs = await db.query<{ id: string }>('SELECT id FROM api.developers UNION SELECT id FROM api.publishers')
  const takenOrgIds = new Set(orgs.rows.map((r) => r.id))
  const developers = organisations(random, 500, DEVELOPER_KINDS, takenOrgIds)
  const publishers = organisations(random, 120, PUBLISHER_KINDS, takenOrgIds)
  const programIds = new Set((await db.query<{ id: string }>('SELECT id FROM api.programs')).rows.map((r) => r.id))
  const programs = generatePrograms(random, Math.max(0, total - programIds.size), developers, publishers, programIds)

  // Publishers are their own table: a developer publishing its own programs is a publisher too.
  const usedPublishers = new Map<string, Organisation>()
  for (const p of programs) usedPublishers.set(p.publisher.id, p.publisher)
  const batch = options.batch ?? 2500
  await db.transaction(async (tx) => {
    await insertOrganisations(tx, 'developers', developers)
    await insertOrganisations(tx, 'publishers', [...usedPublishers.values()])
    for (let i = 0; i < programs.length; i += batch) await insertPrograms(tx, programs.slice(i, i + batch))
  }, { timeoutMs: START_UP_TIMEOUT_MS })
  await db.exec('ANALYZE')

  const perDeveloper = new Map<string, number>()
  for (const p of programs) perDeveloper.set(p.developer.id, (perDeveloper.get(p.developer.id) ?? 0) + 1)
  const [busiestId, busiestCount] = [...perDeveloper].reduce((a, b) => (b[1] > a[1] ? b : a), ['', 0])
  const after = await db.query<{ n: string | number }>('SELECT count(*) AS n FROM api.programs')
  return {
    total: Number(after.rows[0]?.n ?? 0),
    inserted: programs.length,
    developers: developers.length,
    publishers: usedPublishers.size,
    busiestDeveloper: { id: busiestId, programs: busiestCount },
    ms: Math.round(performance.now() - started),
  }
}
