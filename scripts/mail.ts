// Operator command: read the local mailbox (DATA_DIR/mail), where every email goes when SMTP_URL
// is not set. With NODE_ENV=production (`npm start`, the image) the /dev/mail page is not served
//, so this is how the person at the machine opens a verification or reset link:
//   npm run mail                      the newest 20 messages: when, to whom, subject, id
//   npm run mail -- latest [email]    the newest message (to that address), as text with its links
//   npm run mail -- <id>              that message, as text
// It reads the files only: nothing is served, and it works whether or not the app is running.
import path from 'node:path'
import { MailboxMailer, type StoredMail } from '../server/bff/mail/mailer.ts'
import { fail, operatorConfig } from './operator.ts'

const USAGE = 'Usage: npm run mail [-- latest [email] | <id>]'

function show(mail: StoredMail): void {
  console.log(`From: ${mail.from}\nTo: ${mail.to}\nDate: ${mail.sentAt}\nSubject: ${mail.subject}\n\n${mail.text}`)
}

const config = operatorConfig()
const folder = path.join(config.dataDir, 'mail')
const mailbox = new MailboxMailer(folder, '')
const [what, email] = process.argv.slice(2)

if (what === undefined) {
  const mails = await mailbox.list(20)
  if (mails.length === 0) console.log(`No mail in ${folder}.`)
  for (const mail of mails) console.log(`${mail.sentAt}\t${mail.to}\t${mail.subject}\t${mail.id}`)
} else if (what === 'latest') {
  const wanted = email?.trim().toLowerCase()
  const mail = (await mailbox.list()).find((m) => wanted === undefined || m.to.toLowerCase() === wanted)
  if (!mail) fail(wanted ? `No mail to ${wanted} in ${folder}.` : `No mail in ${folder}.`)
  show(mail)
} else if (what === '--help' || what === '-h') {
  console.log(USAGE)
} else {
  const mail = await mailbox.read(what)
  if (!mail) fail(`No message ${what} in ${folder}.\n${USAGE}`)
  show(mail)
}
