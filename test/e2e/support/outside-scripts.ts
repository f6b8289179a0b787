import http from 'node:http'

// Stand-ins for the two outside providers (decision 012), on loopback: a live-chat widget's loader
// and a tag manager. Each port is its own origin, as the real providers are, so the page CSP's
// "exactly this origin" is tested for real. The scripts record what they got in the page
// (`window.__chatWidget`, `window.__tagManager`); the browser tests read it there. Nothing is
// cached, so every load is a request the tests can count.

/**
 * The widget: reads `window.SoftshelfChat.user` (the contract in the README), records it with the
 * time, and sets the teardown hook. When a test sets `window.__probeChatCsp` to another origin, it
 * also tries to reach its own origin and that one, and records which the CSP let through.
 */
const CHAT_WIDGET = `(() => {
  const chat = window.SoftshelfChat
  const state = (window.__chatWidget ??= { loads: [], teardowns: [] })
  const record = { user: chat ? JSON.parse(JSON.stringify(chat.user)) : 'no SoftshelfChat', at: performance.now(), scripts: document.querySelectorAll('script[data-softshelf-chat]').length }
  state.loads.push(record)
  if (chat) chat.teardown = () => state.teardowns.push(performance.now())
  const other = window.__probeChatCsp
  if (other) {
    const reach = (url) => fetch(url, { mode: 'cors' }).then(() => 'allowed', () => 'blocked')
    const own = new URL(document.currentScript.src).origin
    Promise.all([reach(own + '/ping'), reach(other + '/ping')]).then(([ownOrigin, otherOrigin]) => Object.assign(record, { ownOrigin, otherOrigin }))
  }
})()
`

const TAG_MANAGER = `(() => {
  const state = (window.__tagManager ??= { runs: 0 })
  state.runs += 1
  state.dataLayer = JSON.parse(JSON.stringify(window.dataLayer ?? null))
})()
`

function handler(script: string, path: string): http.RequestListener {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    response.setHeader('cache-control', 'no-store')
    if (url.pathname === '/healthz') return response.end('ok')
    if (url.pathname === '/ping') {
      response.setHeader('access-control-allow-origin', '*')
      return response.writeHead(204).end()
    }
    if (url.pathname !== path) return response.writeHead(404).end()
    response.setHeader('content-type', 'text/javascript; charset=utf-8')
    response.end(script)
  }
}

export const CHAT_WIDGET_PATH = '/chat-widget.js'
export const TAG_MANAGER_PATH = '/tag-manager.js'

/** Starts both hosts; returns what stops them. */
export async function startOutsideScripts(chatWidgetPort: number, tagManagerPort: number): Promise<() => Promise<void>> {
  const servers = [http.createServer(handler(CHAT_WIDGET, CHAT_WIDGET_PATH)), http.createServer(handler(TAG_MANAGER, TAG_MANAGER_PATH))]
  await Promise.all(servers.map((server, i) => new Promise<void>((resolve) => server.listen(i === 0 ? chatWidgetPort : tagManagerPort, '127.0.0.1', resolve))))
  return async () => {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))))
  }
}
