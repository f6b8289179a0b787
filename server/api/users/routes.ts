import fp from 'fastify-plugin'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { LOCALES } from '../../../shared/locales.ts'
import { validateSignUpExtras, type UtmRecord } from '../../../shared/auth/sign-up.ts'
import type { SignInMethod } from './core-accounts.ts'
import {
  ApiAuthUnavailable,
  ApiCatalogueNotFound,
  ApiDeletionPending,
  ApiProgramRetired,
  ApiSessionRequired,
  ApiUserNotFound,
  ApiValidation,
  USER_NOT_FOUND,
} from '../errors.ts'
import { CheckoutUnavailable } from '../checkout/errors.ts'
import { ownedPrograms } from '../checkout/purchases.ts'
import {
  acceptTerms,
  addToLibrary,
  createUser,
  exportUser,
  getUser,
  libraryNewestFirst,
  recordSignIn,
  removeAvatar,
  removeFromLibrary,
  setAvatar,
  updateProfile,
  type ProductUser,
} from './repository.ts'
import { AVATAR_MAX_BYTES } from '../../../shared/constants.ts'
import { AvatarImageError, encodeAvatar, type AvatarProblem } from './avatar-image.ts'
import { AvatarTooLarge, AvatarTooManyPixels, AvatarUnreadable, AvatarUnsupportedType } from '../../http/avatar-errors.ts'
import { checkDeletionReason, checkDisplayName } from '../../../shared/account/profile.ts'
import type { AccountDeletions } from './deletions.ts'
import { answerPrivately, type SessionGuard } from '../session-guard.ts'
import type { CurrentRoles } from '../operator/guard.ts'
import { isRetired } from '../catalogue/repository.ts'
import { Id, ProgramListQuery, textLocale } from '../catalogue/routes.ts'
import { ProgramPage } from '../../../shared/catalogue/program-schemas.ts'
import { StringEnum } from '../../../shared/web/string-enum.ts'
import { DeletionSummary, LibraryChange, UserRecord } from '../../../shared/account/user-record.ts'
import { LIBRARY_VIEWS, USER_LIBRARY_API_SORT_OPTIONS } from '../../../shared/catalogue/catalogue.ts'
import { NoContent, binaryBody } from '../../http/openapi.ts'
import { NOTIFY_MODES } from '../../../shared/catalogue/living.ts'
import { watchIfNotWatched } from '../notifications/watches.ts'

// The signed-in user's own record (spec §7): made at sign-up, read by the route guard,
// terms acceptance, and the personal library. Every answer is private: Cache-Control no-store.

/** GET /api/user/programs: the public listing's query; `sort` also takes recentlyAdded (newest added first). */
const UserProgramListQuery = Type.Object(
  {
    ...ProgramListQuery.properties,
    sort: StringEnum(USER_LIBRARY_API_SORT_OPTIONS, { default: 'namePopular' }),
    view: StringEnum(LIBRARY_VIEWS, { default: 'saved', description: 'saved: the programs in the library; owned: the programs the user bought or subscribes to, saved or not (recentlyAdded: the newest purchase first).' }),
  },
  { additionalProperties: false },
)

const NullableIso = Type.Union([Type.String(), Type.Null()])
const NullableString = Type.Union([Type.String(), Type.Null()])

