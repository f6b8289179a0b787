import Fastify from 'fastify'
import t from 'tap'
import { Type } from 'typebox'
import { cdiValidatorCompiler, checkCdiBody } from '../../../server/authcore/body-schema.ts'

const Schema = Type.Object({ userId: Type.String(), handles: Type.Optional(Type.Array(Type.String())), data: Type.Record(Type.String(), Type.Unknown()) })
const refusal = (data: unknown) => {
  const checked = checkCdiBody(Schema, data)
  return 'error' in checked ? checked.error.message : undefined
}

t.test("a body is refused as the real core refuses it: not an object, then the first field at fault in the schema's order", async (t) => {
  for (const body of [undefined, null, 'text', 3, [], [{ userId: 'u' }]]) t.equal(refusal(body), 'Invalid Json Input', JSON.stringify(body))
  t.equal(refusal({}), "Field name 'userId' is invalid in JSON input")
  t.equal(refusal({ data: 'x', userId: 7 }), "Field name 'userId' is invalid in JSON input", 'the schema order, not the body order')
  t.equal(refusal({ userId: 'u', handles: ['a', 2], data: {} }), "Field name 'handles' is invalid in JSON input")
  t.equal(refusal({ userId: 'u', data: [] }), "Field name 'data' is invalid in JSON input", 'an array is not an object')
  t.equal(refusal({ userId: null, data: {} }), "Field name 'userId' is invalid in JSON input", 'null is no value for a required field')
})

t.test('an optional field sent as null is absent; fields the schema does not name are kept', async (t) => {
  t.same(checkCdiBody(Schema, { userId: 'u', handles: null, data: {}, extra: 1 }), { value: { userId: 'u', data: {}, extra: 1 } })
})

t.test('the auth core validates JSON object bodies only: another schema stops the route from being added', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.setValidatorCompiler(cdiValidatorCompiler)
  app.get('/x', { schema: { querystring: Type.Object({ q: Type.String() }) } }, async () => 'ok')
  await t.rejects(async () => void (await app.ready()), /GET \/x: the auth core validates JSON object bodies only \(a querystring schema was given\)/)
})
