import t from 'tap'
import { isOperatorPath } from '../../../server/bff/auth/operator-access.ts'

// Every spelling that the API's router could read as an /api/operator route is checked by the BFF
// (operator-routes.test.ts proves the answers; this, the decision on each spelling).
t.test('every spelling of the operator area is one', async (t) => {
  for (const path of [
    '/api/operator',
    '/api/operator/',
    '/api/operator/roles',
    '/api/operator?x=1',
    '/api/operator#x',
    '/api/operator;x',
    '/API/Operator/roles',
    '//api//operator/roles',
    '/api/%6fperator/roles',
    '/api/%4F%50ERATOR',
    '/api%2foperator/roles',
  ]) {
    t.ok(isOperatorPath(path), path)
  }
})

t.test('neighbours of the operator area are not', async (t) => {
  for (const path of ['/api/operators', '/api/operatorx', '/api/version', '/api/programs?next=/api/operator', '/api/x/operator', '/api/%zz', '/api/op%65rators']) {
    t.notOk(isOperatorPath(path), path)
  }
})
