import t from 'tap'
import { readSeed } from '../../../server/api/catalogue/seed.ts'
import { buildStack } from '../../helpers.ts'

t.test('robots.txt and a sitemap of every public page', async (t) => {
  const { bff } = await buildStack(t)
  const robots = await bff.inject('/robots.txt')
  t.equal(robots.statusCode, 200)
  t.match(robots.headers['content-type'], /text\/plain; charset=utf-8/)
  t.match(robots.body, /Disallow: \/api\//)
  t.match(robots.body, /Sitemap: http:\/\/localhost:3000\/sitemap\.xml/)

  const sitemap = await bff.inject('/sitemap.xml')
  t.equal(sitemap.statusCode, 200)
  t.match(sitemap.headers['content-type'], /application\/xml/)
  const locs = [...sitemap.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!)
  t.equal(new Set(locs).size, locs.length, 'no duplicates')
  for (const path of ['/', '/library', '/terms', '/privacy', '/cookie', '/category/3d', '/license-type/open-source', '/programs/blender', '/developer/blender-foundation', '/publisher/adobe']) {
    t.ok(locs.includes(`http://localhost:3000${path}`), path)
  }
  const programs = locs.filter((loc) => loc.includes('/programs/'))
  t.equal(programs.length, readSeed().programs.length, 'every program')
  // Every listed page really exists.
  for (const loc of locs.filter((_, i) => i % 25 === 0)) {
    const response = await bff.inject(new URL(loc).pathname)
    t.equal(response.statusCode, 200, loc)
  }
})
