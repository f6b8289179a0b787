import t from 'tap'
import { buildStack } from '../../helpers.ts'

// Support and consent on server-rendered pages: the consent banner is in the HTML exactly while the visitor
// has not chosen (so it never flashes), the chat links in the footer, the outside scripts never.

const SUPPORT_ENV = {
  SUPPORT_BOT_URL: 'https://t.me/softshelf_bot',
  SUPPORT_CHAT_URL: 'https://wa.me/15550100000',
  CHAT_WIDGET_SCRIPT_URL: 'https://chat.example.com/loader.js',
  TAG_MANAGER_SCRIPT_URL: 'https://tags.example.net/gtm.js?id=GTM-1',
}
const BANNER = 'data-testid="consent-banner"'

t.test('with everything configured', async (t) => {
  const { bff } = await buildStack(t, { env: SUPPORT_ENV })

  t.test('a visitor who has not chosen gets the banner in the HTML, with two equal choices', async (t) => {
    const body = (await bff.inject('/')).body
    t.match(body, BANNER)
    t.match(body, /<h2 id="[^"]+">Analytics cookies<\/h2>/)
    t.match(body, /<button type="button" class="button">Accept analytics<\/button><button type="button" class="button">Decline analytics<\/button>/, 'same element, same class: equal prominence')
    t.match(body, /<a href="\/cookie"[^>]*>Cookie policy<\/a>/)
    t.ok(body.indexOf(BANNER) > body.indexOf('<footer'), 'after the page, so the keyboard meets the page first')
  })

  t.test('a visitor who chose gets no banner, either way; anything else in the cookie counts as no choice', async (t) => {
    for (const cookie of ['consent=analytics:granted', 'consent=analytics:denied', 'lang=de; consent=analytics:denied']) {
      t.notMatch((await bff.inject({ url: '/library', headers: { cookie } })).body, BANNER, cookie)
    }
    for (const cookie of ['consent=yes', 'consent=analytics:maybe', 'consent=']) {
      t.match((await bff.inject({ url: '/library', headers: { cookie } })).body, BANNER, cookie)
    }
  })

  t.test('the second-long page cache keeps each choice apart', async (t) => {
    const first = await bff.inject('/programs/blender')
    const chosen = await bff.inject({ url: '/programs/blender', headers: { cookie: 'consent=analytics:granted' } })
    const again = await bff.inject('/programs/blender')
    t.match(first.body, BANNER)
    t.notMatch(chosen.body, BANNER)
    t.match(again.body, BANNER)
    const chosenAgain = await bff.inject({ url: '/programs/blender', headers: { cookie: 'consent=analytics:granted' } })
    t.notMatch(chosenAgain.body, BANNER)
  })

  t.test('the footer links both chats; the outside scripts are not in the HTML (they load in the browser)', async (t) => {
    const body = (await bff.inject('/')).body
    t.match(body, /<nav aria-label="Support"><a href="https:\/\/t\.me\/softshelf_bot" data-testid="support-bot">Chat with our bot<\/a><a href="https:\/\/wa\.me\/15550100000" data-testid="support-chat">Chat with support<\/a><\/nav>/)
    t.notMatch(body, /<script[^>]+chat\.example\.com/)
    t.notMatch(body, /<script[^>]+tags\.example\.net/)
    t.match(body, /"support":\{"botUrl":"https:\/\/t\.me\/softshelf_bot","chatUrl":"https:\/\/wa\.me\/15550100000","chatWidgetScriptUrl":"https:\/\/chat\.example\.com\/loader\.js","tagManagerScriptUrl":"https:\/\/tags\.example\.net\/gtm\.js\?id=GTM-1"\}/, 'the browser learns them from the boot data')
  })

  t.test('the footer speaks the visitor\'s language', async (t) => {
    const body = (await bff.inject({ url: '/', headers: { cookie: 'lang=de' } })).body
    t.match(body, /<nav aria-label="Hilfe"><a [^>]+>Mit unserem Bot chatten<\/a><a [^>]+>Mit dem Support chatten<\/a><\/nav>/)
    t.match(body, /Analyse erlauben/)
  })

  t.test('/cookie lists the consent cookie and offers the choice, showing the current one', async (t) => {
    const unset = (await bff.inject('/cookie')).body
    t.match(unset, /<th scope="row"><code>consent<\/code><\/th><td>Remembers whether you accepted or declined analytics cookies/)
    t.match(unset, /data-testid="consent-settings"/)
    t.match(unset, /data-testid="consent-state"><strong>You have not chosen yet, so nothing is loaded\.<\/strong>/)
    const granted = (await bff.inject({ url: '/cookie', headers: { cookie: 'consent=analytics:granted' } })).body
    t.match(granted, /<strong>You have accepted analytics cookies\.<\/strong>/)
    t.match(granted, /aria-pressed="true"[^>]*>Accept analytics/)
  })
})

t.test('with nothing configured: no banner (nothing to consent to), no chat links, no consent cookie row', async (t) => {
  const { bff } = await buildStack(t)
  const home = (await bff.inject('/')).body
  t.notMatch(home, BANNER)
  t.notMatch(home, /aria-label="Support"/)
  t.notMatch(home, /data-testid="support-(bot|chat)"/)
  t.match(home, /"support":\{"botUrl":null,"chatUrl":null,"chatWidgetScriptUrl":null,"tagManagerScriptUrl":null\}/)
  const cookie = (await bff.inject('/cookie')).body
  t.notMatch(cookie, /<code>consent<\/code>/)
  t.notMatch(cookie, /consent-settings/)
})

t.test('only a bot link configured: only that link', async (t) => {
  const { bff } = await buildStack(t, { env: { SUPPORT_BOT_URL: 'https://t.me/softshelf_bot' } })
  const body = (await bff.inject('/')).body
  t.match(body, /data-testid="support-bot"/)
  t.notMatch(body, /data-testid="support-chat"/)
  t.notMatch(body, BANNER)
})
