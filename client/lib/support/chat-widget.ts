import { CHAT_WIDGET_DELAY_MS } from '../../../shared/constants.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { onSignedOut } from '../session/presence.ts'

// The live-chat widget's life in the page (spec §4 "Chat widget", §9): it loads once, 500 ms after
// the app mounts; when the user data changes while it is loaded, it is removed and loaded again
// after a 500 ms pause; a failure to load is only logged (spec §8). Loaded lazily by
// use-chat-widget.ts, so none of it weighs on a page's first JS.
//
// The contract with the loader script (README "Live-chat widget"): before the script element is
// added, `window.SoftshelfChat = { user }` holds the user data (`{ id, email, phone }` or `{}`).
// To remove the widget, `window.SoftshelfChat.teardown()` is called if the widget set one, then
// the script element and `window.SoftshelfChat` go. Loading again adds a new script element.

export const CHAT_WIDGET_GLOBAL = 'SoftshelfChat'

/**
 * What the widget is told about the person (spec §3, §6): a signed-in user's id, email and phone,
 * an empty object for a visitor — never more. The product keeps no phone number yet, so `phone`
 * is null; the spec's user supplies `phone` or `phoneNumber`, and a record that gains either is
 * passed on without another change here.
 */
export interface SignedInChatUser {
  id: string
  email: string
  phone: string | null
}
export type ChatUser = SignedInChatUser | Record<string, never>

export function chatUserOf(user: Pick<UserRecord, 'id' | 'email'> & { phone?: string | null; phoneNumber?: string | null }): SignedInChatUser {
  return { id: user.id, email: user.email, phone: user.phone ?? user.phoneNumber ?? null }
}

/** The same person to the widget: a changed id, email or phone is new user data (spec §4). */
function sameChatUser(a: ChatUser, b: ChatUser): boolean {
  return a.id === b.id && a.email === b.email && a.phone === b.phone
}

export interface ChatWidgetGlobal {
  readonly user: ChatUser
  /** Set by the widget: takes its own elements and listeners out of the page. */
  teardown?: () => void
}

/** Where the widget goes: the page's DOM in the browser, a recording stand-in in unit tests. */
export interface WidgetPage {
  insert(user: ChatUser, onError: () => void): void
  remove(): void
}

export interface Timers {
  now(): number
  setTimeout(run: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export interface ChatWidget {
  /** The current user data: `{}` for a visitor. */
  update(user: ChatUser): void
  /** The app unmounts: nothing more loads, and a loaded widget is removed. */
  dispose(): void
}

const browserTimers: Timers = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

export interface ChatWidgetOptions {
  page: WidgetPage
  /** When the first load is due (the app's mount + 500 ms), on `timers.now()`'s clock. */
  firstLoadAt: number
  timers?: Timers
  log?: (message: string) => void
}

export function createChatWidget(options: ChatWidgetOptions): ChatWidget {
  const { page } = options
  const timers = options.timers ?? browserTimers
  const log = options.log ?? ((message: string) => console.warn(message))
  let latest: ChatUser = {}
  /** The user data the widget in the page was given; null while none is in the page. */
  let loaded: ChatUser | null = null
  let timer: unknown = null
  let started = false
  let disposed = false

  const load = () => {
    timer = null
    if (disposed) return
    loaded = latest
    page.insert(latest, () => log('[softshelf] the chat widget script did not load'))
  }
  const schedule = (ms: number) => {
    timer = timers.setTimeout(load, Math.max(0, ms))
  }

  return {
    update(user) {
      if (disposed) return
      latest = user
      if (!started) {
        started = true
        schedule(options.firstLoadAt - timers.now())
        return
      }
      // Before the first load, or during the pause: the pending load takes the latest data.
      if (loaded === null || sameChatUser(loaded, user)) return
      page.remove()
      loaded = null
      schedule(CHAT_WIDGET_DELAY_MS)
    },
    dispose() {
      disposed = true
      if (timer !== null) timers.clearTimeout(timer)
      timer = null
      if (loaded !== null) page.remove()
      loaded = null
    },
  }
}

/**
 * The widget of this tab, fed the signed-in user of each page (undefined outside /@). A user is
 * kept while the person visits pages outside /@ (the legal pages) and dropped when the session
 * ends (sign-out, here or in another tab, or expiry): then the widget gets `{}` (spec §6). A page
 * outside /@ opened directly by a signed-in person starts the widget as a visitor's, as the server
 * reads no user record for it.
 */
export function startChatWidget(options: ChatWidgetOptions): { signedInUser(user: UserRecord | undefined): void; stop(): void } {
  const widget = createChatWidget(options)
  let user: ChatUser = {}
  const unsubscribe = onSignedOut(() => {
    user = {}
    widget.update(user)
  })
  return {
    signedInUser(record) {
      if (record) user = chatUserOf(record)
      widget.update(user)
    },
    stop() {
      unsubscribe()
      widget.dispose()
    },
  }
}

/** The widget in this document: one script element at a time, and the published user data. */
export function documentPage(scriptUrl: string): WidgetPage {
  const global = window as unknown as Record<string, ChatWidgetGlobal | undefined>
  let script: HTMLScriptElement | null = null
  return {
    insert(user, onError) {
      global[CHAT_WIDGET_GLOBAL] = { user: Object.freeze({ ...user }) }
      script = document.createElement('script')
      script.src = scriptUrl
      script.async = true
      script.dataset.softshelfChat = ''
      script.addEventListener('error', onError)
      document.body.append(script)
    },
    remove() {
      try {
        global[CHAT_WIDGET_GLOBAL]?.teardown?.()
      } catch (error) {
        console.warn('[softshelf] the chat widget teardown failed', error)
      }
      script?.remove()
      script = null
      delete global[CHAT_WIDGET_GLOBAL]
    },
  }
}
