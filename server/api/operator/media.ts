import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { LOCALES, type Locale } from '../../../shared/locales.ts'
import {
  LOGO_CONTENT_TYPES,
  LOGO_MAX_BYTES,
  MAX_SCREENSHOTS,
  mediaTypeOf,
  SCREENSHOT_ALT_MAX,
  SCREENSHOT_CONTENT_TYPES,
  SCREENSHOT_MAX_BYTES,
  SCREENSHOT_WIDTHS,
} from '../../../shared/catalogue/media.ts'
import { binaryBody, NoContent } from '../../http/openapi.ts'
import {
  ApiCatalogueNotFound,
  ApiImageInvalid,
  ApiImageTooLarge,
  ApiImageTooManyPixels,
  ApiImageUnsupportedType,
  ApiLogoNotFound,
  ApiScreenshotNotFound,
  ApiTooManyScreenshots,
  ApiValidation,
} from '../errors.ts'
import { encodeLogo, encodeScreenshot, MediaImageError } from '../catalogue/media-images.ts'
import {
  addScreenshot,
  countScreenshots,
  lockProgram,
  operatorScreenshots,
  programExists,
  removeLogo,
  removeScreenshot,
  setLogo,
  updateScreenshot,
  uploadedLogo,
  type OperatorScreenshot,
  type StoredLogo,
} from '../catalogue/media-repository.ts'
import { Id } from '../catalogue/routes.ts'
import { recordAudit } from './audit-log.ts'
import { bumpCatalogueVersion } from '../catalogue/program-editor.ts'
import type { OperatorRoutesOptions } from './options.ts'

// Logos and screenshots of programs (docs/API.md "Logos and screenshots"). The image is
// the request's body (its declared Content-Type says what it is, and the bytes must agree); the
// image work (decoding, re-encoding, sanitising) runs before the transaction, the change and its
// audit entry (`program.media`, target `program:<id>`) in it.

const MiB = (bytes: number) => `${bytes / 1024 / 1024} MiB`

const Srcset = Type.Array(Type.Object({ url: Type.String(), width: Type.Integer() }), { description: 'One WebP file per width, narrowest first.' })
const AltTexts = Type.Record(Type.String(), Type.String(), { description: 'Alternative text per language (en es sk ro pl hu de cs); a missing one shows English.' })
const Screenshot = Type.Object({
  id: Type.String(),
  position: Type.Integer({ description: '0 is shown first.' }),
  width: Type.Integer({ description: 'The widest file\'s width: the image\'s intrinsic size.' }),
  height: Type.Integer(),
  alt: AltTexts,
  srcset: Srcset,
})
const Logo = Type.Object({
  contentType: Type.String({ description: 'image/svg+xml (sanitised) or image/webp (re-encoded).' }),
  url: Type.String({ description: 'The stored file (GET /api/program-logos/{file}); the public logo route /logos/{id}.svg serves it within 2 s.' }),
})
const Media = Type.Object({ logo: Type.Union([Logo, Type.Null()], { description: 'Null: the generated logo is shown.' }), screenshots: Type.Array(Screenshot) })
const Params = Type.Object({ id: Id })
const ScreenshotParams = Type.Object({ id: Id, sid: Type.String({ minLength: 1, maxLength: 100 }) })
const AltText = Type.String({ maxLength: SCREENSHOT_ALT_MAX })
const ScreenshotChange = Type.Object(
  {
    alt: Type.Optional(
      Type.Record(Type.String(), Type.Union([AltText, Type.Null()]), {
        description: `Alternative texts to set, per language (${LOCALES.join(' ')}); null (or "") removes one.`,
      }),
    ),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SCREENSHOTS - 1, description: 'Move it here (0 first); the others shift.' })),
  },
  { additionalProperties: false },
)

const logoOf = (stored: StoredLogo | null) => (stored ? { contentType: stored.contentType, url: stored.url } : null)
const auditShot = (shot: OperatorScreenshot) => ({ id: shot.id, position: shot.position, width: shot.width, height: shot.height, alt: shot.alt })

function imageError(error: unknown): unknown {
  if (!(error instanceof MediaImageError)) return error
  if (error.problem === 'too-many-pixels') return new ApiImageTooManyPixels()
  if (error.problem === 'unsupported-type') return new ApiImageUnsupportedType(error.detail ?? 'The image\'s bytes are not of the type it was sent as.')
  return new ApiImageInvalid(error.detail ?? 'The image could not be read: it may be damaged.')
}

