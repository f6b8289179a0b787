import zlib from 'node:zlib'
import t from 'tap'
import { buildStack } from '../../helpers.ts'

t.test('pages are compressed for clients that accept it; tiny answers are not', async (t) => {
  const { bff } = await buildStack(t)
  const gzip = await bff.inject({ url: '/', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.statusCode, 200)
  t.equal(gzip.headers['content-encoding'], 'gzip')
  t.match(zlib.gunzipSync(gzip.rawPayload).toString('utf8'), /All must-have programs in one place/)
  const brotli = await bff.inject({ url: '/privacy', headers: { 'accept-encoding': 'br' } })
  t.equal(brotli.headers['content-encoding'], 'br')
  t.match(zlib.brotliDecompressSync(brotli.rawPayload).toString('utf8'), /Privacy Policy/)
  const plain = await bff.inject({ url: '/' })
  t.notOk(plain.headers['content-encoding'], 'no encoding unless asked')
  const small = await bff.inject({ url: '/api/version', headers: { 'accept-encoding': 'gzip' } })
  t.notOk(small.headers['content-encoding'], 'a few bytes of JSON are sent as they are')
})
