import t from 'tap'
import { buildStack, operatorTab, postForm, signedInTab, testIdText } from '../../helpers.ts'

// As the server renders it before any script runs: the bell in the signed-in header with
// the unread count in its name, /@/notifications (newest first, unread marked, paged with
// `before=`), the "Watch" controls from the user's watches, and a visitor's "Watch" that signs in
// first. The notifications are real: an editor records releases and the fan-out delivers them.

/** The server-rendered header of a page. */
function headerOf(html: string): string {
  return /<header class="site-header[^"]*">([\s\S]*?)<\/header>/.exec(html)?.[1] ?? ''
}

/** The bell's link, as rendered. */
function bellOf(html: string): string {
  return /<a [^>]*class="notification-bell[^"]*"[^>]*>[\s\S]*?<\/a>/.exec(headerOf(html))?.[0] ?? ''
}

const today = () => new Date().toISOString().slice(0, 10)

t.test('the bell, the list and the watch controls follow what the user watches and reads', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = await signedInTab(stack, 'watcher@example.com')
  const editor = await operatorTab(stack, 'editor@example.com', ['editor'])

  const empty = await tab.get('/@/library', { accept: 'text/html' })
  t.match(bellOf(empty.body), /href="\/@\/notifications"/, 'the bell links to the notifications')
  t.match(bellOf(empty.body), /aria-label="Notifications"/, 'nothing unread: the bell is just named')
  t.notMatch(bellOf(empty.body), /notification-count/, 'and shows no count')
  const none = await tab.get('/@/notifications', { accept: 'text/html' })
  t.equal(none.statusCode, 200)
  t.match(none.body, /<title>Notifications/)
  t.match(none.body, /data-testid="notifications-empty"[\s\S]*No notifications yet\./, 'the empty state')

  // The program page and a card show the watch as the API keeps it.
  const unwatched = await tab.get('/@/programs/meshlab', { accept: 'text/html' })
  t.match(unwatched.body, /<button type="button" class="button watch-toggle" aria-pressed="false"[^>]*aria-label="Watch MeshLab"/, 'not watched yet')
  t.equal((await tab.put('/api/user/watches/meshlab', { events: ['release'] })).statusCode, 200)
  const watched = await tab.get('/@/programs/meshlab', { accept: 'text/html' })
  t.match(watched.body, /aria-pressed="true"[^>]*aria-label="Stop watching MeshLab"/, 'watched: the page says so')
  t.match(watched.body, /<input[^>]*name="events" checked="" value="release"/, 'the release event ticked')
  t.match(watched.body, /<input[^>]*name="events" value="price"/, 'price left out')
  const card = await tab.get('/@/programs?q=meshlab', { accept: 'text/html' })
  t.match(card.body, /aria-pressed="true"[^>]*aria-label="Stop watching MeshLab"/, 'and so does its card')

  // An editor records a release; the fan-out turns it into the watcher's notification.
  const recorded = await editor.post('/api/operator/programs/meshlab/releases', { version: '9000.1', date: today() })
  t.equal(recorded.statusCode, 201, recorded.body)
  await stack.api.notificationFanout.drain()

  const one = await tab.get('/@/library', { accept: 'text/html' })
  t.match(bellOf(one.body), /aria-label="1 unread notification"/, 'the bell names the count')
  t.match(bellOf(one.body), /<span class="notification-count" aria-hidden="true" data-testid="notification-count">1<\/span>/)
  const list = await tab.get('/@/notifications', { accept: 'text/html' })
  t.match(list.body, /<li class="notification notification-unread" data-testid="notification" data-read="false">/, 'unread, marked')
  t.match(list.body, /<a class="notification-text" href="\/@\/programs\/meshlab"[^>]*>MeshLab 9000.1 was released<\/a>/, 'what happened, linked to the program')
  t.match(list.body, /<time dateTime="[^"]+">now<\/time>|<time datetime="[^"]+">(now|\d+ seconds? ago)<\/time>/i, 'when, relative')
  t.match(list.body, /1 unread notification/)
  // In the page's language.
  const german = await tab.get('/@/notifications', { accept: 'text/html', 'accept-language': 'de' })
  t.match(german.body, /MeshLab 9000.1 ist erschienen/)
  t.match(bellOf(german.body), /aria-label="1 ungelesene Benachrichtigung"/)

  // Read, with "Mark all as read" sent before the page's script ran (its route action on the
  // server): the answer says so, and the bell and the list follow.
  const marked = await postForm(stack, '/@/notifications', { intent: 'markAllRead' }, { jar: tab.jar })
  t.equal(marked.statusCode, 200)
  t.equal(testIdText(marked.body, 'notifications-status'), 'All notifications are marked as read.')
  t.match(bellOf(marked.body), /aria-label="Notifications"/, 'the same page shows the bell without a count')
  const read = await tab.get('/@/notifications', { accept: 'text/html' })
  t.match(bellOf(read.body), /aria-label="Notifications"/)
  t.match(read.body, /<li class="notification" data-testid="notification" data-read="true">/)
  t.match(read.body, /Nothing unread\./)
  t.notMatch(read.body, /data-testid="mark-all-read"/, 'nothing left to mark')
})

