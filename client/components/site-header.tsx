import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation } from 'react-router'
import { BrandLink } from './brand-link.tsx'

/**
 * The header of both layouts: the brand and the navigation in one row. On narrow screens
 * the navigation folds behind a menu button, so the header stays one row instead of two or three:
 * below lg (1024 px), or below xl (1280 px) with `fold="xl"` — the signed-in header's row of five
 * links, the account, the language and "Log out" is wider than lg's in most languages.
 *
 * The menu is a <details> element, so it opens and closes before scripts run, or without them; past
 * its breakpoint the stylesheet hides its button and always shows the links (`.disclosure` in
 * styles.css). Scripts add what <details> lacks: `aria-expanded` for screen readers that do not
 * announce a summary's state, Escape closes the menu and gives the focus back to its button, and the
 * menu closes when the visitor navigates.
 */
export function SiteHeader({ children, fold = 'lg', beside }: { children: ReactNode; fold?: 'lg' | 'xl'; beside?: ReactNode }) {
  const { t } = useTranslation('common')
  const menu = useRef<HTMLDetailsElement>(null)
  // Unset on the server: without scripts nothing would keep `aria-expanded` true, and a summary
  // states its own state anyway.
  const [open, setOpen] = useState<boolean>()
  const { key } = useLocation()
  // Not controlled by React: `open` is the element's, and its toggle event keeps the state in step.
  useEffect(() => {
    menu.current!.open = false
    setOpen(false)
  }, [key])
  return (
    <header className={`site-header site-header-fold-${fold}`}>
      <BrandLink />
      {/* What stays in the row when the menu folds (the signed-in layout's bell). */}
      {beside}
      <nav className="site-nav" aria-label={t('nav.main')}>
        <details
          ref={menu}
          className="disclosure site-menu"
          onToggle={(event) => setOpen(event.currentTarget.open)}
          onKeyDown={(event) => {
            if (event.key !== 'Escape' || !open) return
            menu.current!.open = false
            ;(menu.current!.firstElementChild as HTMLElement).focus()
          }}
        >
          <summary aria-expanded={open}>{t('nav.menu')}</summary>
          <div className="site-menu-items">{children}</div>
        </details>
      </nav>
    </header>
  )
}
