import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'

// A real OpenID Connect provider on loopback (oidc-provider, with its development login and
// consent pages) for the external sign-in tests: the SDK discovers it, the browser side is driven
// here with plain HTTP, and the tokens and user info are the provider's own.

export interface LocalOidcProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** Follows an authorisation URL through login and consent as `login`; answers the redirect back to the app. */
  signIn(authorisationUrl: string, login: string): Promise<URL>
}

/** Whoever owns the provider's lifetime: a tap test, or the browser tests' service process. */
interface Owner {
  teardown(fn: () => unknown): void
}

export async function startOidcProvider(t: Owner, redirectUri: string, port = 0): Promise<LocalOidcProvider> {
  const clientId = 'softshelf-test'
  const clientSecret = 'softshelf-test-secret-0123456789'
  // The issuer needs the port before the provider exists: listen first on a plain server.
  const { createServer } = await import('node:http')
  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.end()
  const server = createServer((req, res) => handler!(req, res))
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'] }],
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, email: id, email_verified: true }) }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    cookies: { keys: ['local-oidc-provider-test-key'] },
    pkce: { required: () => false },
    // Like most providers, put the email claims in the ID token too (the SDK reads email_verified there).
    conformIdTokenClaims: false,
  })
  handler = provider.callback()

  async function signIn(authorisationUrl: string, login: string): Promise<URL> {
    const jar = new Map<string, string>()
    const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
    const remember = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';')
        const at = pair.indexOf('=')
        jar.set(pair.slice(0, at), pair.slice(at + 1))
      }
    }
    let next: { url: string; init: RequestInit } = { url: authorisationUrl, init: {} }
    for (let step = 0; step < 12; step++) {
      const response = await fetch(next.url, { ...next.init, redirect: 'manual', headers: { ...(next.init.headers as Record<string, string>), cookie: cookieHeader() } })
      remember(response)
      const location = response.headers.get('location')
      if (location) {
        const target = new URL(location, next.url)
        if (target.href.startsWith(redirectUri)) return target
        next = { url: target.href, init: {} }
        continue
      }
      const html = await response.text()
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1]
      if (!action || !prompt) throw new Error(`the provider showed something unexpected (${response.status}): ${html.slice(0, 200)}`)
      const fields = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt })
      next = { url: new URL(action.replace(/&amp;/g, '&'), next.url).href, init: { method: 'POST', body: fields.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } }
    }
    throw new Error('the provider did not redirect back within 12 steps')
  }

  return { issuer, clientId, clientSecret, signIn }
}
