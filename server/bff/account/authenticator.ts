import type { FastifyInstance } from 'fastify'
import supertokens from 'supertokens-node'
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth'
import Session from 'supertokens-node/recipe/session'
import Totp from 'supertokens-node/recipe/totp'
import { Type } from 'typebox'
import { guardedWrite } from '../csrf.ts'
import {
  BffMfaNotPending,
  BffRecoveryCodeBlocked,
  BffRecoveryCodeInvalid,
  BffTotpBlocked,
  BffTotpCodeRequired,
  BffTotpDeviceNotFound,
  BffTotpInvalid,
  BffTotpNotEnabled,
  TOTP_CODE_REQUIRED,
} from '../errors.ts'
import type { RecoveryCodes, Redemption } from './recovery-codes.ts'
import type { SecurityNotices } from './security-notices.ts'
import { NoContent, documented } from '../../http/openapi.ts'

// The profile's authenticator: whether TOTP protects the account and with which
// devices, removing one with a current code, and recovery codes — a new set on request, and one
// spent instead of a TOTP code at /mfa. Answered by the BFF, which holds the SDK and the codes.

/** Longest code accepted in a body: a recovery code with generous spacing; anything longer is no code. */
const CODE_MAX_LENGTH = 64

export interface SecuritySummary {
  email: string | null
  hasPassword: boolean
  totp: { enabled: boolean; devices: Array<{ name: string }> }
  recoveryCodes: { remaining: number }
}

const SecuritySummarySchema = Type.Object({
  email: Type.Union([Type.String(), Type.Null()]),
  hasPassword: Type.Boolean({ description: 'The session\'s sign-in method has a password (it can be changed).' }),
  totp: Type.Object({ enabled: Type.Boolean(), devices: Type.Array(Type.Object({ name: Type.String() })) }),
  recoveryCodes: Type.Object({ remaining: Type.Integer() }),
})
// The bodies are checked by the routes themselves, each problem with its own code: documented only.
const Code = (description: string) => Type.String({ maxLength: CODE_MAX_LENGTH, description })
const PROOF_BODY = Type.Object(
  { totp: Type.Optional(Code('A current code of one of the account\'s confirmed authenticators.')), recoveryCode: Type.Optional(Code('Or an unused recovery code (spent).')) },
  { description: 'One of the two.' },
)
const REDEEM_BODY = Type.Object({ code: Code('An unused recovery code (spaces and dashes as shown are fine).') })

/** The verified devices of an account. */
async function verifiedDevices(userId: string): Promise<Array<{ name: string }>> {
  const list = await Totp.listDevices(userId)
  return list.devices.filter((device) => device.verified).map((device) => ({ name: device.name }))
}

/**
 * After a device was removed: without a verified one left, sign-ins no longer ask for a code and
 * the recovery codes go with the factor (a new authenticator issues new ones).
 */
export async function afterTotpDeviceRemoved(userId: string, recoveryCodes: Pick<RecoveryCodes, 'clear'>, userContext?: Record<string, unknown>): Promise<boolean> {
  const devices = await Totp.listDevices(userId, userContext)
  if (devices.devices.some((device) => device.verified)) return false
  await MultiFactorAuth.removeFromRequiredSecondaryFactorsForUser(userId, 'totp', userContext)
  await recoveryCodes.clear(userId)
  return true
}

function secondsOf(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000))
}

function redemptionError(result: Exclude<Redemption, { status: 'OK' }>): Error {
  if (result.status === 'BLOCKED') return Object.assign(new BffRecoveryCodeBlocked(), { retryAfter: secondsOf(result.retryAfterMs) })
  return new BffRecoveryCodeInvalid()
}

/**
 * A current code of one of the account's confirmed devices (the core checks none other), under
 * the second factor's one attempt limit (second-factor-attempts.ts, through the TOTP recipe's
 * verifyTOTP). Throws BffTotpInvalid, or BffTotpBlocked with retry-after past the limit.
 */
