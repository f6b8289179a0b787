import t from 'tap'
import { browser, buildStack, credentials, isHtmlPage, postForm, signedInTab, TEST_PASSWORD, testIdText, visible } from '../../helpers.ts'

// The profile's forms sent before the page's script ran (decision 032): the page's route action
// runs on the server with the same calls the script's would make, and the page shows its answer
// with its status; another site's form, or a visitor without a session, gets nothing done.

t.test("the profile's forms without script run its route action: the same calls, the outcome in the page, nothing for another site", async (t) => {
  const stack = await buildStack(t, { auth: true, env: { AUTH_RATE_LIMIT_MAX: '1000' } })
  const tab = await signedInTab(stack, 'noscript@example.com')
  const post = (fields: Record<string, string>, headers?: Record<string, string | undefined>) => postForm(stack, '/@/my-profile', fields, { jar: tab.jar, ...(headers ? { headers } : {}) })

  const saved = await post({ intent: 'details', name: 'Ada No-Script', language: 'en' })
  t.equal(saved.statusCode, 200)
  isHtmlPage(t, saved, 'the details saved')
  t.equal(saved.headers['cache-control'], 'no-store')
  t.equal(testIdText(saved.body, 'profile-status'), 'Your profile is saved.')
  t.match(visible(saved.body), 'Ada No-Script', 'the page shows the new name (its data loaded after the action)')
  t.equal((await tab.get('/api/user')).json().name, 'Ada No-Script', 'stored')

  const tooLong = await post({ intent: 'details', name: 'x'.repeat(200), language: 'en' })
  t.equal(tooLong.statusCode, 400, "the API's refusal is the page's status")
  t.ok(testIdText(tooLong.body, 'profile-status'), 'and its words are in the page')
  t.equal((await tab.get('/api/user')).json().name, 'Ada No-Script', 'nothing changed')

  const quiet = await post({ intent: 'notifications', notify: 'off' })
  t.equal(quiet.statusCode, 200)
  t.equal(testIdText(quiet.body, 'notifications-settings-status'), 'Your notification settings are saved.')
  t.match((await tab.get('/api/user')).json(), { notify: 'off', watchOnAdd: false }, 'an unticked box is sent as no field, and read as off')

  const mismatch = await post({ intent: 'password', currentPassword: TEST_PASSWORD, newPassword: 'a new long password', repeat: 'another one' })
  t.equal(mismatch.statusCode, 400)
  t.equal(testIdText(mismatch.body, 'password-status'), 'The two passwords are not the same.')

  const changed = await post({ intent: 'password', currentPassword: TEST_PASSWORD, newPassword: 'a brand new passphrase', repeat: 'a brand new passphrase' })
  t.equal(changed.statusCode, 200, 'the password changed, this session kept')
  t.equal(testIdText(changed.body, 'password-status'), 'Your password is changed. Your other devices are signed out.')
  t.equal((await tab.get('/api/user')).statusCode, 200, 'the session goes on with the cookies the change set')
  const signIn = await browser(stack.bff).post('/auth/signin', credentials('noscript@example.com', 'a brand new passphrase'))
  t.equal(signIn.json().status, 'OK', 'the new password signs in')

  const wrongPassword = await post({ intent: 'changeEmail', newEmail: 'moved@example.com', currentPassword: 'not it at all' })
  t.equal(wrongPassword.statusCode, 400)
  t.equal(testIdText(wrongPassword.body, 'email-status'), 'The password is not right.', 'said in the email section, in the page\'s words')

  const forged = await post({ intent: 'details', name: 'Forged', language: 'en' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })
  t.equal(forged.statusCode, 405, 'another site\'s form: nothing was done')
  isHtmlPage(t, forged, 'a forged form')
  t.equal((await tab.get('/api/user')).json().name, 'Ada No-Script', 'the forged write never ran')

  const signedOut = await postForm(stack, '/@/my-profile', { intent: 'details', name: 'Nobody', language: 'en' })
  t.equal(signedOut.statusCode, 303, 'without a session: to the login')
  t.equal(signedOut.headers.location, '/login')

  const kept = await post({ intent: 'deleteAccount', reason: 'other', comment: 'Moving on.', confirmEmail: 'someone-else@example.com' })
  t.equal(kept.statusCode, 400)
  t.equal(testIdText(kept.body, 'delete-status'), 'The email address you typed is not the one of this account.')
  t.match(kept.body, /<textarea[^>]*>Moving on\.<\/textarea>/, 'the comment is kept in the form')
  t.match(kept.body, /value="other" checked=""|checked="" value="other"/, 'and the reason chosen')

  const deleted = await post({ intent: 'deleteAccount', reason: 'other', comment: 'Moving on.', confirmEmail: 'NoScript@example.com' })
  t.equal(deleted.statusCode, 303)
  t.equal(deleted.headers.location, '/login')
  t.match(String(deleted.headers['set-cookie']), /sAccessToken=;/, "the session's cookies are cleared")
  t.equal((await tab.get('/api/user')).statusCode, 401, 'the session is gone')
})
