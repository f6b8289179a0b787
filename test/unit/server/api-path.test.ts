import t from 'tap'
import { safeApiPath } from '../../../server/bff/routes/api-proxy.ts'

t.test('ordinary API paths pass unchanged, query included', async (t) => {
  t.equal(safeApiPath('/api/version'), '/api/version')
  t.equal(safeApiPath('/api/programs?q=a%20b&page=2'), '/api/programs?q=a%20b&page=2')
})

t.test('paths that could leave the /api prefix upstream are refused', async (t) => {
  for (const path of [
    '/api/../internal/maintenance',
    '/api/x/..',
    '/api/x/.',
    '/api/./x',
    '/api/x/../../internal?a=b',
    '/api/%2e%2e/internal/maintenance',
    '/api/%2E%2E/healthz',
    '/api/.%2e/x',
    '/api/x/%2f..%2finternal',
    '/api//evil.example/x',
    '/api/x\\..\\internal',
    '/api/%5c..%5cinternal',
    '/api/%zz',
    '/internal/maintenance',
    'http://evil.example/api/version',
  ]) {
    t.equal(safeApiPath(path), null, path)
  }
})

t.test('names that only begin or end with dots are ordinary segments, encoded or not', async (t) => {
  for (const path of ['/api/files/.hidden', '/api/files/..draft', '/api/files/v1.2..3', '/api/files/a.', '/api/files/%2ehidden', '/api/x?next=/../y']) {
    t.equal(safeApiPath(path), path, path)
  }
})