export async function checkTotpCode(tenantId: string, userId: string, code: string, userContext?: Record<string, unknown>): Promise<void> {
  const checked = await Totp.verifyTOTP(tenantId, userId, code.replace(/\s+/g, ''), userContext)
  if (checked.status === 'LIMIT_REACHED_ERROR') throw Object.assign(new BffTotpBlocked(), { retryAfter: secondsOf(checked.retryAfterMs) })
  if (checked.status !== 'OK') throw new BffTotpInvalid()
}

function codeOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' && value.length <= CODE_MAX_LENGTH ? value : null
}

/** The body fields that prove the second factor, as every route that asks for it carries them. */
export interface FactorProof {
  totp?: unknown
  recoveryCode?: unknown
}

/**
 * Proof of the second factor the account already has, for a change to it: a current
 * code of a confirmed device, or an unused recovery code, which is spent. Wrong ones count toward
 * the one attempt limit. Throws `missing` without either, else the code's own error.
 */
export async function proveSecondFactor(
  recoveryCodes: Pick<RecoveryCodes, 'redeem'>,
  account: { tenantId: string; userId: string },
  proof: FactorProof | undefined,
  missing: () => Error,
  userContext?: Record<string, unknown>,
): Promise<'totp' | 'recovery-code'> {
  const totp = codeOf(proof?.totp)
  const recoveryCode = codeOf(proof?.recoveryCode)
  if (totp === null && recoveryCode === null) throw missing()
  if (totp !== null) {
    await checkTotpCode(account.tenantId, account.userId, totp, userContext)
    return 'totp'
  }
  const redeemed = await recoveryCodes.redeem(account.userId, recoveryCode!)
  if (redeemed.status !== 'OK') throw redemptionError(redeemed)
  return 'recovery-code'
}

