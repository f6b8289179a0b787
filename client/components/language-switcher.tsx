import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useRevalidator } from 'react-router'
import type { i18n as I18n } from 'i18next'
import { LOCALE_COOKIE_MAX_AGE_S, LOCALE_COOKIE_NAME } from '../../shared/constants.ts'
import { LOCALES, LOCALE_NAMES, isLocale, type Locale } from '../../shared/locales.ts'
import { apiSend } from '../lib/api.ts'
import { hasLocalSession } from '../lib/session/presence.ts'

/**
 * Switches the tab to `locale` and keeps it in the `lang` cookie (365 days) so the server renders
 * the next page in it too. The switcher below, the profile and the signed-in layout (which follows a
 * language the sign-in set from the account) all go through here; they live in this module, which
 * every page loads already, rather than in a chunk of their own (the public pages' first-load budget).
 */
export async function switchTabLocale(i18n: I18n, locale: Locale): Promise<void> {
  const secure = window.location.protocol === 'https:' ? '; Secure' : ''
  document.cookie = `${LOCALE_COOKIE_NAME}=${locale}; Max-Age=${LOCALE_COOKIE_MAX_AGE_S}; Path=/; SameSite=Lax${secure}`
  await i18n.changeLanguage(locale)
  document.documentElement.lang = locale
}

/** The language the `lang` cookie names, when it is one of ours. */
export function cookieLocale(): Locale | undefined {
  const value = /(?:^|;\s*)lang=([^;]*)/.exec(document.cookie)?.[1]
  return value && isLocale(value) ? value : undefined
}

/**
 * Sets the `lang` cookie (365 days) so the server renders the next page in that language too. A
 * signed-in user's choice is the account's: the BFF saves it on the profile — which every
 * later sign-in and every mail follow — and sets the cookie (PUT /api/user/language); one it could
 * not save changes nothing, and a toast says so.
 */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation()
  const revalidator = useRevalidator()
  const id = useId()
  const [busy, setBusy] = useState(false)
  const change = async (value: string) => {
    if (!isLocale(value)) return
    if (hasLocalSession()) {
      setBusy(true)
      const saved = await apiSend('PUT', '/api/user/language', { language: value })
      setBusy(false)
      if (!saved.ok) {
        // The toasts' code loads with the first one (or the toaster after hydration): not in every page's first JS.
        void import('../lib/notices/toasts.ts').then(({ showToast }) => showToast({ kind: 'error', title: t('language.notSaved') }))
        return
      }
    }
    await switchTabLocale(i18n, value)
    await revalidator.revalidate()
  }
  return (
    <div className="language-switcher">
      <label htmlFor={id}>{t('language.label')}</label>
      <select id={id} value={i18n.language} disabled={busy} onChange={(event) => void change(event.target.value)} data-testid="language-switcher">
        {LOCALES.map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {LOCALE_NAMES[locale]}
          </option>
        ))}
      </select>
    </div>
  )
}
