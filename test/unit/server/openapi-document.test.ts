import t from 'tap'
import { mergeOpenApi } from '../../../server/bff/openapi-document.ts'
import { operationIdOf, withOperationIds, type OpenApiDocument } from '../../../server/http/openapi.ts'

const ok = { '200': { description: 'OK' } }

function document(paths: OpenApiDocument['paths'], schemas: Record<string, unknown> = {}): OpenApiDocument {
  return { openapi: '3.1.0', info: { title: 'x', version: '0' }, paths, components: { schemas } }
}

const input = {
  auth: { '/auth/signout': { post: { operationId: 'authSignOut', tags: ['auth'], responses: ok } } },
  version: '1.2.3',
  appUrl: 'https://shelf.example',
  withoutRid: ['/api/stripe/webhook'],
}

t.test('operationIds come from the method and path, unless a route names its own', async (t) => {
  t.equal(operationIdOf('get', '/api/user/program/{id}'), 'getUserProgramById')
  t.equal(operationIdOf('delete', '/api/files/shares/{id}'), 'deleteFilesSharesById')
  t.equal(operationIdOf('get', '/api/license-types/{type}'), 'getLicenseTypesByType')
  t.equal(operationIdOf('get', '/api/openapi.json'), 'getOpenapiJson')
  const shared = { responses: ok }
  const named = withOperationIds(document({ '/api/x/{id}': { patch: shared, delete: shared, get: { operationId: 'mine', responses: ok } } }))
  t.equal(named.paths['/api/x/{id}']!.patch!.operationId, 'patchXById')
  t.equal(named.paths['/api/x/{id}']!.delete!.operationId, 'deleteXById', 'one operation object shared by two methods gets two ids')
  t.equal(named.paths['/api/x/{id}']!.get!.operationId, 'mine')
})

t.test('the merge: the BFF wins per path and method, writes name rid, /auth is kept', async (t) => {
  const merged = mergeOpenApi({
    ...input,
    api: document({
      '/api/user/avatar': { put: { operationId: 'api-put', responses: ok }, delete: { operationId: 'api-delete', responses: ok } },
      '/api/stripe/webhook': { post: { operationId: 'webhook', responses: ok } },
      '/api/programs': { get: { operationId: 'programs', responses: ok } },
    }),
    bff: document({ '/api/user/avatar': { put: { operationId: 'bff-put', responses: ok } } }),
  })
  t.equal(merged.openapi, '3.1.0')
  t.same(merged.info.version, '1.2.3')
  t.same(merged.servers, [{ url: 'https://shelf.example' }])
  t.equal(merged.paths['/api/user/avatar']!.put!.operationId, 'bff-put', "the BFF's own operation")
  t.equal(merged.paths['/api/user/avatar']!.delete!.operationId, 'api-delete', 'the proxied one beside it')
  t.match(merged.paths['/api/user/avatar']!.put!.parameters, [{ name: 'rid', in: 'header', required: true }])
  t.notOk(merged.paths['/api/stripe/webhook']!.post!.parameters, "Stripe's webhook carries no rid")
  t.notOk(merged.paths['/api/programs']!.get!.parameters, 'a read needs no rid')
  t.same(merged.paths['/api/programs']!.get!.tags, ['programs'])
  t.equal(merged.paths['/auth/signout']!.post!.operationId, 'authSignOut')
  t.same(Object.keys(merged.paths), ['/api/programs', '/api/stripe/webhook', '/api/user/avatar', '/auth/signout'], 'paths sorted')
  t.ok(merged.components?.securitySchemes, 'the session cookie is a security scheme')
})

t.test('two different schemas of one name are refused rather than one silently replacing the other', async (t) => {
  const merge = (bffSchema: unknown) =>
    mergeOpenApi({ ...input, api: document({}, { Item: { type: 'object' } }), bff: document({}, { Item: bffSchema }) })
  t.same(merge({ type: 'object' }).components?.schemas, { Item: { type: 'object' } })
  t.throws(() => merge({ type: 'string' }), /both name a different schema "Item"/)
})
