import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useLocation, type LoaderFunctionArgs } from 'react-router'
import type { ProgramDetail, ProgramSummary } from '../../shared/catalogue/program-schemas.ts'
import type { Release } from '../../shared/catalogue/living-schemas.ts'
import { formatPartialDate } from '../../shared/catalogue/partial-dates.ts'
import { CompareToggle, CompareTray } from '../components/compare-toggle.tsx'
import { PriceLabel } from '../components/price-label.tsx'
import { LibraryButton, ProgramGrid } from '../components/program-card.tsx'
import { ProgramIcon } from '../components/program-icon.tsx'
import { ReleaseHistory, releasePrecision } from '../components/release-history.tsx'
import { FreeAlternatives } from '../components/free-alternatives.tsx'
import { ScreenshotGallery } from '../components/screenshot-gallery.tsx'
import type { ReturnState } from '../lib/account/continue.ts'
import { apiGet } from '../lib/api.ts'
import { useCatalogueHref } from '../lib/catalogue/twins.ts'
import { useLibrary } from '../lib/catalogue/library-state.ts'

/** The program and its release history, asked for together. */
export type ProgramPageData = ProgramDetail & { releases: Release[] }

export async function loader({ params, context, request }: LoaderFunctionArgs): Promise<ProgramPageData> {
  const path = `/api/programs/${encodeURIComponent(params.programId ?? '')}`
  // The program's own answer decides the page (404, 410): the history's failure only leaves it out.
  const [program, releases] = await Promise.all([
    apiGet<ProgramDetail>(context, path, request.signal),
    apiGet<{ items: Release[] }>(context, `${path}/releases`, request.signal).then((answer) => answer.items, () => []),
  ])
  return { ...program, releases }
}

function languageName(code: string, locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(code) ?? code
  } catch {
    return code
  }
}

function ProgramSection({ id, title, programs }: { id: string; title: string; programs: ProgramSummary[] }) {
  if (programs.length === 0) return null
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ProgramGrid programs={programs} />
    </section>
  )
}

