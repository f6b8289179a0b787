import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { SERVICE_CODES, type Service } from '../../../server/http/service-codes.ts'
import { root } from '../../helpers.ts'

// The shared handlers' codes are spelled out so that each can be found by name; each must still
// be its service's name and the code's, and the BFF's and the API's are in the API reference.

t.test("every shared code is its service's name and the code's, and the reference names the BFF's and the API's", async (t) => {
  const reference = fs.readFileSync(path.join(root, 'docs', 'API.md'), 'utf8')
  for (const [service, codes] of Object.entries(SERVICE_CODES) as Array<[Service, Record<string, string>]>) {
    for (const [name, code] of Object.entries(codes)) {
      t.equal(code, `${service}_${name}`)
      if (service !== 'AUTHCORE') t.ok(reference.includes(code), `docs/API.md names ${code}`)
    }
  }
})
