import t from 'tap'
import { browser, buildStack, operatorTab, signedInTab } from '../../helpers.ts'

// The console at /@/operator is only for an account with a role. Anyone else gets the
// 404 page, as for a path that does not exist; the header links to it only for an operator.

const page = async (tab: ReturnType<typeof browser>, url: string) => {
  const response = await tab.get(url, { accept: 'text/html' })
  return { status: response.statusCode, location: response.headers.location, body: response.body }
}

t.test('an operator opens the console and its header links to it; it lists what the roles open', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const support = await operatorTab(stack, 'support@example.com', ['support'])
  const console = await page(support, '/@/operator')
  t.equal(console.status, 200)
  t.match(console.body, /<h1[^>]*>Operator console<\/h1>/)
  t.match(console.body, /Your roles: Support/)
  t.match(console.body, /href="\/@\/operator"[^>]*>Console</, 'the header links to the console')
  const library = await page(support, '/@/library')
  t.match(library.body, /href="\/@\/operator"[^>]*>Console</, 'on every signed-in page')

  // In the account's language: the German console.
  const german = await support.get('/@/operator', { accept: 'text/html', cookie: `${support.jar.header('/')}; lang=de` })
  t.match(german.body, /<h1[^>]*>Betriebskonsole<\/h1>/)
})

t.test('anyone without a role gets the 404 page, signed-out visitors the login', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const user = await signedInTab(stack, 'someone@example.com')
  for (const url of ['/@/operator', '/@/operator/', '/@/operator?x=1']) {
    const answer = await page(user, url)
    t.equal(answer.status, 404, url)
    t.match(answer.body, /Page Not Found/, url)
    t.notMatch(answer.body, /<h1[^>]*>Operator console/, `${url}: not the console`)
  }
  t.notMatch((await page(user, '/@/library')).body, /href="\/@\/operator"/, 'no console link in the header')

  const visitor = browser(stack.bff)
  const answer = await page(visitor, '/@/operator')
  t.equal(answer.status, 302)
  t.match(answer.location, /^\/login/)
})
