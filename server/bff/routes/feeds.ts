import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { CATEGORY_NAMES_EN, PROGRAM_CATEGORIES, type ProgramCategory } from '../../../shared/catalogue/catalogue.ts'
import { ATOM_FEED_ENTRIES } from '../../../shared/catalogue/living.ts'
import type { RecentRelease } from '../../../shared/catalogue/living-schemas.ts'
import { BffFeedNotFound, BffUpstreamBadResponse } from '../errors.ts'
import { MicroCache } from '../micro-cache.ts'

// Atom feeds of the newest releases (docs/API.md "Atom feeds and free alternatives"):
// /feeds/releases.atom for the whole catalogue, /feeds/category/{id}.atom for one category; the
// ATOM_FEED_ENTRIES newest releases of programs not retired (GET /api/releases), as Atom 1.0
// (RFC 4287), in English like every page title (spec §1). Kept per catalogue version, like the
// sitemap and the catalogue's answers: a new release is in the feed within the version's 2 s.

/** How long one catalogue version's feed is kept here, and what a reader or proxy may keep it for. */
const FEED_TTL_MS = 60_000
const FEED_CACHE_CONTROL = 'public, max-age=60'
export const ATOM_CONTENT_TYPE = 'application/atom+xml; charset=utf-8'

function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
}

/** A release's date as an Atom date-time: midnight UTC of its day (its first day when only the year or month is known). */
function atomDate(date: string): string {
  const [year, month = '01', day = '01'] = date.split('-')
  return `${year}-${month}-${day}T00:00:00Z`
}

/** RFC 4151 tag URIs: an entry's id stays the same whatever the feed's address or the program's name. */
function tagUri(appUrl: string, specific: string): string {
  return `tag:${new URL(appUrl).hostname},2026:${specific}`
}

export interface AtomFeed {
  /** The feed's own path (/feeds/…) and the page it is the feed of. */
  path: string
  pagePath: string
  title: string
  subtitle: string
  releases: RecentRelease[]
}

/** The feed as Atom 1.0. */
export function atomDocument(appUrl: string, feed: AtomFeed): string {
  const newest = feed.releases.reduce((latest, release) => {
    const seen = [atomDate(release.date), new Date(release.recordedAt).toISOString().replace(/\.\d{3}Z$/, 'Z')].sort().at(-1)!
    return seen > latest ? seen : latest
  }, '1970-01-01T00:00:00Z')
  const entries = feed.releases.map((release) => {
    const title = `${release.programName} ${release.version}`
    const page = `${appUrl}/programs/${encodeURIComponent(release.programId)}`
    const summary = `${release.programName} ${release.version} was released on ${release.date}.${release.notesUrl ? ` Release notes: ${release.notesUrl}` : ''}`
    return [
      '  <entry>',
      `    <id>${xmlEscape(tagUri(appUrl, `release/${encodeURIComponent(release.programId)}/${encodeURIComponent(release.version)}`))}</id>`,
      `    <title type="text">${xmlEscape(title)}</title>`,
      `    <updated>${atomDate(release.date)}</updated>`,
      `    <published>${atomDate(release.date)}</published>`,
      `    <link rel="alternate" type="text/html" href="${xmlEscape(page)}"/>`,
      ...(release.notesUrl ? [`    <link rel="related" type="text/html" title="Release notes" href="${xmlEscape(release.notesUrl)}"/>`] : []),
      `    <summary type="text">${xmlEscape(summary)}</summary>`,
      '  </entry>',
    ].join('\n')
  })
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">',
    `  <id>${xmlEscape(tagUri(appUrl, feed.path.replace(/^\//, '')))}</id>`,
    `  <title type="text">${xmlEscape(feed.title)}</title>`,
    `  <subtitle type="text">${xmlEscape(feed.subtitle)}</subtitle>`,
    `  <updated>${newest}</updated>`,
    `  <link rel="self" type="application/atom+xml" href="${xmlEscape(appUrl + feed.path)}"/>`,
    `  <link rel="alternate" type="text/html" href="${xmlEscape(appUrl + feed.pagePath)}"/>`,
    '  <author><name>Softshelf</name></author>',
    `  <generator uri="${xmlEscape(appUrl)}/">Softshelf</generator>`,
    ...entries,
    '</feed>',
    '',
  ].join('\n')
}

async function feedRoutes(app: FastifyInstance, opts: { appUrl: string; now?: (() => number) | undefined }): Promise<void> {
  const cache = new MicroCache<string>(FEED_TTL_MS, opts.now ?? Date.now, 2 * (PROGRAM_CATEGORIES.length + 1))

  const releases = async (category: ProgramCategory | undefined): Promise<RecentRelease[]> => {
    const query = new URLSearchParams({ limit: String(ATOM_FEED_ENTRIES), ...(category ? { category } : {}) })
    // English, and no caller's headers: one shared answer per catalogue version (upstream-api.ts).
    const response = await app.upstreamApi.request({ method: 'GET', path: `/api/releases?${query}`, headers: { accept: 'application/json', 'accept-language': 'en' } })
    if (response.status === 404) throw new BffFeedNotFound()
    if (response.status !== 200) throw new BffUpstreamBadResponse()
    return (JSON.parse(response.body.toString('utf8')) as { items: RecentRelease[] }).items
  }

  const serve = async (feedPath: string, build: () => Promise<AtomFeed>) => {
    const version = await app.upstreamApi.catalogueVersion()
    return cache.get(`${version} ${feedPath}`, async () => atomDocument(opts.appUrl, await build()))
  }

  app.get('/feeds/releases.atom', async (_request, reply) => {
    const body = await serve('/feeds/releases.atom', async () => ({
      path: '/feeds/releases.atom',
      pagePath: '/',
      title: 'Softshelf: new releases',
      subtitle: `The ${ATOM_FEED_ENTRIES} newest releases of programs in the Softshelf catalogue.`,
      releases: await releases(undefined),
    }))
    return reply.header('cache-control', FEED_CACHE_CONTROL).type(ATOM_CONTENT_TYPE).send(body)
  })

  app.get<{ Params: { file: string } }>('/feeds/category/:file', async (request, reply) => {
    const match = /^(.+)\.atom$/.exec(request.params.file)
    const category = match?.[1] as ProgramCategory | undefined
    if (!category || !(PROGRAM_CATEGORIES as readonly string[]).includes(category)) throw new BffFeedNotFound()
    const path = `/feeds/category/${category}.atom`
    const body = await serve(path, async () => ({
      path,
      pagePath: `/category/${category}`,
      title: `Softshelf: new releases in ${CATEGORY_NAMES_EN[category]}`,
      subtitle: `The ${ATOM_FEED_ENTRIES} newest releases of ${CATEGORY_NAMES_EN[category]} programs in the Softshelf catalogue.`,
      releases: await releases(category),
    }))
    return reply.header('cache-control', FEED_CACHE_CONTROL).type(ATOM_CONTENT_TYPE).send(body)
  })
}

export default fp(feedRoutes, { name: 'feed-routes', encapsulate: true, dependencies: ['upstream-api'] })
