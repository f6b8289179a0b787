import Fastify, { type FastifyInstance, type preHandlerHookHandler } from 'fastify'
import supertokens from 'supertokens-node'
import EmailPassword from 'supertokens-node/recipe/emailpassword'
import EmailVerification from 'supertokens-node/recipe/emailverification'
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth'
import Session from 'supertokens-node/recipe/session'
import { verifySession as sdkVerifySession } from 'supertokens-node/recipe/session/framework/fastify'
import ThirdParty from 'supertokens-node/recipe/thirdparty'
import Totp from 'supertokens-node/recipe/totp'
import UserMetadata from 'supertokens-node/recipe/usermetadata'
import { errorHandler, plugin } from 'supertokens-node/framework/fastify'
import type { Test } from 'tap'
import { buildAuthCore } from '../../../server/authcore/app.ts'
import { resetSupertokensForTests } from '../../../server/bff/auth/supertokens.ts'
import { testCoreConfig, openTestDatabase, TEST_AUTH_CORE_SECRET as TEST_SECRET } from '../../helpers.ts'

// The conformance harness (AUTH-CORE.md): our auth core on loopback, and a Fastify app that runs the
// real supertokens-node 24.0.3 against it with the recipes of DESIGN.md §4.3. Every core call
// the SDK makes is counted, so tests can assert the call sequences of AUTH-CORE.md §4.


export { TEST_SECRET }

/** Our auth core on loopback; `now` is its clock (a test's TestClock), the wall clock without one. */
export async function startCore(t: Test, options: { apiKeys?: string[]; now?: () => number } = {}) {
  const db = await openTestDatabase(t)
  const core = await buildAuthCore({ config: testCoreConfig(), db, secret: TEST_SECRET, apiKeys: options.apiKeys ?? null, ...(options.now ? { now: options.now } : {}) })
  await core.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => core.close())
  const { port } = core.server.address() as { port: number }
  return { core, db, url: `http://127.0.0.1:${port}` }
}

export interface Mail {
  kind: 'verify' | 'reset'
  email: string
  link: string
}

export interface SdkApp {
  app: FastifyInstance
  mails: Mail[]
  coreCalls: string[]
}

/** The SDK's handler, typed for Fastify 5 (its types target Fastify 4). */
const verifySession = (options?: Parameters<typeof sdkVerifySession>[0]) => sdkVerifySession(options) as unknown as preHandlerHookHandler

/** supertokens-node is a process-wide singleton: one SDK app at a time, each set up anew. */
export async function startSdkApp(t: Test, connectionURI: string, options: { apiKey?: string } = {}): Promise<SdkApp> {
  const mails: Mail[] = []
  const coreCalls: string[] = []
  // A BFF or another file's SDK app may have set it up earlier in this process (scripts/tap-group.mjs).
  await resetSupertokensForTests()
  supertokens.init({
    framework: 'fastify',
    supertokens: {
      connectionURI,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      networkInterceptor: (request) => {
        coreCalls.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`)
        return request
      },
    },
    appInfo: { appName: 'Softshelf', apiDomain: 'http://localhost:3000', websiteDomain: 'http://localhost:3000', apiBasePath: '/auth', websiteBasePath: '/' },
    recipeList: [
      EmailPassword.init({
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) => {
              mails.push({ kind: 'reset', email: input.user.email, link: input.passwordResetLink })
            },
          }),
        },
      }),
      EmailVerification.init({
        mode: 'REQUIRED',
        emailDelivery: {
          override: (original) => ({
            ...original,
            sendEmail: async (input) => {
              mails.push({ kind: 'verify', email: input.user.email, link: input.emailVerifyLink })
            },
          }),
        },
      }),
      ThirdParty.init({
        signInAndUpFeature: {
          providers: [
            {
              config: { thirdPartyId: 'mock', name: 'Mock IdP', clients: [{ clientId: 'client', clientSecret: 'secret' }], authorizationEndpoint: 'http://127.0.0.1:9/authorize', tokenEndpoint: 'http://127.0.0.1:9/token' },
              // The IdP exchange happens in the SDK, not the core: answered here without a network.
              override: ((original: Record<string, unknown>) => ({
                ...original,
                exchangeAuthCodeForOAuthTokens: async ({ redirectURIInfo }: { redirectURIInfo: { redirectURIQueryParams: Record<string, string> } }) => ({
                  access_token: String(redirectURIInfo.redirectURIQueryParams.code),
                }),
                getUserInfo: async ({ oAuthTokens }: { oAuthTokens: Record<string, unknown> }) => {
                  const [id, email, verified] = String(oAuthTokens.access_token).split('|')
                  return {
                    thirdPartyUserId: id!,
                    email: { id: email!, isVerified: verified === 'verified' },
                    rawUserInfoFromProvider: { fromIdTokenPayload: {}, fromUserInfoAPI: {} },
                  }
                },
                // The SDK's provider type is a union of OAuth and SAML shapes; this one is OAuth.
              })) as never,
            },
          ],
        },
      }),
      Session.init({ getTokenTransferMethod: () => 'cookie' }),
      MultiFactorAuth.init({ firstFactors: ['emailpassword', 'thirdparty'] }),
      Totp.init(),
      UserMetadata.init(),
    ],
  })
  const app = Fastify()
  await app.register(plugin)
  app.setErrorHandler(errorHandler())
  app.get('/protected', { preHandler: verifySession() }, async (request) => {
    const session = (request as unknown as { session: { getUserId(): string; getHandle(): string } }).session
    return { userId: session.getUserId(), handle: session.getHandle() }
  })
  app.get('/protected-db', { preHandler: verifySession({ checkDatabase: true }) }, async () => ({ ok: true }))
  app.get('/unverified-ok', { preHandler: verifySession({ overrideGlobalClaimValidators: () => [] }) }, async (request) => {
    const session = (request as unknown as { session: { getUserId(): string; getRecipeUserId(): { getAsString(): string }; getAccessTokenPayload(): Record<string, unknown> } }).session
    return { userId: session.getUserId(), recipeUserId: session.getRecipeUserId().getAsString(), payload: session.getAccessTokenPayload() }
  })
  app.post('/merge', { preHandler: verifySession({ overrideGlobalClaimValidators: () => [] }) }, async (request) => {
    const session = (request as unknown as { session: { mergeIntoAccessTokenPayload(p: Record<string, unknown>): Promise<void> } }).session
    await session.mergeIntoAccessTokenPayload({ custom: 'value' })
    return { ok: true }
  })
  await app.ready()
  t.teardown(() => app.close())
  return { app, mails, coreCalls }
}

export { CookieJar, browser } from '../../helpers.ts'