/** "Your data": the export. It is sent as the JSON text it already is: this schema only documents it (config.openapi). */
const UserExport = Type.Object({
  exportedAt: Type.String(),
  account: Type.Object({
    id: Type.String(),
    email: Type.String(),
    name: NullableString,
    language: Type.String(),
    languageChosen: Type.Boolean(),
    isInMailList: Type.Boolean(),
    timeJoined: NullableIso,
    utm: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'The landing-page record the browser sent with the sign-up.' }),
    notify: Type.String(),
    watchOnAdd: Type.Boolean(),
  }),
  watches: Type.Array(Type.Object({ programId: Type.String(), events: Type.Array(Type.String()), createdAt: NullableIso }), { description: 'The watchlist, oldest first.' }),
  notifications: Type.Array(
    Type.Object({ type: Type.String(), programId: Type.String(), at: NullableIso, readAt: NullableIso, data: Type.Object({}, { additionalProperties: true }) }),
    { description: 'Every notification, newest first.' },
  ),
  terms: Type.Object({ acceptedVersion: NullableString, acceptedAt: NullableIso }),
  library: Type.Array(Type.Object({ programId: Type.String(), name: Type.String(), addedAt: NullableIso })),
  files: Type.Array(
    Type.Object({
      path: Type.String(),
      type: Type.Union([Type.Literal('file'), Type.Literal('folder')]),
      size: Type.Number(),
      mimeType: NullableString,
      updatedAt: NullableIso,
      inTrash: Type.Boolean(),
    }),
    { description: 'Every file and folder of the drive by its path, the trash included; never the bytes.' },
  ),
  signInHistory: Type.Array(Type.Object({ at: NullableIso, method: Type.String(), userAgent: NullableString, ip: NullableString }), { description: 'Newest first.' }),
  avatar: Type.Union([Type.Object({ url: Type.String(), uploadedAt: NullableIso }), Type.Null()]),
  signInMethods: Type.Array(
    Type.Object({
      method: Type.String({ description: 'The auth recipe, e.g. "emailpassword" or "thirdparty".' }),
      email: NullableString,
      provider: NullableString,
      verified: Type.Union([Type.Boolean(), Type.Null()]),
      timeJoined: NullableIso,
    }),
  ),
})

function publicUser(user: ProductUser, roles: string[]) {
  const { disabled: _disabled, emailCheckedAt: _emailCheckedAt, ...rest } = user
  return { ...rest, roles }
}

export interface UserRouteOptions {
  guard: SessionGuard
  /** The account's roles now (operator/guard.ts). */
  roles: CurrentRoles
  signInMethods: (userId: string, requestId?: string) => Promise<SignInMethod[]>
  deletions: AccountDeletions
  /** The clock ownership is judged by (a subscription's paid period); tests move it. */
  now: () => number
}