/** `purchase`: the signed-in twin's Buy / Owned (client/pages/checkout), kept out of the visitor's code. */
export function Component({ purchase }: { purchase?: ReactNode }) {
  const program = useLoaderData() as ProgramPageData
  const { t, i18n } = useTranslation(['catalogue', 'common', 'checkout'])
  const { t: catalogueT } = useTranslation('catalogue')
  // The current version and "updated" are the newest release's.
  const newest = program.releases?.[0]
  const version = newest?.version ?? program.version
  const updated = newest ? formatPartialDate(newest.date, releasePrecision(newest.date), i18n.language) : formatPartialDate(program.updated, program.updatedPrecision, i18n.language)
  // Under /@ the page is the signed-in twin: add/remove, and every catalogue link goes to a twin.
  const library = useLibrary()
  const href = useCatalogueHref()
  const location = useLocation()
  // The program's texts are English where not translated into the page's language: say so, for screen readers and translation tools.
  const textLang = program.textLanguage === i18n.language ? undefined : program.textLanguage
  return (
    <main id="content" className="program-page">
      <header className="program-header">
        <ProgramIcon id={program.id} size="lg" />
        <div>
          <h1>{program.name}</h1>
          <p className="program-summary" lang={textLang}>
            {program.summary}
          </p>
          <p className="program-card-meta">
            <Link to={href(`/license-type/${program.licenseType}`)} className={`badge ${program.isFree ? 'badge-free' : 'badge-paid'}`}>
              {t(`catalogue:licenseTypes.${program.licenseType}`)}
            </Link>
            <PriceLabel program={program} t={catalogueT} language={i18n.language} />
          </p>
          {/* A visitor signs in first and comes back to this page's signed-in twin. */}
          <p className="program-actions">
            {library ? (
              <>
                <LibraryButton library={library} program={program} t={catalogueT} />
                {library.WatchPage ? <library.WatchPage program={program} /> : null}
                {purchase}
                {/* The account pages added it on the way here (client/lib/account/continue.ts). */}
                {(location.state as ReturnState | null)?.added === program.id && library.has(program.id) ? (
                  <span className="notice notice-success program-added" role="status" data-testid="program-added">
                    {t('catalogue:program.addedOnReturn', { name: program.name })}
                  </span>
                ) : null}
              </>
            ) : (
              <>
                {/* Buying needs an account; the visitor comes back to the twin to pay. */}
                {program.forSale ? (
                  <Link to={`/login?redirectToPath=${encodeURIComponent(`/@/programs/${program.id}`)}`} className="button" title={t('checkout:buyHint')}>
                    {t('checkout:buy')}
                  </Link>
                ) : null}
                {/* The sign-in (or sign-up) comes back here with the program added. */}
                <Link to={`/login?redirectToPath=${encodeURIComponent(`/@/programs/${program.id}`)}&action=add`} className="button" aria-describedby="add-hint">
                  {t('catalogue:program.addToLibrary')}
                </Link>
                <span id="add-hint" className="hint">
                  {t('catalogue:program.addToLibraryHint')}
                </span>
                {/* Watching needs an account too; the visitor comes back to the twin to choose. */}
                <Link to={`/login?redirectToPath=${encodeURIComponent(`/@/programs/${program.id}`)}`} className="button button-secondary" title={t('catalogue:watch.signInHint')}>
                  {t('catalogue:watch.watch')}
                </Link>
              </>
            )}
            <CompareToggle program={program} t={catalogueT} />
          </p>
        </div>
      </header>

      <div className="program-layout">
        <div className="program-main">
          <section aria-labelledby="about-title" className="program-about">
            <h2 id="about-title">{t('catalogue:program.about', { name: program.name })}</h2>
            <p lang={textLang}>{program.description}</p>
            <p>
              <a href={program.homepage} rel="noopener noreferrer external" target="_blank" className="button">
                {t('catalogue:program.homepage')}
              </a>
            </p>
          </section>
          <ScreenshotGallery programName={program.name} screenshots={program.screenshots ?? []} />
          {/* Up to 19 names, one or two a line in the details column; here they flow in rows. */}
          {program.languages.length > 0 ? (
            <section aria-labelledby="languages-title" className="program-languages">
              <h2 id="languages-title">{t('catalogue:program.languages')}</h2>
              <ul className="chip-list" aria-labelledby="languages-title">
                {program.languages.map((code) => (
                  <li key={code}>{languageName(code, i18n.language)}</li>
                ))}
              </ul>
            </section>
          ) : null}
          <ReleaseHistory releases={program.releases ?? []} />
        </div>
        <section aria-labelledby="details-title" className="program-details card">
          <h2 id="details-title">{t('catalogue:program.details')}</h2>
          <dl>
            <dt>{t('catalogue:program.developer')}</dt>
            <dd>
              <Link to={href(`/developer/${program.developer.id}`)}>{program.developer.name}</Link>
            </dd>
            <dt>{t('catalogue:program.publisher')}</dt>
            <dd>
              <Link to={href(`/publisher/${program.publisher.id}`)}>{program.publisher.name}</Link>
            </dd>
            <dt>{t('catalogue:program.licenseType')}</dt>
            <dd>
              <Link to={href(`/license-type/${program.licenseType}`)}>{t(`catalogue:licenseTypes.${program.licenseType}`)}</Link>
            </dd>
            <dt>{t('catalogue:program.categories')}</dt>
            <dd>
              {program.categories.map((category, index) => (
                <span key={category}>
                  {index > 0 ? ', ' : null}
                  <Link to={href(`/category/${category}`)}>{t(`common:categories.${category}`)}</Link>
                </span>
              ))}
            </dd>
            <dt>{t('catalogue:program.platforms')}</dt>
            <dd>{program.platforms.map((platform) => t(`catalogue:platforms.${platform}`)).join(', ')}</dd>
            <dt>{t('catalogue:program.version')}</dt>
            <dd data-testid="program-version">{version}</dd>
            <dt>{t('catalogue:program.updated')}</dt>
            <dd>{updated}</dd>
            <dt>{t('catalogue:program.released')}</dt>
            <dd>{formatPartialDate(program.released, program.releasedPrecision, i18n.language)}</dd>
          </dl>
        </section>
      </div>

      <FreeAlternatives program={program} />
      <ProgramSection id="more" title={t('catalogue:program.moreFromDeveloper', { developer: program.developer.name })} programs={program.moreFromDeveloper} />
      <ProgramSection id="related" title={t('catalogue:program.related')} programs={program.related} />
      <CompareTray />
    </main>
  )
}
