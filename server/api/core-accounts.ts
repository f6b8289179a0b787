import { request } from 'undici'
import { ApiAuthUnavailable } from './errors.ts'

// What the product API asks of the auth core about an account: its sign-in methods (emails,
// providers, verification), for the user's data export, and its removal when the user deletes the
// account (issue 11). Over the core's HTTP API with its key, like every other caller.

export interface SignInMethod {
  method: unknown
  email: unknown
  provider: string | null
  verified: unknown
  timeJoined: string | null
}

export function coreAccounts(coreUrl: string, apiKey: string | undefined) {
  const base = coreUrl.replace(/\/+$/, '')
  return {
    async signInMethods(userId: string): Promise<SignInMethod[]> {
      const response = await request(`${base}/user/id?userId=${encodeURIComponent(userId)}`, {
        headers: { 'cdi-version': '5.4', ...(apiKey ? { 'api-key': apiKey } : {}) },
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      })
      if (response.statusCode !== 200) {
        await response.body.dump()
        throw new ApiAuthUnavailable()
      }
      const body = (await response.body.json()) as { user?: { loginMethods?: Array<Record<string, unknown>> } }
      return (body.user?.loginMethods ?? []).map((method) => ({
        method: method.recipeId,
        email: method.email ?? null,
        provider: (method.thirdParty as { id?: string } | undefined)?.id ?? null,
        verified: method.verified ?? null,
        timeJoined: typeof method.timeJoined === 'number' ? new Date(method.timeJoined).toISOString() : null,
      }))
    },
    /** Removes the user with every linked account, session, device and metadata; removing one already gone is fine. */
    async removeUser(userId: string): Promise<void> {
      const response = await request(`${base}/user/remove`, {
        method: 'POST',
        headers: { 'cdi-version': '5.4', 'content-type': 'application/json', ...(apiKey ? { 'api-key': apiKey } : {}) },
        body: JSON.stringify({ userId, removeAllLinkedAccounts: true }),
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      })
      const body = response.statusCode === 200 ? ((await response.body.json()) as { status?: string }) : (await response.body.dump(), null)
      if (body?.status !== 'OK') throw new ApiAuthUnavailable()
    },
  }
}
