import { useTranslation } from 'react-i18next'
import { EDITOR_RELEASE_SOURCE, type Release } from '../../shared/living-catalogue.ts'
import { formatPartialDate, type DatePrecision } from '../../shared/partial-dates.ts'

// Issue 29: a program's "Version history" on its page — its releases, newest first, each with its
// date (as precisely as it is known), a link to its notes when there are some, and where it came
// from (the catalogue's editors, or the public feed that brought it). The newest is the version the
// page shows as current.

/** How precisely a release's date is known, from how it is written ("2025", "2025-03", "2025-03-18"). */
export function releasePrecision(date: string): DatePrecision {
  return date.length === 4 ? 'year' : date.length === 7 ? 'month' : 'day'
}

const FEED_FORMATS: Record<string, string> = { appstream: 'AppStream', homebrew: 'Homebrew' }

/** A feed's name as a person reads it: "appstream:dl.flathub.org" → "AppStream (dl.flathub.org)". */
export function feedName(source: string): string {
  const [format = source, ...rest] = source.split(':')
  const where = rest.join(':')
  const name = FEED_FORMATS[format] ?? format
  return where === '' ? name : `${name} (${where})`
}

export function ReleaseHistory({ releases }: { releases: Release[] }) {
  const { t, i18n } = useTranslation('catalogue')
  if (releases.length === 0) return null
  return (
    <section aria-labelledby="releases-title" className="program-releases" data-testid="release-history">
      <h2 id="releases-title">{t('releases.title')}</h2>
      <ol className="release-list">
        {releases.map((release, index) => (
          <li key={release.version} className="release">
            <span className="release-version">
              {t('releases.version', { version: release.version })}
              {index === 0 ? <span className="badge">{t('releases.current')}</span> : null}
            </span>
            <time dateTime={release.date} className="release-date">
              {formatPartialDate(release.date, releasePrecision(release.date), i18n.language)}
            </time>
            <span className="release-source">
              {release.source === EDITOR_RELEASE_SOURCE ? t('releases.fromEditors') : t('releases.fromFeed', { feed: feedName(release.source) })}
            </span>
            {release.notesUrl ? (
              <a href={release.notesUrl} rel="noopener noreferrer external nofollow" target="_blank" className="release-notes" aria-label={t('releases.notesFor', { version: release.version })}>
                {t('releases.notes')}
              </a>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  )
}
