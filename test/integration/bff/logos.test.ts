import sharp from 'sharp'
import t from 'tap'
import { readSeed } from '../../../server/api/catalogue/seed.ts'
import { LOGO_CSP } from '../../../server/bff/logos/routes.ts'
import { buildStack } from '../../helpers.ts'

// Item 1: logos served same-origin as SVG, Open Graph cards as PNG, both on the pages.

t.test('logos and link-preview cards', async (t) => {
  const { bff } = await buildStack(t)
  const page = await bff.inject('/programs/blender')
  const version = /"logosVersion":"([0-9a-f]+)"/.exec(page.body)?.[1]
  t.ok(version, 'the page carries the logo set version')

  t.test('GET /logos/<id>.svg: an SVG that cannot run anything, cached for a year under the current version', async (t) => {
    const response = await bff.inject(`/logos/blender.svg?v=${version}`)
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'image/svg+xml; charset=utf-8')
    t.equal(response.headers['x-content-type-options'], 'nosniff')
    t.equal(response.headers['content-security-policy'], LOGO_CSP)
    t.match(LOGO_CSP, /^default-src 'none';.*\bsandbox\b/, 'nothing loads, nothing runs')
    t.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.match(response.headers.etag, /^W\/"[0-9a-f]{24}"$/)
    t.match(response.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="64" height="64" viewBox="0 0 64 64"><title>Blender<\/title>/)
    t.match(response.body, /fill="#E87D0D"/, "Blender's own orange")

    const again = await bff.inject({ url: `/logos/blender.svg?v=${version}`, headers: { 'if-none-match': String(response.headers.etag) } })
    t.equal(again.statusCode, 304, 'revalidation by ETag')
    t.equal(again.body, '')

    for (const url of ['/logos/blender.svg', '/logos/blender.svg?v=0123456789abcdef', `/logos/blender.svg?v=${version}x`]) {
      const other = await bff.inject(url)
      t.equal(other.statusCode, 200, url)
      t.equal(other.headers['cache-control'], 'public, no-cache', `${url}: not the current version, so checked each time`)
      t.equal(other.headers.etag, response.headers.etag)
    }

    const head = await bff.inject({ method: 'HEAD', url: `/logos/blender.svg?v=${version}` })
    t.equal(head.statusCode, 200)
    t.equal(head.headers['content-type'], 'image/svg+xml; charset=utf-8')

    const encoded = await bff.inject('/logos/bl%65nder.svg')
    t.equal(encoded.statusCode, 200, 'an encoded letter is the same path')
    t.equal(encoded.headers.etag, response.headers.etag)
  })

  t.test('every program of the seed has its logo, and no two are the same', async (t) => {
    const etags = new Set<string>()
    for (const program of readSeed().programs) {
      const response = await bff.inject(`/logos/${program.id}.svg?v=${version}`)
      t.equal(response.statusCode, 200, program.id)
      t.match(response.body, new RegExp(`<title>${program.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/&/g, '&amp;').replace(/'/g, '&apos;')}</title>`), `${program.id}: its name`)
      etags.add(String(response.headers.etag))
    }
    t.equal(etags.size, readSeed().programs.length)
  })

  t.test('a program the catalogue does not have: 404 JSON with a stable code, in every spelling', async (t) => {
    const paths = [
      '/logos/no-such-program.svg',
      '/logos/Blender.svg',
      '/logos/BLENDER.SVG',
      '/logos/blender.SVG',
      '/logos/blender.svg/',
      '/logos/blender',
      '/logos/blender.png',
      '/logos/blender.svg.svg',
      '/logos/.svg',
      '/logos/',
      '/logos/3d/blender.svg',
      '/logos/%2e%2e%2fblender.svg',
      '/logos/..%2Fapi%2Fprograms.svg',
      '/og/programs/no-such-program.png',
      '/og/programs/blender.svg',
      '/og/programs/Blender.png',
      '/og/programs/blender.png/',
    ]
    for (const url of paths) {
      const response = await bff.inject(url)
      t.equal(response.statusCode, 404, url)
      t.match(response.headers['content-type'], /^application\/json/, url)
      t.equal(response.json().code, 'BFF_LOGO_NOT_FOUND', url)
    }
    // A NUL in the path is refused at the edge, before any route.
    const nul = await bff.inject('/logos/blender%00.svg')
    t.equal(nul.statusCode, 400)
    t.equal(nul.json().code, 'BFF_VALIDATION_FAILED')
  })

  t.test('GET /og/programs/<id>.png: a 1200 × 630 PNG of the logo and the name, rendered once', async (t) => {
    const url = `/og/programs/blender.png?v=${version}`
    const first = await bff.inject(url)
    t.equal(first.statusCode, 200)
    t.equal(first.headers['content-type'], 'image/png')
    t.equal(first.headers['x-content-type-options'], 'nosniff')
    t.equal(first.headers['cross-origin-resource-policy'], 'cross-origin', 'other sites show it')
    t.equal(first.headers['cache-control'], 'public, max-age=31536000, immutable')
    const metadata = await sharp(first.rawPayload).metadata()
    t.same([metadata.format, metadata.width, metadata.height], ['png', 1200, 630])
    // The card's left third is the logo: Blender's orange is in it.
    const { data, info } = await sharp(first.rawPayload).extract({ left: 96, top: 171, width: 288, height: 288 }).raw().toBuffer({ resolveWithObject: true })
    let orange = 0
    for (let i = 0; i < data.length; i += info.channels) if (Math.abs(data[i]! - 0xe8) < 24 && Math.abs(data[i + 1]! - 0x7d) < 24 && data[i + 2]! < 60) orange++
    t.ok(orange > 2000, `the logo is on the card (${orange} orange pixels)`)

    const second = await bff.inject(url)
    t.ok(second.rawPayload.equals(first.rawPayload), 'the same picture')
    const revalidated = await bff.inject({ url, headers: { 'if-none-match': String(first.headers.etag) } })
    t.equal(revalidated.statusCode, 304)
    const other = await bff.inject(`/og/programs/adobe-photoshop.png?v=${version}`)
    t.equal(other.statusCode, 200)
    t.notOk(other.rawPayload.equals(first.rawPayload), 'each program its own card')
  })

  t.test('pages: logo images on cards and the program page, the card in Open Graph', async (t) => {
    const html = page.body.slice(0, page.body.indexOf('<script nonce'))
    const large = /<img class="program-icon program-icon-lg"[^>]*>/.exec(html)?.[0] ?? ''
    t.match(large, `src="/logos/blender.svg?v=${version}"`)
    t.match(large, 'alt=""', 'decorative: the name is the heading next to it')
    t.match(large, /width="80" height="80"/)
    t.match(large, 'loading="eager"')
    const meta = (property: string) => new RegExp(`<meta (?:property|name)="${property}" content="([^"]*)">`).exec(html)?.[1]
    t.equal(meta('og:image'), `http://localhost:3000/og/programs/blender.png?v=${version}`, 'absolute, from APP_URL')
    t.equal(meta('og:image:width'), '1200')
    t.equal(meta('og:image:height'), '630')
    t.equal(meta('og:image:type'), 'image/png')
    t.equal(meta('og:image:alt'), 'Blender — Softshelf')
    t.equal(meta('twitter:card'), 'summary_large_image')
    t.match(page.headers['content-security-policy'], /img-src 'self'/, 'the page may show same-origin images')

    const library = await bff.inject('/library')
    const listing = library.body.slice(0, library.body.indexOf('<script nonce'))
    const cards = [...listing.matchAll(/<img class="program-icon program-icon-md"[^>]*>/g)].map((m) => m[0])
    t.equal(cards.length, 24, 'a logo on every card')
    const sources = cards.map((img) => /src="([^"]+)"/.exec(img)?.[1])
    t.equal(new Set(sources).size, 24, 'no two cards share an image')
    for (const img of cards) {
      t.match(img, 'alt=""')
      t.match(img, /width="48" height="48"/)
      t.match(img, 'loading="lazy"')
    }
    t.notMatch(listing, /og:image/, 'a page without its own picture has none')
    t.match(listing, /<meta name="twitter:card" content="summary">/)
  })
})
