import t from 'tap'
import { EmailTexts, SECURITY_CHANGES } from '../../../server/bff/mail/emails.ts'
import { escapeHtml } from '../../../shared/web/html.ts'
import { LOCALES } from '../../../shared/locales.ts'
import { deviceName } from '../../../shared/account/user-agent.ts'
import { root } from '../../helpers.ts'

// The security notice's texts: every change in every language has its own subject
// and first line (no key shown for a missing text, no English in another language), and every
// notice says when in UTC, the device, the IP, and the way to reset the password and to the
// profile; HTML escapes what it places.

const emails = new EmailTexts(root, 'Softshelf')
const values = {
  at: new Date(Date.UTC(2026, 11, 6, 14, 30)),
  device: deviceName('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'),
  ip: '2001:db8::7',
  forgotPasswordUrl: 'https://softshelf.test/forgot-password',
  profileUrl: 'https://softshelf.test/@/my-profile',
  contact: 'help@softshelf.test',
  newEmail: 'new@example.com',
}

t.test('every change, in every language, says what changed, when, where from and what to do', async (t) => {
  for (const locale of LOCALES) {
    const subjects = new Set<string>()
    for (const change of SECURITY_CHANGES) {
      const mail = emails.renderSecurityNotice(locale, 'owner@example.com', change, values)
      const where = `${locale} ${change}`
      t.notMatch(mail.subject, /notice\.|\{\{/, `${where}: a real subject`)
      t.notMatch(mail.text, /notice\.|\{\{/, `${where}: no key or placeholder left`)
      subjects.add(mail.subject)
      t.match(mail.text, /UTC/, `${where}: the time in UTC`)
      t.match(mail.text, /14:30|02:30/, `${where}: the time`)
      t.match(mail.text, /Chrome/, `${where}: the browser`)
      t.match(mail.text, /Windows/, `${where}: the system`)
      t.match(mail.text, '2001:db8::7', `${where}: the IP`)
      t.match(mail.text, values.forgotPasswordUrl, `${where}: the way to reset the password`)
      t.match(mail.text, values.profileUrl, `${where}: and to the profile`)
      // "Reset your password with the button below": the advice comes before the button, in both forms.
      t.ok(mail.text.indexOf(values.profileUrl) < mail.text.indexOf(values.forgotPasswordUrl), `${where}: the advice, then the reset link`)
      t.ok(mail.html.indexOf(escapeHtml(values.profileUrl)) < mail.html.indexOf(`href="${values.forgotPasswordUrl}"`), `${where}: the advice, then the button`)
      t.match(mail.html, `<html lang="${locale}">`)
      if (change === 'emailChanged') {
        t.match(mail.text, 'n***@example.com', `${where}: the new address masked`)
        t.notMatch(mail.text, 'new@example.com', `${where}: never in full`)
        t.match(mail.text, values.contact, `${where}: whom to write to`)
      }
    }
    t.equal(subjects.size, SECURITY_CHANGES.length, `${locale}: each change its own subject`)
  }
  const english = emails.renderSecurityNotice('en', 'owner@example.com', 'passwordChanged', values)
  t.equal(english.subject, 'Your Softshelf password was changed')
  t.match(english.text, /^When: December 6, 2026 at 02:30 PM UTC$/m)
  t.match(english.text, /^Device: Chrome on Windows$/m)
  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    t.not(emails.renderSecurityNotice(locale, 'owner@example.com', 'passwordChanged', values).subject, english.subject, `${locale} is translated`)
  }
})

t.test('a browser nobody recognises is said so, in the language', async (t) => {
  const unknown = { ...values, device: deviceName('curl/8.5.0') }
  t.match(emails.renderSecurityNotice('en', 'o@example.com', 'sessionEnded', unknown).text, /^Device: An unknown browser on an unknown system$/m)
  t.match(emails.renderSecurityNotice('de', 'o@example.com', 'sessionEnded', unknown).text, /^Gerät: Ein unbekannter Browser unter einem unbekannten System$/m)
  const none = { ...values, device: deviceName(undefined) }
  t.match(emails.renderSecurityNotice('hu', 'o@example.com', 'sessionEnded', none).text, /^Eszköz: Ismeretlen böngésző – ismeretlen rendszer$/m)
})
