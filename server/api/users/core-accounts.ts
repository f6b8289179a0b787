import { request } from 'undici'
import { Failover, splitCoreUrls } from '../../http/core-urls.ts'
import { ApiAuthUnavailable } from '../errors.ts'

// What the product API asks of the auth core about an account: its sign-in methods (emails,
// providers, verification), for the user's data export; the email of one of them, which
// the product's record follows after an email change; and its removal when the user deletes the
// account. Over the core's HTTP API with its key, like every other caller.

export interface SignInMethod {
  method: unknown
  email: unknown
  provider: string | null
  verified: unknown
  timeJoined: string | null
}

type CoreLoginMethod = Record<string, unknown>

interface RawCoreUser {
  id?: unknown
  emails?: unknown
  timeJoined?: unknown
  loginMethods?: CoreLoginMethod[]
}

/** An account as the core has it, as the operator console shows it. */
export interface CoreUser {
  id: string
  email: string | null
  joined: string | null
  /** The account's email (the first one) is verified by one of its login methods. */
  verified: boolean
  /** The login method that holds the email (for the verification mail); null when none does. */
  recipeUserId: string | null
}

/** A live session of an account (its handle stays in the core: the console ends them all). */
export interface AccountSession {
  createdAt: string
  lastUsedAt: string
  userAgent: string | null
}

function coreUser(raw: RawCoreUser): CoreUser {
  const email = Array.isArray(raw.emails) && typeof raw.emails[0] === 'string' ? raw.emails[0] : null
  const methods = raw.loginMethods ?? []
  return {
    id: String(raw.id),
    email,
    joined: typeof raw.timeJoined === 'number' ? new Date(raw.timeJoined).toISOString() : null,
    verified: email !== null && methods.some((method) => method.email === email && method.verified === true),
    recipeUserId: (() => {
      const holder = methods.find((method) => method.email === email && typeof method.recipeUserId === 'string')
      return holder ? String(holder.recipeUserId) : null
    })(),
  }
}

