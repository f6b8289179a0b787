import { useTranslation } from 'react-i18next'
import type { Release } from '../../shared/catalogue/living-schemas.ts'
import { formatPartialDate, type DatePrecision } from '../../shared/catalogue/partial-dates.ts'

// A program's "Version history" on its page — its releases, newest first, each with its
// date (as precisely as it is known), a link to its notes when there are some, and where it came
// from: the catalogue's editors, or the public feed that brought it (`<format>:<host>`). The newest
// is the version the page shows as current. Kept small: it is in the program page's first load.

/** How precisely a release's date is known, from how it is written ("2025", "2025-03", "2025-03-18"). */
export const releasePrecision = (date: string): DatePrecision => (date.length < 5 ? 'year' : date.length < 8 ? 'month' : 'day')

export function ReleaseHistory({ releases }: { releases: Release[] }) {
  const { t, i18n } = useTranslation('catalogue')
  return releases.length === 0 ? null : (
    <section aria-labelledby="releases-title" className="program-releases">
      <h2 id="releases-title">{t('releases.title')}</h2>
      <ol className="release-list">
        {releases.map((release, index) => (
          <li key={release.version}>
            <strong>{t('releases.version', { version: release.version })}</strong> {index === 0 ? <span className="badge">{t('releases.current')}</span> : null}{' '}
            <time dateTime={release.date}>{formatPartialDate(release.date, releasePrecision(release.date), i18n.language)}</time> ·{' '}
            {release.source === 'editor' ? t('releases.fromEditors') : t('releases.fromFeed', { feed: release.source })}
            {release.notesUrl ? (
              <>
                {' · '}
                <a href={release.notesUrl} rel="noopener external" target="_blank" aria-label={t('releases.notesFor', { version: release.version })}>
                  {t('releases.notes')}
                </a>
              </>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  )
}
