import t from 'tap'
import { recordAudit } from '../../../server/api/operator/audit-log.ts'
import { buildStack, operatorTab, type browser } from '../../helpers.ts'

// The console's audit log and maintenance pages as the server renders them: the
// entries and what they changed, the filters in the URL (and a refused one at its field), the
// pages, the CSV link with the same filters; the maintenance time; who may open them.

const page = async (tab: ReturnType<typeof browser>, url: string, cookie?: string) => {
  const response = await tab.get(url, { accept: 'text/html', ...(cookie ? { cookie: `${tab.jar.header('/')}; ${cookie}` } : {}) })
  return { status: response.statusCode, body: response.body }
}

t.test('the audit log page and the maintenance page', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const support = await operatorTab(stack, 'support@example.com', ['support'])
  const admin = await operatorTab(stack, 'admin@example.com', ['admin'])
  const editor = await operatorTab(stack, 'editor@example.com', ['editor'])
  for (let n = 1; n <= 55; n++) {
    await recordAudit(stack.db, { actor: { id: 'u-ed', email: 'ed@example.com' }, action: 'program.update', target: `program:p${n}`, before: { version: `${n}.0` }, after: { version: `${n}.1` }, requestId: `req-${n}` })
  }
  await recordAudit(stack.db, { actor: { id: 'u-sam', email: 'sam@example.com' }, action: 'user.disable', target: 'user:u-9', before: { disabled: false }, after: { disabled: true, reason: 'spam' }, requestId: 'req-x' })

  t.test('support reads the log: newest first, what changed field by field, a CSV link and Older', async (t) => {
    const { status, body } = await page(support, '/@/operator/audit')
    t.equal(status, 200)
    t.match(body, /<h1[^>]*>Audit log<\/h1>/)
    t.equal(body.match(/data-testid="audit-entry"/g)?.length, 50, 'a page of fifty')
    t.match(body, /sam@example\.com[\s\S]*user\.disable[\s\S]*user:u-9[\s\S]*disabled[\s\S]*false[\s\S]*true[\s\S]*reason[\s\S]*—[\s\S]*spam/, 'the newest first, each changed field before and after')
    t.match(body, /program:p55[\s\S]*version[\s\S]*55\.0[\s\S]*55\.1/)
    t.notMatch(body, /program:p5<\/code>/, 'older entries on the next page')
    t.match(body, /href="\/api\/operator\/audit\.csv\?"[^>]*download/)
    const older = /<a[^>]*href="(\/@\/operator\/audit\?before=(\d+))"[^>]*>Older entries</.exec(body)
    t.ok(older, 'an Older link with the cursor')
    const next = await page(support, older![1]!.replaceAll('&amp;', '&'))
    t.equal(next.body.match(/data-testid="audit-entry"/g)?.length, 6, 'the rest')
    t.match(next.body, /program:p1<\/code>/)
    t.match(next.body, />Newest entries</)
    t.notMatch(next.body, /data-testid="audit-older"/, 'no Older on the last page')
  })

  t.test('filters are in the URL, kept in the form and the CSV link; a malformed one is named at its field', async (t) => {
    const { body } = await page(support, '/@/operator/audit?action=user.&actor=SAM%40example.com')
    t.equal(body.match(/data-testid="audit-entry"/g)?.length, 1)
    t.match(body, /name="action"[^>]*value="user\."|value="user\."[^>]*name="action"/)
    t.match(body, /href="\/api\/operator\/audit\.csv\?actor=SAM%40example\.com&amp;action=user\."/)
    const csv = await support.get('/api/operator/audit.csv?actor=SAM%40example.com&action=user.')
    t.equal(csv.body.split('\r\n').length, 3, 'the link gives the same entries: header, one row, end')

    const bad = await page(support, '/@/operator/audit?action=Program.Update')
    t.equal(bad.status, 200)
    t.match(bad.body, /aria-invalid="true"[^>]*aria-describedby="[^"]*-action-hint [^"]*-action-error"/)
    t.match(bad.body, /Use lower-case words joined by dots/)
    t.match(bad.body, /data-testid="audit-empty"/)
  })

  t.test('in German', async (t) => {
    const { body } = await page(support, '/@/operator/audit', 'lang=de')
    t.match(body, /<h1[^>]*>Prüfprotokoll<\/h1>/)
    t.match(body, />CSV herunterladen</)
  })

  t.test('an editor has no audit:read: the page is refused, not shown', async (t) => {
    const { status, body } = await page(editor, '/@/operator/audit')
    t.equal(status, 403)
    t.notMatch(body, /sam@example\.com/)
  })

  t.test('the maintenance page shows the announced time, or none', async (t) => {
    const none = await page(admin, '/@/operator/maintenance')
    t.equal(none.status, 200)
    t.match(none.body, /<h1[^>]*>Maintenance<\/h1>/)
    t.match(none.body, /No maintenance is announced\./)
    t.match(none.body, /<label for="[^"]*-time">Date and time<\/label>/)
    t.equal((await admin.put('/api/operator/maintenance', { maintenanceTime: '2027-03-01T21:00:00Z' })).statusCode, 200)
    const set = await page(admin, '/@/operator/maintenance')
    t.match(set.body, /<time dateTime="2027-03-01T21:00:00.000Z">[^<]*2027[^<]*UTC<\/time>/i)
    const german = await page(admin, '/@/operator/maintenance', 'lang=de')
    t.match(german.body, /<h1[^>]*>Wartung<\/h1>/)
  })
})