function uploadOf(request: FastifyRequest): Buffer {
  const body = request.body
  if (!(body instanceof Buffer) || body.length === 0) throw new ApiImageInvalid('Send the image as the request body.')
  return body
}

async function mediaRoutes(plugin: FastifyInstance, _opts: OperatorRoutesOptions): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db

  // Every write is on the record, and is a change of the public program (its screenshots, its
  // logo): the catalogue's version moves in the same transaction, so every cache keyed by it
  // (the API's index, the BFF's shared answers and pages) shows it within its second.
  const audit = async (request: FastifyRequest, tx: Parameters<typeof recordAudit>[0], programId: string, before: unknown, after: unknown) => {
    await recordAudit(tx, { actor: request.operator!, action: 'program.media', target: `program:${programId}`, before, after, requestId: request.id })
    await bumpCatalogueVersion(tx)
  }

  app.get('/api/operator/programs/:id/media', { schema: { params: Params, response: { 200: Media } } }, async (request) => {
    const { id } = request.params
    if (!(await programExists(db, id))) throw new ApiCatalogueNotFound('program', id)
    return { logo: logoOf(await uploadedLogo(db, id)), screenshots: await operatorScreenshots(db, id) }
  })

  // The uploads: the body is the image's bytes, read whole within the route's own limit.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: SCREENSHOT_MAX_BYTES }, (_request, body, done) => done(null, body))
    const tooLarge = (limit: number) => (error: Error) => {
      throw (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new ApiImageTooLarge(MiB(limit)) : error
    }
    const typed = scope.withTypeProvider<TypeBoxTypeProvider>()

    const logoBody = binaryBody(`The logo: SVG (rewritten to a safe subset), PNG or WebP (re-encoded as WebP, at most 512 px a side); at most ${MiB(LOGO_MAX_BYTES)}.`)
    typed.put(
      '/api/operator/programs/:id/logo',
      {
        bodyLimit: LOGO_MAX_BYTES,
        errorHandler: tooLarge(LOGO_MAX_BYTES),
        schema: { params: Params, response: { 200: Logo } },
        config: { openapi: { body: Object.fromEntries(LOGO_CONTENT_TYPES.map((type) => [type, logoBody])) } },
      },
      async (request) => {
        const { id } = request.params
        const declared = mediaTypeOf(request.headers['content-type'])
        if (!(LOGO_CONTENT_TYPES as readonly string[]).includes(declared)) throw new ApiImageUnsupportedType(`A logo must be sent as ${LOGO_CONTENT_TYPES.join(', ')}.`)
        const upload = uploadOf(request)
        if (!(await programExists(db, id))) throw new ApiCatalogueNotFound('program', id)
        const logo = await encodeLogo(upload, declared).catch((error: unknown) => {
          throw imageError(error)
        })
        const stored = await db.transaction(async (tx) => {
          if (!(await lockProgram(tx, id))) throw new ApiCatalogueNotFound('program', id)
          const before = await setLogo(tx, id, logo)
          const after = await uploadedLogo(tx, id)
          await audit(request, tx, id, { logo: logoOf(before) }, { logo: logoOf(after) })
          return after!
        })
        request.log.info({ event: 'program.media', programId: id, bytesIn: upload.length, bytesOut: logo.image.length, contentType: logo.contentType }, 'logo replaced')
        return logoOf(stored)!
      },
    )

    const screenshotBody = binaryBody(
      `The screenshot: PNG, JPEG or WebP by content, at most ${MiB(SCREENSHOT_MAX_BYTES)} and 50 megapixels; re-encoded as WebP at the widths ${SCREENSHOT_WIDTHS.join(', ')} not wider than it.`,
    )
    typed.post(
      '/api/operator/programs/:id/screenshots',
      {
        bodyLimit: SCREENSHOT_MAX_BYTES,
        errorHandler: tooLarge(SCREENSHOT_MAX_BYTES),
        schema: {
          params: Params,
          querystring: Type.Object({ alt: Type.Optional(Type.String({ maxLength: SCREENSHOT_ALT_MAX, description: 'The English alternative text (other languages: PATCH).' })) }, { additionalProperties: false }),
          response: { 201: Screenshot },
        },
        config: { openapi: { body: Object.fromEntries(SCREENSHOT_CONTENT_TYPES.map((type) => [type, screenshotBody])) } },
      },
      async (request, reply) => {
        const { id } = request.params
        const declared = request.headers['content-type'] === undefined ? 'application/octet-stream' : mediaTypeOf(request.headers['content-type'])
        if (!(SCREENSHOT_CONTENT_TYPES as readonly string[]).includes(declared)) throw new ApiImageUnsupportedType('A screenshot must be a PNG, JPEG or WebP image.')
        const upload = uploadOf(request)
        if (!(await programExists(db, id))) throw new ApiCatalogueNotFound('program', id)
        // Refused before the work when already full; counted again under the lock below.
        if ((await countScreenshots(db, id)) >= MAX_SCREENSHOTS) throw new ApiTooManyScreenshots(MAX_SCREENSHOTS)
        const encoded = await encodeScreenshot(upload).catch((error: unknown) => {
          throw imageError(error)
        })
        const alt = request.query.alt?.trim() ? { en: request.query.alt.trim() } : {}
        const shot = await db.transaction(async (tx) => {
          if (!(await lockProgram(tx, id))) throw new ApiCatalogueNotFound('program', id)
          if ((await countScreenshots(tx, id)) >= MAX_SCREENSHOTS) throw new ApiTooManyScreenshots(MAX_SCREENSHOTS)
          const added = await addScreenshot(tx, id, encoded, alt)
          await audit(request, tx, id, null, { screenshot: auditShot(added) })
          return added
        })
        request.log.info({ event: 'program.media', programId: id, bytesIn: upload.length, files: encoded.files.length }, 'screenshot added')
        return reply.code(201).send(shot)
      },
    )
  })

  app.delete('/api/operator/programs/:id/logo', { schema: { params: Params, response: { 204: NoContent } } }, async (request, reply) => {
    const { id } = request.params
    await db.transaction(async (tx) => {
      if (!(await lockProgram(tx, id))) throw new ApiCatalogueNotFound('program', id)
      const removed = await removeLogo(tx, id)
      if (!removed) throw new ApiLogoNotFound()
      await audit(request, tx, id, { logo: logoOf(removed) }, { logo: null })
    })
    return reply.code(204).send()
  })

  app.patch('/api/operator/programs/:id/screenshots/:sid', { schema: { params: ScreenshotParams, body: ScreenshotChange, response: { 200: Media } } }, async (request) => {
    const { id, sid } = request.params
    const change = request.body as { alt?: Partial<Record<Locale, string | null>>; position?: number }
    const unknown = Object.keys(change.alt ?? {}).find((language) => !(LOCALES as readonly string[]).includes(language))
    if (unknown !== undefined) throw new ApiValidation(`body/alt/${unknown} is not one of the languages: ${LOCALES.join(', ')}.`)
    return db.transaction(async (tx) => {
      if (!(await lockProgram(tx, id))) throw new ApiCatalogueNotFound('program', id)
      const changed = await updateScreenshot(tx, id, sid, change)
      if (!changed) throw new ApiScreenshotNotFound()
      const before: Record<string, unknown> = { id: sid }
      const after: Record<string, unknown> = { id: sid }
      if (JSON.stringify(changed.before.alt) !== JSON.stringify(changed.after.alt)) [before.alt, after.alt] = [changed.before.alt, changed.after.alt]
      if (changed.before.position !== changed.after.position) [before.position, after.position] = [changed.before.position, changed.after.position]
      if (Object.keys(after).length > 1) await audit(request, tx, id, { screenshot: before }, { screenshot: after })
      return { logo: logoOf(await uploadedLogo(tx, id)), screenshots: await operatorScreenshots(tx, id) }
    })
  })

  app.delete('/api/operator/programs/:id/screenshots/:sid', { schema: { params: ScreenshotParams, response: { 204: NoContent } } }, async (request, reply) => {
    const { id, sid } = request.params
    await db.transaction(async (tx) => {
      if (!(await lockProgram(tx, id))) throw new ApiCatalogueNotFound('program', id)
      const removed = await removeScreenshot(tx, id, sid)
      if (!removed) throw new ApiScreenshotNotFound()
      await audit(request, tx, id, { screenshot: auditShot(removed) }, null)
    })
    return reply.code(204).send()
  })
}

export default fp(mediaRoutes, { name: 'operator-media-routes', encapsulate: true, decorators: { fastify: ['db'] } })
