import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import type { ProgramSummary } from '../../shared/catalogue/program-schemas.ts'
import { useCatalogueHref } from '../lib/catalogue/twins.ts'
import { useLibrary, type LibraryState } from '../lib/catalogue/library-state.ts'
import { CompareToggle, CompareTray } from './compare-toggle.tsx'
import { PriceLabel } from './price-label.tsx'
import { ProgramIcon } from './program-icon.tsx'

/** Add to or remove from the signed-in user's library; the button says which, and for what. */
export function LibraryButton({ library, program, t }: { library: LibraryState; program: { id: string; name: string }; t: TFunction<'catalogue'> }) {
  const inLibrary = library.has(program.id)
  return (
    <button
      type="button"
      className={`button ${inLibrary ? 'button-secondary' : ''}`}
      aria-pressed={inLibrary}
      disabled={library.busy(program.id)}
      onClick={() => void library.toggle(program.id)}
      aria-label={t(inLibrary ? 'program.removeNamed' : 'program.addNamed', { name: program.name })}
    >
      {t(inLibrary ? 'program.removeFromLibrary' : 'program.addToLibrary')}
    </button>
  )
}

function ProgramCard({ program, t, language, library, href }: { program: ProgramSummary; t: TFunction<'catalogue'>; language: string; library: LibraryState | null; href: (to: string) => string }) {
  return (
    <li className="program-card card">
      <ProgramIcon id={program.id} />
      <div className="program-card-body">
        {/* A retired program has no page any more; the library keeps it, marked. */}
        <h3>{program.retired ? program.name : <Link to={href(`/programs/${program.id}`)}>{program.name}</Link>}</h3>
        <p className="program-card-developer">{program.developer.name}</p>
        {/* English where not translated into the page's language: marked so for screen readers. */}
        <p className="program-card-summary" lang={program.textLanguage === language ? undefined : program.textLanguage}>
          {program.summary}
        </p>
        <p className="program-card-meta">
          {/* What the user bought or subscribes to, on every card under /@ (never on a public page). */}
          {program.retired ? (
            <span className="badge badge-retired" data-testid="card-retired" title={t('program.retiredNote')}>
              {t('program.retired')}
            </span>
          ) : null}
          {library?.owns(program.id) ? (
            <span className="badge badge-owned" data-testid="card-owned">
              {t('program.owned')}
            </span>
          ) : null}
          <span className={`badge ${program.isFree ? 'badge-free' : 'badge-paid'}`}>{t(`licenseTypes.${program.licenseType}`)}</span>
          <PriceLabel program={program} t={t} language={language} />
        </p>
        {library ? <LibraryButton library={library} program={program} t={t} /> : null}
        {program.retired ? null : <CompareToggle program={program} t={t} />}
        {/* "Watch" on the cards under /@ (client/components/watch-control.tsx). */}
        {library?.WatchCard && <library.WatchCard program={program} />}
      </div>
    </li>
  )
}

// For the compare page, so that these ship in the cards' chunk.
export { CompareTray, PriceLabel }

/**
 * A grid of program cards. The translation hook runs once here, not once per card: on a page of
 * 24 cards that was a quarter of the server's render time.
 */
export function ProgramGrid({ programs }: { programs: ProgramSummary[] }) {
  const { t, i18n } = useTranslation('catalogue')
  const library = useLibrary()
  const href = useCatalogueHref()
  return (
    <ul className="program-grid">
      {programs.map((program) => (
        <ProgramCard key={program.id} program={program} t={t} language={i18n.language} library={library} href={href} />
      ))}
    </ul>
  )
}
