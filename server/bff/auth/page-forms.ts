import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { afterWrongCredentials, outcomeOfAnswer, problemOfHttp, type AuthProblem, type BlockStatus, type FormOutcome, type SdkAnswer } from '../../../shared/auth/forms.ts'
import { nextAccountStep, readReturn, returnSearch, SIGNED_IN_HOME, type ReturnTarget } from '../../../shared/auth/return-path.ts'
import { PASSWORD_ERRORS } from '../../../shared/auth/sign-up.ts'
import { isSameOriginForm } from '../csrf.ts'
import { FRONT_TOKEN_COOKIE, mirrorFrontToken } from './page-session.ts'

// The account forms without JavaScript (decision 025). A page's <form
// method="post"> sent before its script ran arrives here as an urlencoded post to the page's own
// address. It is answered through the very routes the page's script calls — the SDK's /auth API
// (with its login-attempt blocking, field checks and rate limits) and the BFF's /api — by
// injecting the same JSON call, for the same client address, with the custom header that only
// the checks below vouch for. The answer is a 303 to where the script would go, or the page
// rendered with the outcome the script would show (the route's action data, shared/auth/forms.ts).

/**
 * Where the visitor goes next, or the outcome the page shows, with its HTTP status; or, for a page
 * whose route has an action of its own (the profile), the calls that action makes, for the render
 * to run it with (`routeAction`).
 */
export type PageFormAnswer = { redirect: string } | { outcome: FormOutcome; status: number } | { routeAction: FormWrites }

/** A route action's writes on the server: through the app's own routes, as the page's script would make them. */
export interface FormWrites {
  send(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<SelfAnswer>
  /** Hands the browser the cookies the calls set (a renewed or an ended session). */
  passOn(reply: FastifyReply): void
}

/** Answers a page's form post; null when the page has no form the BFF answers. */
export type PageForms = (request: FastifyRequest, reply: FastifyReply) => Promise<PageFormAnswer | null>

type Fields = Record<string, string | undefined>

/** One call through the app's own routes, as the page's script would make it. */
export interface SelfAnswer {
  status: number
  body: unknown
}

/** The request headers a self-call keeps: language, browser, the client's address as proxies report it. */
const KEPT_HEADERS = ['accept-language', 'user-agent', 'x-forwarded-for', 'x-forwarded-proto', 'host'] as const

/** A session of the form's own: the request's cookies, then what each call sets (sign-in's tokens for the next call). */
class CookieJar {
  private readonly cookies = new Map<string, string>()
  /** Every Set-Cookie of the calls, for the browser, in order. */
  readonly setCookies: string[] = []
  frontToken: string | undefined

  constructor(header: string | undefined) {
    for (const pair of (header ?? '').split(';')) {
      const at = pair.indexOf('=')
      if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim())
    }
  }

  take(headers: Record<string, unknown>): void {
    const set = headers['set-cookie']
    for (const line of Array.isArray(set) ? set : typeof set === 'string' ? [set] : []) {
      this.setCookies.push(String(line))
      const [pair = '', ...attributes] = String(line).split(';')
      const at = pair.indexOf('=')
      if (at <= 0) continue
      const name = pair.slice(0, at).trim()
      const gone = attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute) || (/^\s*expires\s*=/i.test(attribute) && Date.parse(attribute.split('=')[1] ?? '') <= Date.now()))
      if (gone) this.cookies.delete(name)
      else this.cookies.set(name, pair.slice(at + 1).trim())
    }
    if (typeof headers['front-token'] === 'string') this.frontToken = headers['front-token']
  }

  has(name: string): boolean {
    return this.cookies.has(name)
  }

  get header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }

  values(): Record<string, string> {
    return Object.fromEntries(this.cookies)
  }
}

/** The HTTP status of a page showing `outcome`. */
function statusOf(problem: AuthProblem | undefined, fields?: Record<string, string>): number {
  if (fields && Object.keys(fields).length > 0) return 400
  switch (problem?.kind) {
    case undefined:
      return 200
    case 'wrongCredentials':
    case 'signedOut':
      return 401
    case 'blocked':
    case 'signInInProgress':
    case 'tooManyRequests':
      return 429
    case 'notAllowed':
    case 'refused':
    case 'recoveryLocked':
    case 'codeLocked':
      return 403
    case 'mailUnavailable':
    case 'unavailable':
      return 503
    case 'unknown':
    case 'generalError':
      return 500
    default:
      return 400
  }
}

function answerWith(outcome: FormOutcome): PageFormAnswer {
  return { outcome, status: statusOf(outcome.problem, outcome.fields) }
}

