import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import { MicroCache } from '../micro-cache.ts'
import { BffUpstreamBadResponse } from '../errors.ts'

/** The sitemap changes only with the catalogue: kept per catalogue version, an hour at most, so crawlers cost the API little. */
const SITEMAP_TTL_MS = 60 * 60 * 1000
const STATIC_PAGES = ['/', '/library', '/terms', '/privacy', '/cookie']

function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** /robots.txt and /sitemap.xml listing every public page. */
async function seoRoutes(app: FastifyInstance, opts: { appUrl: string; now?: (() => number) | undefined }): Promise<void> {
  const cache = new MicroCache<string>(SITEMAP_TTL_MS, opts.now ?? Date.now, 4)

  const getJson = async <T>(path: string): Promise<T> => {
    const response = await app.upstreamApi.request({ method: 'GET', path, headers: { accept: 'application/json' } })
    if (response.status !== 200) throw new BffUpstreamBadResponse()
    return JSON.parse(response.body.toString('utf8')) as T
  }

  const buildSitemap = async (): Promise<string> => {
    const paths = new Set(STATIC_PAGES)
    for (const category of await getJson<Array<{ id: string }>>('/api/categories')) paths.add(`/category/${category.id}`)
    for (const type of await getJson<Array<{ id: string; count: number }>>('/api/license-types')) if (type.count > 0) paths.add(`/license-type/${type.id}`)
    for (let page = 1; page <= 1_000; page++) {
      const result = await getJson<ProgramPage>(`/api/programs?pageSize=100&sort=nameAsc&page=${page}`)
      for (const program of result.items) {
        paths.add(`/programs/${program.id}`)
        paths.add(`/developer/${program.developer.id}`)
        paths.add(`/publisher/${program.publisher.id}`)
      }
      if (page * result.pageSize >= result.total) break
    }
    const urls = [...paths].map((path) => `<url><loc>${xmlEscape(`${opts.appUrl}${path}`)}</loc></url>`).join('\n')
    return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`
  }

  app.get('/sitemap.xml', async (_request, reply) => {
    // Built from answers of this version or newer: an editor's change is in it within 2 s.
    const body = await cache.get(await app.upstreamApi.catalogueVersion(), buildSitemap)
    reply.header('cache-control', 'public, max-age=3600')
    return reply.type('application/xml; charset=utf-8').send(body)
  })

  app.get('/robots.txt', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=86400')
    return reply.type('text/plain; charset=utf-8').send(`User-agent: *\nAllow: /\nDisallow: /api/\nDisallow: /@/\n\nSitemap: ${opts.appUrl}/sitemap.xml\n`)
  })
}

export default fp(seoRoutes, { name: 'seo-routes', encapsulate: true, dependencies: ['upstream-api'] })