t.test('older notifications page with before=; a bad before is the newest page', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const tab = await signedInTab(stack, 'pager@example.com')
  const editor = await operatorTab(stack, 'pager-editor@example.com', ['editor'])
  t.equal((await tab.put('/api/user/watches/wings-3d', { events: ['release'] })).statusCode, 200)
  for (let step = 1; step <= 21; step++) {
    const recorded = await editor.post('/api/operator/programs/wings-3d/releases', { version: `9000.${step}`, date: today() })
    t.equal(recorded.statusCode, 201, recorded.body)
  }
  await stack.api.notificationFanout.drain()

  const newest = await tab.get('/@/notifications', { accept: 'text/html' })
  const versions = (html: string) => [...html.matchAll(/Wings 3D (9000\.\d+) was released/g)].map((match) => match[1])
  t.same(versions(newest.body), Array.from({ length: 20 }, (_, index) => `9000.${21 - index}`), 'the 20 newest, newest first')
  t.match(newest.body, /data-testid="mark-all-read"/, '21 unread: all can be marked read')
  const older = /<a (?=[^>]*rel="next")[^>]*href="(\/@\/notifications\?before=(\d+))"[^>]*>Older</.exec(newest.body)
  t.ok(older, 'a link to the older ones')
  t.notMatch(newest.body, />Back to the newest</, 'the newest page has no way back to itself')
  const next = await tab.get(older![1]!, { accept: 'text/html' })
  t.same(versions(next.body), ['9000.1'], 'the oldest on the next page')
  t.notMatch(next.body, /rel="next"/, 'nothing older')
  t.match(next.body, /<a href="\/@\/notifications"[^>]*>Back to the newest</)
  t.match(bellOf(next.body), /aria-label="21 unread notifications"/)

  for (const before of ['abc', '-1', '0', '1e3', '99999999999999999999']) {
    const page = await tab.get(`/@/notifications?before=${before}`, { accept: 'text/html' })
    t.equal(page.statusCode, 200, `before=${before}`)
    t.same(versions(page.body).length, 20, `before=${before}: the newest page`)
  }
})

t.test('a visitor sees Watch as a way to sign in and back to the program; signed out, /@/notifications asks to log in', async (t) => {
  const stack = await buildStack(t, { auth: true })
  const page = await stack.bff.inject({ url: '/programs/meshlab', headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.body, /<a class="button button-secondary" title="Sign in to hear of new versions and of price or licence changes\." href="\/login\?redirectToPath=%2F%40%2Fprograms%2Fmeshlab"[^>]*>Watch<\/a>/)
  t.notMatch(page.body, /watch-toggle/, 'no toggle for a visitor')
  const notifications = await stack.bff.inject({ url: '/@/notifications', headers: { accept: 'text/html' } })
  t.equal(notifications.statusCode, 302)
  t.match(notifications.headers.location, /^\/login/)
})