export function authenticatorRoutes(app: FastifyInstance, options: { appOrigin: string; rateLimitMax: number; recoveryCodes: RecoveryCodes; notices: Pick<SecurityNotices, 'send'> }): void {
  const { recoveryCodes } = options
  const writes = guardedWrite(options.appOrigin, options.rateLimitMax)

  app.get('/api/user/security', { schema: { response: { 200: SecuritySummarySchema } } }, async (request, reply): Promise<SecuritySummary> => {
    reply.header('cache-control', 'no-store')
    // A fully signed-in session: verified email and every factor done (the global validators).
    const session = await Session.getSession(request, reply)
    const userId = session.getUserId()
    const recipeUserId = session.getRecipeUserId().getAsString()
    const [user, devices, remaining] = await Promise.all([supertokens.getUser(userId), verifiedDevices(userId), recoveryCodes.remaining(userId)])
    const method = user?.loginMethods.find((m) => m.recipeUserId.getAsString() === recipeUserId)
    return {
      email: method?.email ?? user?.emails[0] ?? null,
      // As the password change decides it: the session's own sign-in method has a password.
      hasPassword: method?.recipeId === 'emailpassword',
      totp: { enabled: devices.length > 0, devices },
      recoveryCodes: { remaining },
    }
  })

  // A confirmed device goes only with proof of the factor: a current code of the account's
  // authenticator (checked by the core, under the second factor's one attempt limit), or a
  // recovery code — the way out for someone whose phone is lost, who could otherwise never set up
  // a new one. Without a verified device left, TOTP is off (afterTotpDeviceRemoved).
  app.delete<{ Params: { name: string }; Body: { totp?: unknown; recoveryCode?: unknown } | undefined }>('/api/user/totp/devices/:name', { ...documented(writes, { body: { 'application/json': PROOF_BODY } }), schema: { response: { 204: NoContent } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply)
    const userId = session.getUserId()
    if (codeOf(request.body?.totp) === null && codeOf(request.body?.recoveryCode) === null) throw new BffTotpCodeRequired(TOTP_CODE_REQUIRED.removeDevice)
    const { name } = request.params
    if (!(await verifiedDevices(userId)).some((device) => device.name === name)) throw new BffTotpDeviceNotFound()

    let by: 'totp' | 'recovery-code'
    try {
      by = await proveSecondFactor(recoveryCodes, { tenantId: session.getTenantId(), userId }, request.body, () => new BffTotpCodeRequired(TOTP_CODE_REQUIRED.removeDevice))
    } catch (error) {
      const recovery = error instanceof BffRecoveryCodeInvalid || error instanceof BffRecoveryCodeBlocked
      request.log.info({ event: 'totp-device-remove', outcome: recovery ? 'wrong-recovery-code' : 'wrong-code' }, `authenticator not removed: wrong ${recovery ? 'recovery code' : 'code'}`)
      throw error
    }
    await Totp.removeDevice(userId, name)
    const turnedOff = await afterTotpDeviceRemoved(userId, recoveryCodes)
    request.log.info({ event: 'totp-device-remove', outcome: 'removed', totpOff: turnedOff, by }, 'authenticator removed')
    await options.notices.send(request, 'authenticatorRemoved', { userId, accessToken: session.getAccessToken() })
    return reply.code(204).send()
  })

  // A new set; the old one stops working. Shown once: nothing can read them again. Only with
  // proof of the factor: a session alone must not get codes that remove the device.
  app.post<{ Body: FactorProof | undefined }>(
    '/api/user/recovery-codes',
    { ...documented(writes, { body: { 'application/json': PROOF_BODY } }), schema: { response: { 200: Type.Object({ codes: Type.Array(Type.String(), { description: 'Shown once: nothing can read them again.' }) }) } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store')
      const session = await Session.getSession(request, reply)
      const userId = session.getUserId()
      if ((await verifiedDevices(userId)).length === 0) throw new BffTotpNotEnabled()
      let by: 'totp' | 'recovery-code'
      try {
        by = await proveSecondFactor(recoveryCodes, { tenantId: session.getTenantId(), userId }, request.body, () => new BffTotpCodeRequired(TOTP_CODE_REQUIRED.renewRecoveryCodes))
      } catch (error) {
        request.log.info({ event: 'recovery-codes', outcome: 'refused', code: (error as { code?: string }).code }, 'recovery codes not issued: no proof of the factor')
        throw error
      }
      const codes = await recoveryCodes.issue(userId)
      request.log.info({ event: 'recovery-codes', outcome: 'issued', by }, 'recovery codes issued')
      await options.notices.send(request, 'recoveryCodesRenewed', { userId, accessToken: session.getAccessToken() })
      return { codes }
    },
  )

  // Instead of a TOTP code at /mfa: a session that has its first factor and still owes the second.
  // The MFA claim is the one global validator left out, here only.
  app.post<{ Body: { code?: unknown } | undefined }>('/api/user/recovery-codes/redeem', { ...documented(writes, { body: { 'application/json': REDEEM_BODY } }), schema: { response: { 200: Type.Object({ status: Type.Literal('OK'), recoveryCodesLeft: Type.Integer() }) } } }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const session = await Session.getSession(request, reply, {
      overrideGlobalClaimValidators: (validators) => validators.filter((validator) => validator.id !== MultiFactorAuth.MultiFactorAuthClaim.key),
    })
    const code = codeOf(request.body?.code)
    if (code === null) throw new BffRecoveryCodeInvalid()
    const mfa = await session.getClaimValue(MultiFactorAuth.MultiFactorAuthClaim)
    // Nothing owed: a code spent here would be wasted.
    if (mfa?.v === true) throw new BffMfaNotPending()
    const redeemed = await recoveryCodes.redeem(session.getUserId(), code)
    if (redeemed.status !== 'OK') {
      request.log.info({ event: 'recovery-code-sign-in', outcome: redeemed.status === 'BLOCKED' ? 'blocked' : 'wrong-code' }, 'recovery code refused')
      throw redemptionError(redeemed)
    }
    await MultiFactorAuth.markFactorAsCompleteInSession(session, 'totp')
    request.log.info({ event: 'recovery-code-sign-in', outcome: 'ok', remaining: redeemed.remaining }, 'second factor completed with a recovery code')
    return { status: 'OK', recoveryCodesLeft: redeemed.remaining }
  })
}