/** `coreUrl`: AUTH_CORE_URL's form; with several cores, one that fails or cannot be reached hands the call to the next. */
export function coreAccounts(coreUrl: string, apiKey: string | undefined) {
  const cores = new Failover(splitCoreUrls(coreUrl))
  // The request id of the call that asks, so the core's log lines carry it.
  const headers = (requestId: string | undefined, extra: Record<string, string> = {}) => ({
    'cdi-version': '5.4',
    ...(apiKey ? { 'api-key': apiKey } : {}),
    ...(requestId ? { 'x-request-id': requestId } : {}),
    ...extra,
  })

  const loginMethodsAt = async (base: string, userId: string, requestId: string | undefined): Promise<CoreLoginMethod[]> => {
    const response = await request(`${base}/user/id?userId=${encodeURIComponent(userId)}`, {
      headers: headers(requestId),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      throw new ApiAuthUnavailable()
    }
    const body = (await response.body.json()) as { user?: { loginMethods?: CoreLoginMethod[] } }
    return body.user?.loginMethods ?? []
  }
  const loginMethods = (userId: string, requestId?: string) => cores.attempt((base) => loginMethodsAt(base, userId, requestId))

  const removeUserAt = async (base: string, userId: string, requestId: string | undefined): Promise<void> => {
    const response = await request(`${base}/user/remove`, {
      method: 'POST',
      headers: headers(requestId, { 'content-type': 'application/json' }),
      body: JSON.stringify({ userId, removeAllLinkedAccounts: true }),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    })
    const body = response.statusCode === 200 ? ((await response.body.json()) as { status?: string }) : (await response.body.dump(), null)
    if (body?.status !== 'OK') throw new ApiAuthUnavailable()
  }

  // No core reached (refused, timed out): the core is unavailable, said as such, not a 500.
  const reached = <T>(attempt: Promise<T>): Promise<T> =>
    attempt.catch((error: unknown) => {
      throw error instanceof ApiAuthUnavailable ? error : new ApiAuthUnavailable()
    })
  // A CDI call answered 200 with JSON; anything else is the core being unavailable, except a 400
  // when the caller wants it (the search's pagination token), answered as `badRequest`.
  const callAt = async <T>(base: string, method: 'GET' | 'POST', path: string, requestId: string | undefined, payload?: unknown): Promise<T | { badRequest: string }> => {
    const response = await request(`${base}${path}`, {
      method,
      headers: headers(requestId, payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    })
    if (response.statusCode === 400) return { badRequest: await response.body.text() }
    if (response.statusCode !== 200) {
      await response.body.dump()
      throw new ApiAuthUnavailable()
    }
    return (await response.body.json()) as T
  }
  const call = async <T>(method: 'GET' | 'POST', path: string, requestId: string | undefined, payload?: unknown): Promise<T> => {
    const answer = await reached(cores.attempt((base) => callAt<T>(base, method, path, requestId, payload)))
    if (answer !== null && typeof answer === 'object' && 'badRequest' in answer) throw new ApiAuthUnavailable()
    return answer as T
  }

  // The user-roles recipe: one CDI call, its JSON answer with status OK (or one of `expected`).
  const cdiAt = async (base: string, method: 'GET' | 'PUT' | 'POST', path: string, payload: unknown, requestId: string | undefined, expected: string[] = []): Promise<Record<string, unknown>> => {
    const response = await request(`${base}${path}`, {
      method,
      headers: headers(requestId, payload === undefined ? {} : { 'content-type': 'application/json' }),
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    })
    const body = response.statusCode === 200 ? ((await response.body.json()) as Record<string, unknown>) : (await response.body.dump(), null)
    if (body === null || (body.status !== 'OK' && !expected.includes(String(body.status)))) throw new ApiAuthUnavailable()
    return body
  }
  const cdi = (method: 'GET' | 'PUT' | 'POST', path: string, payload: unknown, requestId?: string, expected?: string[]) =>
    cores.attempt((base) => cdiAt(base, method, path, payload, requestId, expected))
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [])

  return {
    /** The account's roles in the auth core now (the public tenant's, as the SDK reads them into the token). */
    async userRoles(userId: string, requestId?: string): Promise<string[]> {
      return strings((await cdi('GET', `/recipe/user/roles?userId=${encodeURIComponent(userId)}`, undefined, requestId)).roles)
    },
    /** The ids of the accounts that hold `role`. */
    async usersWithRole(role: string, requestId?: string): Promise<string[]> {
      const body = await cdi('GET', `/recipe/role/users?role=${encodeURIComponent(role)}`, undefined, requestId, ['UNKNOWN_ROLE_ERROR'])
      return strings(body.users)
    },
    /** Gives the account a role the core has; false when the core does not have it. */
    async addUserRole(userId: string, role: string, requestId?: string): Promise<boolean> {
      return (await cdi('PUT', '/recipe/user/role', { userId, role }, requestId, ['UNKNOWN_ROLE_ERROR'])).status === 'OK'
    },
    async removeUserRole(userId: string, role: string, requestId?: string): Promise<void> {
      await cdi('POST', '/recipe/user/role/remove', { userId, role }, requestId, ['UNKNOWN_ROLE_ERROR'])
    },
    /** Whether the core has an account with this id. */
    async userExists(userId: string, requestId?: string): Promise<boolean> {
      return (await cdi('GET', `/user/id?userId=${encodeURIComponent(userId)}`, undefined, requestId, ['UNKNOWN_USER_ID_ERROR'])).status === 'OK'
    },
    /**
     * The operator console's search: the core's `GET /users` — an email term matches the
     * start of the address or of its domain, `;` separates terms — a page at a time, oldest first.
     * `invalidToken` when the core refuses the pagination token.
     */
    async searchUsers(email: string, paginationToken: string | undefined, limit: number, requestId?: string): Promise<{ users: CoreUser[]; next: string | null } | 'invalidToken'> {
      const query = new URLSearchParams({ email, limit: String(limit), timeJoinedOrder: 'ASC' })
      if (paginationToken !== undefined) query.set('paginationToken', paginationToken)
      const answer = await reached(cores.attempt((base) => callAt<{ users?: RawCoreUser[]; nextPaginationToken?: string }>(base, 'GET', `/users?${query}`, requestId)))
      if ('badRequest' in answer) {
        if (paginationToken !== undefined) return 'invalidToken'
        throw new ApiAuthUnavailable()
      }
      return { users: (answer.users ?? []).map(coreUser), next: answer.nextPaginationToken ?? null }
    },
    /** The account as the core has it; null when the core knows no such user. */
    async user(userId: string, requestId?: string): Promise<CoreUser | null> {
      const answer = await call<{ status?: string; user?: RawCoreUser }>('GET', `/user/id?userId=${encodeURIComponent(userId)}`, requestId)
      return answer.status === 'OK' && answer.user ? coreUser(answer.user) : null
    },
    /** Whether the account has a confirmed authenticator (a verified TOTP device). */
    async authenticatorOn(userId: string, requestId?: string): Promise<boolean> {
      const answer = await call<{ devices?: Array<{ verified?: unknown }> }>('GET', `/recipe/totp/device/list?userId=${encodeURIComponent(userId)}`, requestId)
      return (answer.devices ?? []).some((device) => device.verified === true)
    },
    /**
     * The account's live sessions, oldest first: when each began, and when it was last used and in
     * which browser as the BFF notes them in the session's data (server/bff/account/device-sessions.ts).
     */
    async sessions(userId: string, requestId?: string): Promise<AccountSession[]> {
      const { sessionHandles = [] } = await call<{ sessionHandles?: string[] }>('GET', `/recipe/session/user?userId=${encodeURIComponent(userId)}`, requestId)
      const infos = await Promise.all(
        sessionHandles.map((handle) =>
          call<{ status?: string; timeCreated?: number; userDataInDatabase?: { userAgent?: unknown; lastUsedAt?: unknown } }>('GET', `/recipe/session?sessionHandle=${encodeURIComponent(handle)}`, requestId),
        ),
      )
      const sessions: AccountSession[] = []
      for (const info of infos) {
        if (info.status !== 'OK' || typeof info.timeCreated !== 'number') continue // ended between the two calls
        const data = info.userDataInDatabase ?? {}
        sessions.push({
          createdAt: new Date(info.timeCreated).toISOString(),
          lastUsedAt: new Date(Math.max(typeof data.lastUsedAt === 'number' ? data.lastUsedAt : 0, info.timeCreated)).toISOString(),
          userAgent: typeof data.userAgent === 'string' ? data.userAgent : null,
        })
      }
      return sessions
    },
    /** Ends every session of the account (its linked login methods', in every tenant); how many ended. */
    async endSessions(userId: string, requestId?: string): Promise<number> {
      const answer = await call<{ status?: string; sessionHandlesRevoked?: unknown[] }>('POST', '/recipe/session/remove', requestId, { userId })
      if (answer.status !== 'OK') throw new ApiAuthUnavailable()
      return answer.sessionHandlesRevoked?.length ?? 0
    },
    async signInMethods(userId: string, requestId?: string): Promise<SignInMethod[]> {
      return (await loginMethods(userId, requestId)).map((method) => ({
        method: method.recipeId,
        email: method.email ?? null,
        provider: (method.thirdParty as { id?: string } | undefined)?.id ?? null,
        verified: method.verified ?? null,
        timeJoined: typeof method.timeJoined === 'number' ? new Date(method.timeJoined).toISOString() : null,
      }))
    },
    /** Removes the user with every linked account, session, device and metadata; removing one already gone is fine. */
    removeUser: (userId: string, requestId?: string): Promise<void> => cores.attempt((base) => removeUserAt(base, userId, requestId)),

    /** The email the core holds now for this login method of the account; null when it has none. */
    async accountEmail(userId: string, recipeUserId: string, requestId?: string): Promise<string | null> {
      const method = (await loginMethods(userId, requestId)).find((candidate) => candidate.recipeUserId === recipeUserId)
      return typeof method?.email === 'string' ? method.email : null
    },
  }
}
