import { useTranslation } from 'react-i18next'
import { Link, useRouteLoaderData } from 'react-router'
import { useClientConfig } from '../lib/client-config.tsx'
import type { VersionResponse } from '../../shared/types.ts'

/**
 * The chat links of spec §1: a messaging bot (SUPPORT_BOT_URL) and a chat app (SUPPORT_CHAT_URL),
 * each only when configured.
 */
export function SupportLinks({ className }: { className?: string }) {
  const { t } = useTranslation()
  const { botUrl, chatUrl } = useClientConfig().support
  return (
    <>
      {botUrl ? (
        <a href={botUrl} className={className} data-testid="support-bot">
          {t('support.chat.bot')}
        </a>
      ) : null}
      {chatUrl ? (
        <a href={chatUrl} className={className} data-testid="support-chat">
          {t('support.chat.app')}
        </a>
      ) : null}
    </>
  )
}

export function SiteFooter() {
  const { t } = useTranslation()
  const root = useRouteLoaderData('root') as Pick<VersionResponse, 'version'> | undefined
  const config = useClientConfig()
  return (
    <footer className="site-footer">
      <nav aria-label={t('footer.legal')}>
        <Link to="/terms">{t('footer.terms')}</Link>
        <Link to="/privacy">{t('footer.privacy')}</Link>
        <Link to="/cookie">{t('footer.cookie')}</Link>
      </nav>
      {config.support.botUrl || config.support.chatUrl ? (
        <nav aria-label={t('support.chat.label')}>
          <SupportLinks />
        </nav>
      ) : null}
      <p>
        {t('footer.copyright', { year: new Date().getUTCFullYear(), operator: config.operatorName })}
        {root ? <span className="version"> · {t('footer.version', { version: root.version })}</span> : null}
      </p>
    </footer>
  )
}
