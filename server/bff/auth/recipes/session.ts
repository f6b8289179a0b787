import supertokens from 'supertokens-node'
import Session from 'supertokens-node/recipe/session'
import type { FastifyRequest } from 'fastify'
import { BffAuthCoreUnavailable } from '../../errors.ts'
import type { RecipeContext } from './context.ts'

// Session in the BFF's SDK: cookie sessions with the custom-header anti-CSRF, checked against the
// revocation list.

/** Longest User-Agent kept with a session (the profile's device list). */
const USER_AGENT_MAX_LENGTH = 300

export function sessionRecipe({ settings, https }: RecipeContext) {
  return Session.init({
    override: {
      functions: (original) => ({
        ...original,
        // The SDK checks an access token's signature and expiry only: a session ended early, or
        // a JWT the core signed for another purpose, must not open a page or /auth.
        getSession: async (input) => {
          const session = await original.getSession(input)
          if (!session) return session
          // The token presented, and the one the core may have issued in its place.
          const verdict = settings.sessionVerdict([...(input.accessToken ? [input.accessToken] : []), session.getAccessToken()], session.getHandle())
          if (verdict === 'unknown') throw new BffAuthCoreUnavailable()
          if (verdict !== 'ok') {
            throw new Session.Error({ type: Session.Error.UNAUTHORISED, message: verdict === 'revoked' ? 'The session has ended' : 'Not a session access token', payload: { clearTokens: true } })
          }
          return session
        },
        revokeSession: async (input) => {
          const revoked = await original.revokeSession(input)
          settings.sessionEnded(input.sessionHandle)
          return revoked
        },
        // The product API reads the account's email from the access token it authorises by.
        // The profile lists the signed-in devices: the session keeps the browser it
        // began in and when it was last used.
        createNewSession: async (input) => {
          const user = await supertokens.getUser(input.recipeUserId.getAsString(), input.userContext)
          const email = user?.loginMethods.find((m) => m.recipeUserId.getAsString() === input.recipeUserId.getAsString())?.email ?? user?.emails[0]
          const request = supertokens.getRequestFromUserContext(input.userContext)?.original as FastifyRequest | undefined
          const userAgent = request?.headers['user-agent']?.slice(0, USER_AGENT_MAX_LENGTH)
          return original.createNewSession({
            ...input,
            accessTokenPayload: { ...input.accessTokenPayload, ...(email ? { email } : {}) },
            sessionDataInDatabase: { ...input.sessionDataInDatabase, ...(userAgent ? { userAgent } : {}), lastUsedAt: Date.now() },
          })
        },
        // A refresh is a use (about once per access-token lifetime while the device is in use).
        refreshSession: async (input) => {
          const session = await original.refreshSession(input)
          try {
            const data = (await session.getSessionDataFromDatabase(input.userContext)) as Record<string, unknown>
            await session.updateSessionDataInDatabase({ ...data, lastUsedAt: Date.now() }, input.userContext)
          } catch (err) {
            // The refresh itself succeeded: a stale "last used" is no reason to fail it.
            ;(supertokens.getRequestFromUserContext(input.userContext)?.original as FastifyRequest | undefined)?.log.warn({ err }, 'the session\'s last use could not be recorded')
          }
          return session
        },
      }),
    },
    getTokenTransferMethod: () => 'cookie',
    cookieSameSite: 'lax',
    cookieSecure: https,
    antiCsrf: 'VIA_CUSTOM_HEADER',
  })
}
