import { useEffect, useRef } from 'react'
import { useRouteLoaderData } from 'react-router'
import { CHAT_WIDGET_DELAY_MS } from '../../../shared/constants.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { useClientConfig } from '../client-config.tsx'
import type { SignedInData } from '../session/guards.ts'

/**
 * Runs the live-chat widget when CHAT_WIDGET_SCRIPT_URL is configured (spec §4). Its code
 * (chat-widget.ts) loads after the app mounts, outside the page's first JS; the first load still
 * falls 500 ms after the mount.
 */
export function useChatWidget(): void {
  const scriptUrl = useClientConfig().support.chatWidgetScriptUrl
  const user = (useRouteLoaderData('signed-in') as SignedInData | undefined)?.user
  const latest = useRef(user)
  const feed = useRef<((user: UserRecord | undefined) => void) | null>(null)

  useEffect(() => {
    if (!scriptUrl) return
    const firstLoadAt = performance.now() + CHAT_WIDGET_DELAY_MS
    let stop: (() => void) | undefined
    let cancelled = false
    import('./chat-widget.ts').then(
      ({ startChatWidget, documentPage }) => {
        if (cancelled) return
        const widget = startChatWidget({ page: documentPage(scriptUrl), firstLoadAt })
        feed.current = widget.signedInUser
        stop = widget.stop
        widget.signedInUser(latest.current)
      },
      (error: unknown) => console.warn('[softshelf] the chat widget did not start', error),
    )
    return () => {
      cancelled = true
      feed.current = null
      stop?.()
    }
  }, [scriptUrl])

  useEffect(() => {
    latest.current = user
    feed.current?.(user)
  }, [user])
}
