import { escapeHtml } from '../../shared/web/html.ts'

// The BFF's few pages that are not the React app's, because they must answer where the app cannot:
// a session refreshed before a page, a service busy or a caller over its limit, a form posted
// before its script ran, a render that failed, the local mailbox, a one-click unsubscribe. One
// shell, so that each has the same head (language, charset, viewport, robots).

export interface SimplePage {
  lang: string
  /** Text; escaped here. */
  title: string
  /** The markup of <body>, its texts escaped by the caller. */
  body: string
  /** Kept out of search engines (all but the failure page). */
  noindex?: boolean
  /** Loads the page again after this many seconds. */
  refreshSeconds?: number
  /** More of <head>: the app's stylesheets, a <style> of the page's own. */
  head?: string
}

export function simplePage(page: SimplePage): string {
  return (
    `<!doctype html><html lang="${escapeHtml(page.lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    (page.noindex ? '<meta name="robots" content="noindex">' : '') +
    (page.refreshSeconds !== undefined ? `<meta http-equiv="refresh" content="${page.refreshSeconds}">` : '') +
    `<title>${escapeHtml(page.title)}</title>${page.head ?? ''}</head><body>${page.body}</body></html>`
  )
}
