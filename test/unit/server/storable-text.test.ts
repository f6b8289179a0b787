import t from 'tap'
import { isStorable, unstorableInBody, unstorableInUrl } from '../../../server/http/storable-text.ts'

// What every service refuses at its edge — a NUL or an unpaired surrogate, in the
// URL once percent-decoded as UTF-8, or in a parsed body at any depth — and what it lets through.

t.test('a NUL or an unpaired surrogate is unstorable; accents, CJK and emoji pairs are fine', async (t) => {
  for (const text of ['', 'plain', 'Résumé', '漢字', '😀 pairs 🎉', 'Ωmega – “quoted”', '\u00a0\u200b\uffff']) t.ok(isStorable(text), JSON.stringify(text))
  for (const text of ['\u0000', 'a\u0000b', '\ud800', 'x\udbff', '\udc00', 'y\udfffz', '\ude00\ud83d', '😀\ud800']) t.notOk(isStorable(text), JSON.stringify(text))
})

t.test('in a URL: the path or the query, percent-decoded as UTF-8', async (t) => {
  for (const url of ['/', '/api/files?folder=abc', '/a%20b?q=%C3%A9%E6%BC%A2%F0%9F%98%80', '/api?q=100%', '/x?a=%zz', '/x?a=b+c&d', '/%E2%82%AC']) t.equal(unstorableInUrl(url), undefined, url)
  const refused: Array<[string, 'path' | 'query']> = [
    ['/api/files/x%00', 'path'],
    ['/a%ED%A0%80', 'path'],
    ['/a%C0%80', 'path'],
    ['/a%E2%82', 'path'],
    ['/ok?folder=x%00', 'query'],
    ['/ok?email=a%ED%A0%80@b.c', 'query'],
    ['/ok?email=%ed%bf%bf', 'query'],
    ['/ok?x=%C0%80', 'query'],
    ['/ok?x=%FF', 'query'],
    ['/ok?x%00=1', 'query'],
    ['/ok?a=1&b=\u0000', 'query'],
  ]
  for (const [url, where] of refused) t.equal(unstorableInUrl(url), where, url)
})

t.test('in a body: any string value or key, at any depth, named by its place; bytes are not text', async (t) => {
  t.equal(unstorableInBody(undefined), undefined)
  t.equal(unstorableInBody({ formFields: [{ id: 'email', value: 'zoë@例え.jp' }], n: 1, b: true, z: null }), undefined)
  t.equal(unstorableInBody({ formFields: [{ id: 'email', value: 'a\u0000b' }] }), 'formFields.0.value')
  t.equal(unstorableInBody({ a: { b: [1, 'ok', ['\ud800']] } }), 'a.b.2.0')
  t.equal(unstorableInBody({ a: { 'k\u0000': 1 } }), 'a')
  t.equal(unstorableInBody('x\u0000'), '')
  t.equal(unstorableInBody(Buffer.from('a\u0000b')), undefined, 'a raw body (an upload, the webhook) is bytes')
  let deep: unknown = 'x\u0000'
  for (let i = 0; i < 200_000; i++) deep = [deep]
  t.equal(unstorableInBody(deep)?.split('.').length, 200_000, 'a deeply nested body does not overflow the stack')
})
