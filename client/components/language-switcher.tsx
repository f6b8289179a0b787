import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { useRevalidator } from 'react-router'
import { LOCALES, LOCALE_NAMES, isLocale } from '../../shared/locales.ts'
import { switchTabLocale } from '../lib/i18n.ts'

/** Sets the `lang` cookie (365 days) so the server renders the next page in that language too. */
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation()
  const revalidator = useRevalidator()
  const id = useId()
  const change = async (value: string) => {
    if (!isLocale(value)) return
    await switchTabLocale(i18n, value)
    await revalidator.revalidate()
  }
  return (
    <div className="language-switcher">
      <label htmlFor={id}>{t('language.label')}</label>
      <select id={id} value={i18n.language} onChange={(event) => void change(event.target.value)} data-testid="language-switcher">
        {LOCALES.map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {LOCALE_NAMES[locale]}
          </option>
        ))}
      </select>
    </div>
  )
}
