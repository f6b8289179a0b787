import t from 'tap'
import { attachmentDisposition, ifRangeHolds, noneMatchHolds, parseRange } from '../../../server/api/files/http-content.ts'

// The download's HTTP details: ranges, conditional requests, the attachment's name.

t.test('one byte range is served, anything else the whole file or 416', async (t) => {
  t.same(parseRange(undefined, 10), { kind: 'full' })
  t.same(parseRange('bytes=0-0', 10), { kind: 'partial', range: { start: 0, end: 0 } })
  t.same(parseRange('bytes=3-', 10), { kind: 'partial', range: { start: 3, end: 9 } })
  t.same(parseRange('bytes=-4', 10), { kind: 'partial', range: { start: 6, end: 9 } })
  t.same(parseRange('bytes=-40', 10), { kind: 'partial', range: { start: 0, end: 9 } }, 'a suffix longer than the file is the whole file, as 206')
  t.same(parseRange('bytes=5-99999999999999999999', 10), { kind: 'partial', range: { start: 5, end: 9 } })
  t.same(parseRange('BYTES = 1 - 2', 10), { kind: 'partial', range: { start: 1, end: 2 } })
  t.same(parseRange('bytes=10-', 10), { kind: 'unsatisfiable' })
  t.same(parseRange('bytes=-0', 10), { kind: 'unsatisfiable' })
  t.same(parseRange('bytes=0-', 0), { kind: 'unsatisfiable' }, 'an empty file has no bytes to give')
  for (const header of ['bytes=5-2', 'bytes=0-1,3-4', 'items=0-1', 'bytes=a-b', 'bytes=-', 'bytes 0-1']) t.same(parseRange(header, 10), { kind: 'full' }, header)
})

t.test('If-None-Match compares weakly, in a list or as *; If-Range only with the same strong tag', async (t) => {
  const etag = '"abc"'
  t.ok(noneMatchHolds('"abc"', etag))
  t.ok(noneMatchHolds('W/"abc"', etag))
  t.ok(noneMatchHolds('"x", "abc"', etag))
  t.ok(noneMatchHolds('*', etag))
  t.notOk(noneMatchHolds('"abcd"', etag))
  t.notOk(noneMatchHolds(undefined, etag))
  t.ok(ifRangeHolds(undefined, etag))
  t.ok(ifRangeHolds('"abc"', etag))
  t.notOk(ifRangeHolds('W/"abc"', etag))
  t.notOk(ifRangeHolds('Tue, 01 Dec 2026 00:00:00 GMT', etag), 'a date cannot vouch for an unchanged object')
})

t.test('the attachment names the file in UTF-8 and in ASCII, and nothing in the name escapes the header', async (t) => {
  t.equal(attachmentDisposition('plain.txt'), `attachment; filename="plain.txt"; filename*=UTF-8''plain.txt`)
  t.equal(attachmentDisposition('Ærøskøbing résumé.pdf'), `attachment; filename="_r_sk_bing resume.pdf"; filename*=UTF-8''%C3%86r%C3%B8sk%C3%B8bing%20r%C3%A9sum%C3%A9.pdf`)
  t.equal(attachmentDisposition('日本.txt'), `attachment; filename="__.txt"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt`)
  const tricky = attachmentDisposition('a"; filename="evil.html\\%.txt')
  t.equal(tricky, `attachment; filename="a_; filename=_evil.html__.txt"; filename*=UTF-8''a%22%3B%20filename%3D%22evil.html%5C%25.txt`)
  t.equal(attachmentDisposition("it's (1) *.txt"), `attachment; filename="it's (1) *.txt"; filename*=UTF-8''it%27s%20%281%29%20%2A.txt`, 'RFC 8187 attr-chars only')
})
