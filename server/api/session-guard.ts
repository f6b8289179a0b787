import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccessTokens, Viewer } from './access-tokens.ts'
import {
  ApiAccountDisabled,
  ApiAuthUnavailable,
  ApiEmailNotVerified,
  ApiMfaRequired,
  ApiSessionRequired,
  ApiUserNotFound,
  USER_NOT_FOUND,
} from './errors.ts'
import { getUser, recordCheckedEmail, type ProductUser } from './users/repository.ts'

// Who is asking, for every route that belongs to a signed-in user (the user's record, library,
// profile, the drive): the session's access token, then the product record.

declare module 'fastify' {
  interface FastifyRequest {
    viewer?: Viewer
  }
}

/** What a route needs of the session: any valid one (sign-up), or fully signed in. */
export type SessionLevel = 'session' | 'complete'

export interface SessionGuard {
  /** A preHandler: the session's token is valid (and, for 'complete', its email verified and MFA done). */
  authenticate(level: SessionLevel): (request: FastifyRequest) => Promise<void>
  /** The signed-in user's record, when it exists and is not disabled; after `authenticate`. */
  activeUser(request: FastifyRequest): Promise<ProductUser>
  /** The record with the account's current email (see below); after `authenticate`. */
  emailInStep(request: FastifyRequest, user: ProductUser): Promise<ProductUser>
}

export interface SessionGuardOptions {
  tokens: AccessTokens
  /** The email the auth core holds now for a login method of the account (core-accounts.ts). */
  accountEmail: (userId: string, recipeUserId: string, requestId?: string) => Promise<string | null>
}

export function sessionGuard(app: FastifyInstance, opts: SessionGuardOptions): SessionGuard {
  const db = app.db

  const authenticate = (level: SessionLevel) => async (request: FastifyRequest) => {
    const check = await opts.tokens.check(request.headers.authorization)
    if (!check.ok) throw check.reason === 'unavailable' ? new ApiAuthUnavailable() : new ApiSessionRequired()
    if (level === 'complete') {
      if (!check.viewer.mfaComplete) throw new ApiMfaRequired()
      if (!check.viewer.emailVerified) throw new ApiEmailNotVerified()
    }
    request.viewer = check.viewer
  }

  /**
   * The record's email follows the auth core's ("change the email"). The BFF puts the
   * account's email in every session's token, and after a change in the tokens issued from then
   * on; a token showing another email than the record, issued no earlier than the record was last
   * compared, makes the API ask the core — the core, not the token, because a token refreshed
   * while the change was under way may still carry the old address. Older tokens of the other
   * sessions (up to an access token's lifetime) ask nothing. The core unreachable keeps the copy.
   */
  const emailInStep = async (request: FastifyRequest, user: ProductUser): Promise<ProductUser> => {
    const viewer = request.viewer!
    if (viewer.email === undefined || viewer.email === user.email) return user
    if (user.emailCheckedAt !== null && viewer.issuedAt < Math.floor(user.emailCheckedAt / 1000)) return user
    try {
      const email = (await opts.accountEmail(viewer.userId, viewer.recipeUserId, request.id)) ?? user.email
      const checked = await recordCheckedEmail(db, user.id, email, Date.now())
      if (email !== user.email) request.log.info({ event: 'email-followed' }, 'the record took the account\'s new email from the auth core')
      return checked ?? user
    } catch (err) {
      request.log.warn({ err }, 'the auth core could not be asked for the account\'s email')
      return user
    }
  }

  const activeUser = async (request: FastifyRequest): Promise<ProductUser> => {
    const user = await getUser(db, request.viewer!.userId)
    if (!user) {
      // Deleted a moment ago: the core has ended its sessions, and this instance may
      // not have read that yet. Read the list now, so the caller is told it is signed out.
      await app.revokedSessions.read().catch(() => {})
      if (!(await opts.tokens.check(request.headers.authorization)).ok) throw new ApiSessionRequired()
      throw new ApiUserNotFound(USER_NOT_FOUND.session)
    }
    if (user.disabled) throw new ApiAccountDisabled()
    return emailInStep(request, user)
  }

  return { authenticate, activeUser, emailInStep }
}

/**
 * Every answer of the routes of `scope` (a plugin's own scope) is `Cache-Control: no-store`: a
 * signed-in user's data, or a share link's, is never kept by a browser or a proxy (SECURITY.md).
 */
export function answerPrivately(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.header('cache-control', 'no-store')
    return payload
  })
}
