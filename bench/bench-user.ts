// A user made the way a browser makes one, for the benchmarks: sign-up through the BFF, then the
// verification link's token (asked of the auth core with its API key), sent back with the session.

/** The session's cookies (sAccessToken among them) of a new, verified user. */
export async function verifiedUser(bff: string, core: string, apiKey: string, email: string): Promise<Map<string, string>> {
  const cookies = new Map<string, string>()
  const call = async (url: string, body: unknown) => {
    const response = await fetch(`${bff}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', rid: 'anti-csrf', 'fdi-version': '4.2', cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      body: JSON.stringify(body),
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
    return (await response.json()) as Record<string, unknown>
  }
  const signedUp = await call('/auth/signup', { formFields: [{ id: 'email', value: email }, { id: 'password', value: 'a bench password' }] })
  const userId = (signedUp.user as { id: string } | undefined)?.id
  if (signedUp.status !== 'OK' || !userId) throw new Error(`the sign-up of ${email} failed: ${JSON.stringify(signedUp)}`)
  const verify = await fetch(`${core}/public/recipe/user/email/verify/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cdi-version': '5.4', 'api-key': apiKey },
    body: JSON.stringify({ userId, email }),
  })
  const { token } = (await verify.json()) as { token: string }
  const verified = await call('/auth/user/email/verify', { method: 'token', token })
  if (verified.status !== 'OK') throw new Error(`the verification of ${email} failed: ${JSON.stringify(verified)}`)
  return cookies
}
