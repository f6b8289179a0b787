import { request } from 'undici'
import { Failover, splitCoreUrls } from '../http/core-urls.ts'
import { ApiAuthUnavailable } from './errors.ts'

// What the product API asks of the auth core about an account: its sign-in methods (emails,
// providers, verification), for the user's data export (issue 11); the email of one of them, which
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

/** `coreUrl`: AUTH_CORE_URL's form; with several cores, one that fails or cannot be reached hands the call to the next. */
export function coreAccounts(coreUrl: string, apiKey: string | undefined) {
  const cores = new Failover(splitCoreUrls(coreUrl))
  // The request id of the call that asks, so the core's log lines carry it (issue 14).
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

  // The user-roles recipe (issue 28): one CDI call, its JSON answer with status OK (or one of `expected`).
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
