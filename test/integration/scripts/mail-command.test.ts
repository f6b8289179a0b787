import { spawnSync } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { MailboxMailer } from '../../../server/bff/mail/mailer.ts'
import { root, tempDir } from '../../helpers.ts'

// `npm run mail`: with NODE_ENV=production the /dev/mail page is not served, so the
// person at the machine reads the local mailbox with this command — the links included.

const SECOND = '0b0b0b0b-0000-4000-8000-000000000002'

function mail(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'mail.ts'), ...args], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  })
}

t.test('lists the mailbox newest first and prints a message with its link', async (t) => {
  const dataDir = tempDir(t)
  const empty = mail(dataDir)
  t.equal(empty.status, 0)
  t.match(empty.stdout, /^No mail in .*mail\.\n$/)

  // Written as the app writes them; the clock decides the order, so it is set, not waited for.
  const mailbox = new MailboxMailer(path.join(dataDir, 'mail'), 'Softshelf <no-reply@localhost>')
  const clock = t.capture(Date, 'now', () => 1_800_000_000_000)
  await mailbox.send({ to: 'ana@example.com', subject: 'Verify your email', text: 'Verify: http://localhost:3000/auth/verify-email?token=first', html: '<p>x</p>' })
  clock.restore()
  t.capture(Date, 'now', () => 1_800_000_000_001)
  await mailbox.send({ to: 'Bo@Example.com', subject: 'Reset your password', text: 'Reset: http://localhost:3000/auth/reset-password?token=second', html: '<p>y</p>', messageId: SECOND })

  const list = mail(dataDir)
  t.equal(list.status, 0)
  const rows = list.stdout.trim().split('\n')
  t.equal(rows.length, 2)
  t.match(rows[0], new RegExp(`\\tBo@Example\\.com\\tReset your password\\t1800000000001-${SECOND}$`), 'newest first')
  t.match(rows[1], /\tana@example\.com\tVerify your email\t/)

  const latest = mail(dataDir, 'latest')
  t.match(latest.stdout, /To: Bo@Example\.com\n[\s\S]*Subject: Reset your password\n\nReset: http:\/\/localhost:3000\/auth\/reset-password\?token=second/)
  const toAna = mail(dataDir, 'latest', ' ANA@example.com ')
  t.match(toAna.stdout, /token=first/, 'latest to an address, whatever its case and padding')
  const byId = mail(dataDir, rows[0]!.split('\t')[3]!)
  t.match(byId.stdout, /token=second/)

  const missing = mail(dataDir, 'latest', 'nobody@example.com')
  t.equal(missing.status, 1)
  t.match(missing.stderr, /No mail to nobody@example\.com/)
  t.equal(mail(dataDir, '../../etc/passwd').status, 1, 'an id is a name in the folder, never a path')
})
