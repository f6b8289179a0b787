import { APP_NAME } from '../sdk-settings.ts'
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth'
import Totp from 'supertokens-node/recipe/totp'
import type { FastifyRequest } from 'fastify'
import { BffTotpCodeRequired, TOTP_CODE_REQUIRED } from '../../errors.ts'
import { afterTotpDeviceRemoved, proveSecondFactor, type FactorProof } from '../../account/authenticator.ts'
import type { RecipeContext } from './context.ts'

// Totp in the BFF's SDK: authenticator devices, every code under the second factor's one attempt limit.

export function totpRecipe({ settings }: RecipeContext) {
  return Totp.init({
    issuer: APP_NAME,
    override: {
      // Every TOTP code the BFF has checked — sign-in's, a device's confirmation, and the
      // current code the profile's changes ask for (Totp.verifyTOTP goes through here too) —
      // counts toward the one limit recovery codes share. A right code ends a run
      // of wrong ones, as in the core — but not the OK for a device confirmed already, for
      // which the core checks no code.
      functions: (original) => ({
        ...original,
        verifyTOTP: async (input) => settings.secondFactor.checkTotp(input.userId, () => original.verifyTOTP(input), () => true),
        verifyDevice: async (input) => settings.secondFactor.checkTotp(input.userId, () => original.verifyDevice(input), (answer) => answer.status === 'OK' && !answer.wasAlreadyVerified),
      }),
      apis: (original) => ({
        ...original,
        // Another authenticator for an account that has one takes proof of the factor it
        // already has: a current code of a confirmed device, or a recovery code (spent), in the
        // body as `totp` or `recoveryCode` beside `deviceName` — otherwise a signed-in session
        // alone could add a device and use its codes to remove the owner's and delete the
        // account. Here, in the API the SDK calls for every spelling of the path
        // it routes; a first authenticator needs no code. The SDK's own check that the session
        // may set the factor up comes first, so a refused session spends no code.
        createDevicePOST: async (input) => {
          const userId = input.session.getUserId()
          const devices = await Totp.listDevices(userId, input.userContext)
          const confirmed = devices.devices.filter((device) => device.verified)
          // A confirmed device's own name makes nothing (DEVICE_ALREADY_EXISTS_ERROR): no code is spent on it.
          if (confirmed.length > 0 && !confirmed.some((device) => device.name === input.deviceName)) {
            const request = input.options.req.original as FastifyRequest
            await MultiFactorAuth.assertAllowedToSetupFactorElseThrowInvalidClaimError(input.session, 'totp', input.userContext)
            const body = (await input.options.req.getJSONBody()) as FactorProof | undefined
            try {
              const by = await proveSecondFactor(settings.recoveryCodes, { tenantId: input.session.getTenantId(), userId }, body, () => new BffTotpCodeRequired(TOTP_CODE_REQUIRED.addDevice), input.userContext)
              request.log.info({ event: 'totp-device-add', outcome: 'proved', by }, 'another authenticator may be added')
            } catch (error) {
              request.log.info({ event: 'totp-device-add', outcome: 'refused', code: (error as { code?: string }).code }, 'another authenticator refused: no proof of the one the account has')
              throw error
            }
          }
          return original.createDevicePOST!(input)
        },
        // A confirmed authenticator protects the account from then on: every sign-in asks for
        // a code. The first one also brings a set of recovery codes, in this answer only: the
        // set-up page shows them once.
        verifyDevicePOST: async (input) => {
          const result = await original.verifyDevicePOST!(input)
          if (result.status !== 'OK') return result
          const userId = input.session.getUserId()
          await MultiFactorAuth.addToRequiredSecondaryFactorsForUser(userId, 'totp', input.userContext)
          // The same device confirmed again changes nothing, and tells nothing.
          if (result.wasAlreadyVerified) return result
          const devices = await Totp.listDevices(userId, input.userContext)
          const first = devices.devices.filter((device) => device.verified).length === 1
          const answer = first ? ({ ...result, recoveryCodes: await settings.recoveryCodes.issue(userId) } as typeof result) : result
          await settings.notices.send(input.options.req.original as FastifyRequest, 'authenticatorAdded', { userId, accessToken: input.session.getAccessToken() })
          return answer
        },
        // Only a set-up that was never confirmed goes without a code (the set-up page abandons
        // one this way); a confirmed device takes a current code, at DELETE /api/user/totp/devices/:name.
        removeDevicePOST: async (input) => {
          const userId = input.session.getUserId()
          const devices = await Totp.listDevices(userId, input.userContext)
          if (devices.devices.some((device) => device.name === input.deviceName && device.verified)) throw new BffTotpCodeRequired(TOTP_CODE_REQUIRED.removeDevice)
          const result = await original.removeDevicePOST!(input)
          if (result.status === 'OK') await afterTotpDeviceRemoved(userId, settings.recoveryCodes, input.userContext)
          return result
        },
      }),
    },
  })
}