/** One JSON call into `app` for the visitor of `request`, with the session of `jar` (which keeps what it sets). */
async function selfCall(app: FastifyInstance, request: FastifyRequest, jar: CookieJar, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<SelfAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', rid: 'anti-csrf' }
  for (const name of KEPT_HEADERS) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  if (jar.header) headers.cookie = jar.header
  if (body !== undefined) headers['content-type'] = 'application/json'
  const answer = await app.inject({
    method,
    url,
    headers,
    // The client's own address: per-IP limits and the sign-in log see the visitor, not the BFF.
    ...(request.socket.remoteAddress ? { remoteAddress: request.socket.remoteAddress } : {}),
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  })
  jar.take(answer.headers)
  let parsed: unknown = null
  try {
    parsed = String(answer.headers['content-type'] ?? '').includes('json') ? answer.json() : null
  } catch {
    parsed = null
  }
  return { status: answer.statusCode, body: parsed }
}

export function pageForms(app: FastifyInstance, options: { appOrigin: string; https: boolean }): PageForms {
  const call = (request: FastifyRequest, jar: CookieJar, method: 'GET' | 'POST', url: string, body?: unknown) => selfCall(app, request, jar, method, url, body)

  /** A failed call: the SDK's statuses (HTTP 200), or the HTTP failure. */
  const outcomeOf = (answer: SelfAnswer): FormOutcome =>
    answer.status === 200 && typeof answer.body === 'object' && answer.body !== null && 'status' in answer.body
      ? outcomeOfAnswer(answer.body as SdkAnswer)
      : { problem: problemOfHttp(answer.status, answer.body) }

  const isOk = (answer: SelfAnswer) => answer.status === 200 && (answer.body as { status?: unknown } | null)?.status === 'OK'

  /**
   * An account step is done: on to the target, as the page's script does (client/lib/account/
   * continue.ts) — through the steps still owed, and once none is, its pending "add" first.
   */
  const finish = async (request: FastifyRequest, jar: CookieJar, target: ReturnTarget | null): Promise<PageFormAnswer> => {
    if (!target?.action) return { redirect: target?.path ?? SIGNED_IN_HOME }
    const user = await call(request, jar, 'GET', '/api/user')
    const step = nextAccountStep(user.status, user.body)
    if (step !== 'ready' && step !== 'unknown') return { redirect: `${step}${returnSearch(target)}` }
    if (step === 'ready') await call(request, jar, 'POST', `/api/user/program/${encodeURIComponent(target.action.programId)}`, {})
    return { redirect: target.path }
  }

  /** "Send the email again": a new link to the signed-in account's address, carrying the target; already verified, on. */
  const sendAgain = async (request: FastifyRequest, jar: CookieJar, _fields: Fields, target: ReturnTarget | null): Promise<PageFormAnswer> => {
    const answer = await call(request, jar, 'POST', `/auth/user/email/verify/token${returnSearch(target)}`)
    if (answer.status === 200 && (answer.body as { status?: unknown } | null)?.status === 'EMAIL_ALREADY_VERIFIED_ERROR') return finish(request, jar, target)
    return answerWith(isOk(answer) ? { done: true } : outcomeOf(answer))
  }

  /** A page's form: the fields posted, the page's return target, and its own address's query. */
  const forms: Record<string, (request: FastifyRequest, jar: CookieJar, fields: Fields, target: ReturnTarget | null, query: URLSearchParams) => Promise<PageFormAnswer>> = {
    async '/login'(request, jar, fields, target) {
      const email = (fields.email ?? '').trim()
      const answer = await call(request, jar, 'POST', '/auth/signin', { formFields: [{ id: 'email', value: email }, { id: 'password', value: fields.password ?? '' }] })
      if (isOk(answer)) return finish(request, jar, target)
      const outcome = outcomeOf(answer)
      // Spec §5: a warning once few attempts remain, from the same status the page's script reads.
      if (outcome.problem?.kind === 'wrongCredentials') {
        const status = await call(request, jar, 'GET', `/api/login-attempts/check-block-status?email=${encodeURIComponent(email)}`)
        outcome.problem = afterWrongCredentials(status.status === 200 ? (status.body as BlockStatus) : null)
      }
      return answerWith({ ...outcome, values: { email } })
    },

    async '/welcome'(request, jar, fields, target) {
      const email = (fields.email ?? '').trim()
      const isInMailList = fields.isInMailList === 'on'
      const formFields = [
        { id: 'email', value: email },
        { id: 'password', value: fields.password ?? '' },
        { id: 'isInMailList', value: isInMailList },
      ]
      // The target rides in the query, for the verification link the sign-up mails.
      const answer = await call(request, jar, 'POST', `/auth/signup${returnSearch(target)}`, { formFields })
      if (isOk(answer)) return { redirect: `/check-email${returnSearch(target)}` }
      return answerWith({ ...outcomeOf(answer), values: { email, ...(isInMailList ? { isInMailList: 'on' } : {}) } })
    },

    async '/forgot-password'(request, jar, fields, target) {
      const email = (fields.email ?? '').trim()
      const answer = await call(request, jar, 'POST', `/auth/user/password/reset/token${returnSearch(target)}`, { formFields: [{ id: 'email', value: email }] })
      return answerWith(isOk(answer) ? { done: true } : { ...outcomeOf(answer), values: { email } })
    },

    async '/reset-password'(request, jar, fields, _target, query) {
      const password = fields.password ?? ''
      if (password !== (fields.confirm ?? '')) return answerWith({ fields: { confirm: PASSWORD_ERRORS.mismatch } })
      const token = query.get('token') ?? ''
      const answer = await call(request, jar, 'POST', '/auth/user/password/reset', { method: 'token', token, formFields: [{ id: 'password', value: password }] })
      return answerWith(isOk(answer) ? { done: true } : outcomeOf(answer))
    },

    async '/mfa'(request, jar, fields, target) {
      if (fields.recoveryCode !== undefined) {
        const answer = await call(request, jar, 'POST', '/api/user/recovery-codes/redeem', { code: fields.recoveryCode })
        // Done, or nothing was owed any more: either way, on.
        if (answer.status === 200 || (answer.body as { code?: unknown } | null)?.code === 'BFF_MFA_NOT_PENDING') return finish(request, jar, target)
        return answerWith({ problem: problemOfHttp(answer.status, answer.body) })
      }
      const answer = await call(request, jar, 'POST', '/auth/totp/verify', { totp: (fields.totp ?? '').replace(/\s+/g, '') })
      if (isOk(answer)) return finish(request, jar, target)
      return answerWith(outcomeOf(answer))
    },

    // The emailed link's page: the token and tenant come from the page's own address, as the SDK reads them.
    async '/verify-email'(request, jar, _fields, _target, query) {
      const tenant = encodeURIComponent(query.get('tenantId') || 'public')
      const answer = await call(request, jar, 'POST', `/auth/${tenant}/user/email/verify`, { method: 'token', token: query.get('token') ?? '' })
      // The script asks the SDK whether a session exists (its front token): on to the target, or to log in.
      if (isOk(answer)) return answerWith({ done: true, signedIn: jar.has(FRONT_TOKEN_COOKIE) || jar.has('sAccessToken') })
      return answerWith(outcomeOf(answer))
    },

    '/check-email': sendAgain,
    '/email-not-verified': sendAgain,

    async '/tos'(request, jar, fields, target) {
      const answer = await call(request, jar, 'POST', '/api/user/accept-tos', { isInMailList: fields.isInMailList === 'on' })
      if (answer.status === 200) return finish(request, jar, target)
      return answerWith({ problem: problemOfHttp(answer.status, answer.body) })
    },
  }

  /** Another site's form (login CSRF, a forged add or write): logged; nothing is called for it. */
  const foreign = (request: FastifyRequest): boolean => {
    if (isSameOriginForm(request, options.appOrigin)) return false
      request.log.info({ event: 'page-form-refused', origin: request.headers.origin, site: request.headers['sec-fetch-site'] }, 'a form post without our origin was refused')
    return true
  }

  /**
   * Any other page's form, same-origin: its route's action runs in the render (a page without one
   * says nothing was done), its calls made here; another site's form gets nothing called (null).
   */
  const routeAction = (request: FastifyRequest): PageFormAnswer | null => {
    if (foreign(request)) return null
    const jar = new CookieJar(request.headers.cookie)
    return {
      routeAction: {
        send: (method, url, body) => selfCall(app, request, jar, method, url, body ?? {}),
        passOn: (reply) => passOn(request, reply, jar, options.https),
      },
    }
  }

  return async (request, reply) => {
    const url = new URL(request.url, 'http://page.invalid')
    const form = forms[formPath(url.pathname)]
    if (!form) return routeAction(request)
    if (foreign(request)) return answerWith({ problem: { kind: 'refused' } })
    const fields = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as Fields
    const jar = new CookieJar(request.headers.cookie)
    const answer = await form(request, jar, fields, readReturn(url.searchParams), url.searchParams)
    passOn(request, reply, jar, options.https)
    return answer
  }
}

/**
 * The cookies the calls set, for the browser; and for the page rendered next, the session as the
 * browser holds it now (a second factor's failed check may have renewed the access token already).
 */
function passOn(request: FastifyRequest, reply: FastifyReply, jar: CookieJar, https: boolean): void {
  if (jar.setCookies.length > 0) {
    const already = reply.getHeader('set-cookie')
    reply.header('set-cookie', [...(Array.isArray(already) ? already : already === undefined ? [] : [String(already)]), ...jar.setCookies])
  }
  // The page's script keeps the SDK's front token from this header; here the BFF writes its cookies.
  if (jar.frontToken !== undefined) {
    reply.header('front-token', jar.frontToken)
    mirrorFrontToken(reply, https)
  }
  if (jar.setCookies.length > 0) {
    request.headers.cookie = jar.header
    request.cookies = jar.values()
  }
}

/** The page a form was posted to, spelled as the router matches it: case, trailing slashes, encoded letters. */
function formPath(pathname: string): string {
  let decoded = pathname
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return pathname
  }
  return decoded.replace(/\/+$/, '').toLowerCase()
}
