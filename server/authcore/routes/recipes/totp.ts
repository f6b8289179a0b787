import type { FastifyInstance } from 'fastify'
import type { CoreServices } from '../../services.ts'
import { asObject, BadRequest, body, query } from '../../input.ts'

// TOTP: devices and codes (AUTH-CORE.md §3.7); the semantics live in totp.ts.

export default async function totpRoutes(app: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const { totp } = services

  const skewAndPeriod = (input: Record<string, unknown>) => {
    const skew = body.number(input, 'skew')
    const period = body.number(input, 'period')
    if (!Number.isInteger(skew) || skew < 0) throw new BadRequest('skew must be a non-negative integer')
    if (!Number.isInteger(period) || period <= 0) throw new BadRequest('period must be a positive integer')
    return { skew, period }
  }

  app.post('/recipe/totp/device', async (request) => {
    const input = asObject(request.body)
    return totp.createDevice(request.core.appId, { userId: body.string(input, 'userId'), deviceName: body.optString(input, 'deviceName'), ...skewAndPeriod(input) })
  })

  app.post('/recipe/totp/device/import', async (request) => {
    const input = asObject(request.body)
    const secretKey = body.string(input, 'secretKey')
    if (!/^[A-Z2-7]+=*$/i.test(secretKey)) throw new BadRequest('secretKey must be base32')
    return totp.importDevice(request.core.appId, { userId: body.string(input, 'userId'), deviceName: body.optString(input, 'deviceName'), secretKey, ...skewAndPeriod(input) })
  })

  app.put('/recipe/totp/device', async (request) => {
    const input = asObject(request.body)
    return totp.renameDevice(request.core.appId, body.string(input, 'userId'), body.string(input, 'existingDeviceName'), body.string(input, 'newDeviceName'))
  })

  app.get('/recipe/totp/device/list', async (request) => ({ status: 'OK', devices: await totp.listDevices(request.core.appId, query.string(request.query, 'userId')) }))

  app.post('/recipe/totp/device/remove', async (request) => {
    const input = asObject(request.body)
    return { status: 'OK', didDeviceExist: await totp.removeDevice(request.core.appId, body.string(input, 'userId'), body.string(input, 'deviceName')) }
  })

  app.post('/recipe/totp/device/verify', async (request) => {
    const input = asObject(request.body)
    return totp.verifyDevice(request.core, body.string(input, 'userId'), body.string(input, 'deviceName'), body.string(input, 'totp'))
  })

  app.post('/recipe/totp/verify', async (request) => {
    const input = asObject(request.body)
    return totp.verifyCode(request.core, body.string(input, 'userId'), body.string(input, 'totp'))
  })
}