async function userRoutes(app: FastifyInstance, opts: UserRouteOptions): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  const db = app.db

  const { authenticate, activeUser, emailInStep } = opts.guard
  const rolesOf = async (request: FastifyRequest) => (await opts.roles.of(request)).roles

  answerPrivately(app)

  api.put(
    '/api/user',
    {
      preHandler: authenticate('session'),
      schema: {
        body: Type.Object(
          {
            isInMailList: Type.Optional(Type.Boolean()),
            utm: Type.Optional(Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })])),
            language: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...LOCALES] })),
            // How this sign-in happened ('password', or the external provider's id): for the history.
            signInMethod: Type.Optional(Type.String({ pattern: '^[a-z0-9-]{1,40}$' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: UserRecord },
      },
    },
    async (request, reply) => {
      const viewer = request.viewer!
      if (!viewer.email) throw new ApiSessionRequired()
      const utmProblem = validateSignUpExtras.utm(request.body.utm)
      if (utmProblem) throw new ApiValidation(utmProblem)
      const user = await createUser(db, {
        id: viewer.userId,
        email: viewer.email,
        isInMailList: request.body.isInMailList ?? false,
        utm: (request.body.utm ?? null) as UtmRecord | null,
        language: request.body.language ?? 'en',
      })
      if (request.body.signInMethod) {
        const forwardedFor = request.headers['x-forwarded-for']
        await recordSignIn(db, user.id, {
          method: request.body.signInMethod,
          userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'] : null,
          ip: typeof forwardedFor === 'string' ? (forwardedFor.split(',')[0]?.trim() ?? null) : null,
        })
      }
      reply.code(200)
      // Every sign-in comes here with a new session's token: an email changed since is taken up.
      return publicUser(await emailInStep(request, user), await rolesOf(request))
    },
  )

  api.get('/api/user', { preHandler: authenticate('complete'), schema: { response: { 200: UserRecord } } }, async (request) => publicUser(await activeUser(request), await rolesOf(request)))

  // The profile's name and language. An empty name removes it.
  api.patch(
    '/api/user',
    {
      preHandler: authenticate('complete'),
      schema: {
        body: Type.Object(
          {
            name: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 1000 })])),
            language: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...LOCALES] })),
            // How notifications are mailed, and whether adding to the library watches.
            notify: Type.Optional(StringEnum(NOTIFY_MODES)),
            watchOnAdd: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 200: UserRecord },
      },
    },
    async (request) => {
      const user = await activeUser(request)
      const { notify, watchOnAdd } = request.body
      if (request.body.name === undefined && request.body.language === undefined && notify === undefined && watchOnAdd === undefined) {
        throw new ApiValidation('Give a name, a language, notify or watchOnAdd to change.')
      }
      let name: string | null | undefined
      if (typeof request.body.name === 'string') {
        const checked = checkDisplayName(request.body.name)
        if ('problem' in checked) throw new ApiValidation(checked.problem)
        name = checked.name
      } else if (request.body.name === null) name = null
      const change = {
        ...(name !== undefined ? { name } : {}),
        ...(request.body.language ? { language: request.body.language } : {}),
        ...(notify !== undefined ? { notify } : {}),
        ...(watchOnAdd !== undefined ? { watchOnAdd } : {}),
      }
      return publicUser((await updateProfile(db, user.id, change))!, await rolesOf(request))
    },
  )

  // "Your data": everything kept about the account, as one JSON file to download.
  const exportDocs = { response: { 200: { description: 'The JSON file (Content-Disposition: attachment).', content: { 'application/json': UserExport } } } }
  api.get('/api/user/export', { preHandler: authenticate('complete'), config: { openapi: exportDocs } }, async (request, reply) => {
    const user = await activeUser(request)
    const data = await exportUser(db, user.id)
    const day = new Date().toISOString().slice(0, 10)
    reply.header('content-disposition', `attachment; filename="softshelf-data-${day}.json"`)
    reply.type('application/json; charset=utf-8')
    return JSON.stringify({ exportedAt: new Date().toISOString(), ...data, signInMethods: await opts.signInMethods(user.id, request.id) }, null, 2)
  })

  // What deleting the account removes beyond the record: said on the profile before the person confirms.
  api.get('/api/user/deletion-summary', { preHandler: authenticate('complete'), schema: { response: { 200: DeletionSummary } } }, async (request) => {
    const user = await activeUser(request)
    return opts.deletions.summary(user.id)
  })

  // Deleting the account. The BFF has checked the confirmation (the typed email, a
  // current TOTP code) and calls this with the user's own session; see account-deletions.ts.
  api.post(
    '/api/user/delete',
    {
      preHandler: authenticate('complete'),
      schema: { body: Type.Object({ reason: Type.String({ maxLength: 64 }), comment: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 20_000 })])) }, { additionalProperties: false }), response: { 204: NoContent } },
    },
    async (request, reply) => {
      const user = await activeUser(request)
      const checked = checkDeletionReason(request.body.reason, request.body.comment)
      if ('problem' in checked) throw new ApiValidation(checked.problem)
      try {
        if (!(await opts.deletions.delete(user.id, checked.reason, checked.comment))) throw new ApiUserNotFound(USER_NOT_FOUND.session)
      } catch (error) {
        // The core or Stripe (cancelling subscriptions) did not answer: the request is kept and
        // finished by the sweep; the person is told so, not shown a failure.
        if (error instanceof ApiAuthUnavailable || error instanceof CheckoutUnavailable) throw Object.assign(new ApiDeletionPending(), { retryAfter: 60 })
        throw error
      }
      request.log.info({ event: 'account-deleted', reason: checked.reason }, 'an account was deleted')
      return reply.code(204).send()
    },
  )

  api.post(
    '/api/user/accept-tos',
    { preHandler: authenticate('complete'), schema: { body: Type.Object({ isInMailList: Type.Boolean() }, { additionalProperties: false }), response: { 200: UserRecord } } },
    async (request) => {
      const before = await activeUser(request)
      return publicUser((await acceptTerms(db, before.id, request.body.isInMailList))!, await rolesOf(request))
    },
  )

  // The personal library: the same filters, search and sorts as the public listing, and its own
  // "recently added".
  api.get('/api/user/programs', { preHandler: authenticate('complete'), schema: { querystring: UserProgramListQuery, response: { 200: ProgramPage } } }, async (request, reply) => {
    const user = await activeUser(request)
    const { view, ...query } = request.query
    const ids = view === 'owned' ? await ownedPrograms(db, user.id, new Date(opts.now())) : await libraryNewestFirst(db, user.id)
    return app.catalogue.list(query, ids, textLocale(request, reply))
  })

  // Which programs are in the library, for the add/remove state of the catalogue pages under /@,
  // and which the user owns, for their "Owned" marks (private, like every answer here).
  api.get(
    '/api/user/program-ids',
    {
      preHandler: authenticate('complete'),
      schema: {
        response: {
          200: Type.Object({
            programIds: Type.Array(Type.String(), { description: 'The programs in the library, sorted.' }),
            ownedIds: Type.Array(Type.String(), { description: 'The programs bought once, or subscribed to with the paid period running, sorted; in the library or not.' }),
          }),
        },
      },
    },
    async (request) => {
      const user = await activeUser(request)
      const [saved, owned] = await Promise.all([libraryNewestFirst(db, user.id), ownedPrograms(db, user.id, new Date(opts.now()))])
      return { programIds: saved.sort(), ownedIds: owned.sort() }
    },
  )

  for (const method of ['post', 'delete'] as const) {
    api[method]('/api/user/program/:id', { preHandler: authenticate('complete'), schema: { params: Type.Object({ id: Id }), response: { 200: LibraryChange } } }, async (request) => {
      const user = await activeUser(request)
      const programId = request.params.id
      // A retired program stays in the libraries that hold it, and may leave them, but is added to none.
      if (method === 'post' && (await isRetired(db, programId))) throw new ApiProgramRetired(programId)
      const known = method === 'post' ? await addToLibrary(db, user.id, programId) : await removeFromLibrary(db, user.id, programId)
      if (!known) throw new ApiCatalogueNotFound('program', programId)
      // With the account's watchOnAdd, what is added is watched (a watch it has stays as it is).
      if (method === 'post' && user.watchOnAdd) await watchIfNotWatched(db, user.id, programId)
      return { programId, inLibrary: method === 'post', librarySize: (await getUser(db, user.id))!.librarySize }
    })
  }

  // The avatar: the image's bytes are the body. The BFF has refused what is too large or
  // not an image before sending; the API checks again (it is the one that stores), then decodes
  // and re-encodes. A refused upload leaves the old avatar.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    scope.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: AVATAR_MAX_BYTES }, (_request, body, done) => done(null, body))
    scope.put(
      '/api/user/avatar',
      {
        bodyLimit: AVATAR_MAX_BYTES,
        preHandler: authenticate('complete'),
        schema: { response: { 200: Type.Object({ avatarUrl: Type.String() }) } },
        config: { openapi: { body: { 'application/octet-stream': binaryBody('The image: PNG, JPEG or WebP, at most 5 MiB.') } } },
        errorHandler: (error, _request, _reply) => {
          throw (error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new AvatarTooLarge() : error
        },
      },
      async (request) => {
        const user = await activeUser(request)
        const upload = request.body instanceof Buffer ? request.body : Buffer.alloc(0)
        let image: Buffer
        try {
          image = await encodeAvatar(upload)
        } catch (error) {
          if (error instanceof AvatarImageError) throw avatarError(error.problem)
          throw error
        }
        const avatarUrl = await setAvatar(db, user.id, image)
        if (!avatarUrl) throw new ApiUserNotFound(USER_NOT_FOUND.session)
        request.log.info({ event: 'avatar', bytesIn: upload.length, bytesOut: image.length }, 'avatar replaced')
        return { avatarUrl }
      },
    )
  })

  api.delete('/api/user/avatar', { preHandler: authenticate('complete'), schema: { response: { 204: NoContent } } }, async (request, reply) => {
    const user = await activeUser(request)
    await removeAvatar(db, user.id)
    return reply.code(204).send()
  })
}

function avatarError(problem: AvatarProblem): Error {
  if (problem === 'unsupported-type') return new AvatarUnsupportedType()
  if (problem === 'too-many-pixels') return new AvatarTooManyPixels()
  return new AvatarUnreadable()
}

export default fp(userRoutes, { name: 'users-routes', encapsulate: true, decorators: { fastify: ['catalogue', 'db'] } })
