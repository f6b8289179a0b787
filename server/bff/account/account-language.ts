import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import Session from 'supertokens-node/recipe/session'
import { Type } from 'typebox'
import { LOCALE_COOKIE_MAX_AGE_S, LOCALE_COOKIE_NAME } from '../../../shared/constants.ts'
import { LOCALES, isLocale } from '../../../shared/locales.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { documented } from '../../http/openapi.ts'
import { assertSameOriginWrite } from '../csrf.ts'
import { BffLanguageNotSaved, BffValidation } from '../errors.ts'
import { rememberAccountLanguage } from './security-notices.ts'

// PUT /api/user/language: the language chosen in the header. A visitor's choice is the
// browser's (the `lang` cookie); a signed-in user's is the account's — the profile shows it, every
// later sign-in on any device applies it, every mail is in it — so the header, the profile and the
// mails cannot disagree. One place: the BFF saves it on the account (the product API's profile,
// and the copy the auth core keeps for mails sent without a session) and only then sets the
// cookie; a choice that could not be saved changes nothing and says so.

const BODY = Type.Object({ language: Type.Unsafe<string>({ type: 'string', enum: [...LOCALES] }) })
const ANSWER = Type.Object({
  language: Type.String(),
  account: Type.Boolean({ description: 'True when the language was saved on the signed-in account; false for a visitor, or a session not fully signed in yet.' }),
})

export function setLanguageCookie(reply: FastifyReply, language: string, https: boolean): void {
  reply.setCookie(LOCALE_COOKIE_NAME, language, { path: '/', maxAge: LOCALE_COOKIE_MAX_AGE_S, sameSite: 'lax', secure: https, httpOnly: false })
}

export function accountLanguageRoute(app: FastifyInstance, options: { appOrigin: string; https: boolean }): void {
  // The anti-forgery rules of every write; the general per-address limit, not the stricter /auth one.
  const sameOrigin = { config: {}, onRequest: async (request: FastifyRequest) => assertSameOriginWrite(request, options.appOrigin) }
  app.put<{ Body: { language?: unknown } }>(
    '/api/user/language',
    { ...documented(sameOrigin, { body: { 'application/json': BODY } }), schema: { response: { 200: ANSWER } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const language = request.body?.language
      if (typeof language !== 'string' || !isLocale(language)) throw new BffValidation(`language must be one of ${LOCALES.join(', ')}.`)
      // Any session, also one still short of a claim (an email to verify, a second factor): such a
      // session has no profile to save to yet, and its choice is the browser's, as a visitor's.
      const session = await Session.getSession(request, reply, { sessionRequired: false, overrideGlobalClaimValidators: () => [] })
      let account = false
      if (session) {
        let response: Awaited<ReturnType<typeof app.upstreamApi.request>>
        try {
          response = await app.upstreamApi.request({
            method: 'PATCH',
            path: '/api/user',
            headers: { authorization: `Bearer ${session.getAccessToken()}`, 'content-type': 'application/json', accept: 'application/json', 'x-request-id': request.id },
            body: JSON.stringify({ language }),
          })
        } catch (err) {
          request.log.warn({ err, event: 'account-language' }, 'the product API could not be asked to save the language')
          throw new BffLanguageNotSaved()
        }
        if (response.status === 200) {
          const record = JSON.parse(response.body.toString('utf8')) as Partial<UserRecord>
          // For the mails sent without a session (a reset's notice); the profile is the authority.
          await rememberAccountLanguage(session.getUserId(), language).catch((err: unknown) => request.log.warn({ err }, "the account's language could not be kept"))
          account = record.language === language
        } else if (response.status !== 401 && response.status !== 403) {
          request.log.warn({ event: 'account-language', upstreamStatus: response.status }, 'the product API did not save the language')
          throw new BffLanguageNotSaved()
        }
      }
      setLanguageCookie(reply, language, options.https)
      return { language, account }
    },
  )
}
