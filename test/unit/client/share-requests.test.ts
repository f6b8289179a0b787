import t from 'tap'
import { isShareApiUrl } from '../../../client/lib/session/share-requests.ts'

// The session SDK must leave share links' calls alone (their 401 is a password's).

t.test('same-origin /api/sharing calls, relative or absolute, are share calls', async (t) => {
  const base = 'https://drive.example/sharing/abc?folder=1'
  t.ok(isShareApiUrl('/api/sharing/abc', base))
  t.ok(isShareApiUrl('/api/sharing/abc/unlock', base))
  t.ok(isShareApiUrl('/api/sharing/abc?folder=x', base))
  t.ok(isShareApiUrl('https://drive.example/api/sharing/abc/content?item=1', base))
})

t.test('everything else stays the session SDK\'s', async (t) => {
  const base = 'https://drive.example/@/files'
  t.notOk(isShareApiUrl('/api/files', base))
  t.notOk(isShareApiUrl('/api/files/shares', base))
  t.notOk(isShareApiUrl('/auth/session/refresh', base))
  t.notOk(isShareApiUrl('/api/sharingx/abc', base))
  t.notOk(isShareApiUrl('/sharing/abc', base))
  t.notOk(isShareApiUrl('https://other.example/api/sharing/abc', base))
  t.notOk(isShareApiUrl('http://[bad', base))
})
