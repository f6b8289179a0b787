import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { CoreServices } from '../../services.ts'
import { BadRequest, query } from '../../input.ts'

// TOTP: devices and codes (AUTH-CORE.md §3.7); the semantics live in totp.ts.

const SkewAndPeriod = { skew: Type.Number(), period: Type.Number() }
const NewDevice = Type.Object({ userId: Type.String(), deviceName: Type.Optional(Type.String()), ...SkewAndPeriod })
const ImportedDevice = Type.Object({ secretKey: Type.String(), userId: Type.String(), deviceName: Type.Optional(Type.String()), ...SkewAndPeriod })
const Rename = Type.Object({ userId: Type.String(), existingDeviceName: Type.String(), newDeviceName: Type.String() })
const Device = Type.Object({ userId: Type.String(), deviceName: Type.String() })
const DeviceCode = Type.Object({ userId: Type.String(), deviceName: Type.String(), totp: Type.String() })
const Code = Type.Object({ userId: Type.String(), totp: Type.String() })

export default async function totpRoutes(plugin: FastifyInstance, { services }: { services: CoreServices }): Promise<void> {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>()
  const { totp } = services

  const skewAndPeriod = ({ skew, period }: { skew: number; period: number }) => {
    if (!Number.isInteger(skew) || skew < 0) throw new BadRequest('skew must be a non-negative integer')
    if (!Number.isInteger(period) || period <= 0) throw new BadRequest('period must be a positive integer')
    return { skew, period }
  }

  app.post('/recipe/totp/device', { schema: { body: NewDevice } }, async (request) => {
    const { userId, deviceName } = request.body
    return totp.createDevice(request.core.appId, { userId, deviceName, ...skewAndPeriod(request.body) })
  })

  app.post('/recipe/totp/device/import', { schema: { body: ImportedDevice } }, async (request) => {
    const { secretKey, userId, deviceName } = request.body
    if (!/^[A-Z2-7]+=*$/i.test(secretKey)) throw new BadRequest('secretKey must be base32')
    return totp.importDevice(request.core.appId, { userId, deviceName, secretKey, ...skewAndPeriod(request.body) })
  })

  app.put('/recipe/totp/device', { schema: { body: Rename } }, async (request) =>
    totp.renameDevice(request.core.appId, request.body.userId, request.body.existingDeviceName, request.body.newDeviceName),
  )

  app.get('/recipe/totp/device/list', async (request) => ({ status: 'OK', devices: await totp.listDevices(request.core.appId, query.string(request.query, 'userId')) }))

  app.post('/recipe/totp/device/remove', { schema: { body: Device } }, async (request) => ({
    status: 'OK',
    didDeviceExist: await totp.removeDevice(request.core.appId, request.body.userId, request.body.deviceName),
  }))

  app.post('/recipe/totp/device/verify', { schema: { body: DeviceCode } }, async (request) =>
    totp.verifyDevice(request.core, request.body.userId, request.body.deviceName, request.body.totp),
  )

  app.post('/recipe/totp/verify', { schema: { body: Code } }, async (request) => totp.verifyCode(request.core, request.body.userId, request.body.totp))
}
