// The two pages, as Softshelf renders them (the same markup, classes and visible text), shared by
// the force-dynamic routes (/library, /programs/[id]) and the ISR ones (/isr/...).
import Link from 'next/link'
import { notFound } from 'next/navigation'
import { CATEGORIES, dateText, isFree, languageName, PAGE_SIZE, priceText, programById, programs, relatedTo, slug, t, type Program } from './data'

function ProgramCard({ program }: { program: Program }) {
  return (
    <li className="program-card card">
      <img className="program-icon program-icon-md" src={`/logos/${program.id}.svg`} alt="" width={48} height={48} loading="lazy" decoding="async" />
      <div className="program-card-body">
        <h3>
          <Link href={`/programs/${program.id}`}>{program.name}</Link>
        </h3>
        <p className="program-card-developer">{program.developer}</p>
        <p className="program-card-summary">{program.summary}</p>
        <p className="program-card-meta">
          <span className={`badge ${isFree(program) ? 'badge-free' : 'badge-paid'}`}>{t(`catalogue:licenseTypes.${program.licenseType}`)}</span>
          <span className="price">{priceText(program.price)}</span>
        </p>
      </div>
    </li>
  )
}

export function LibraryPage({ page = 1 }: { page?: number }) {
  const pages = Math.ceil(programs.length / PAGE_SIZE)
  const shown = programs.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
  const at = (n: number) => (n === 1 ? '/library' : `/library?page=${n}`)
  return (
    <main id="content" className="listing" aria-busy="false">
      <header className="listing-header">
        <h1>{t('catalogue:library.title')}</h1>
        <p>{t('catalogue:library.lead')}</p>
      </header>
      <details className="disclosure listing-disclosure">
        <summary>{t('catalogue:filters.toggle')} </summary>
        <form role="search" className="listing-filters" action="/library" method="get">
          <div className="field field-search">
            <label htmlFor="listing-q">{t('catalogue:filters.search')}</label>
            <input id="listing-q" type="search" placeholder={t('catalogue:filters.searchPlaceholder')} maxLength={100} name="q" defaultValue="" />
          </div>
          <div className="field">
            <label htmlFor="listing-category">{t('catalogue:filters.category')}</label>
            <select id="listing-category" name="category" defaultValue="all">
              <option value="all">{t('categories.all')}</option>
              {CATEGORIES.map((id) => (
                <option key={id} value={id}>
                  {t(`categories.${id}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="listing-platform">{t('catalogue:filters.platform')}</label>
            <select id="listing-platform" name="platform" defaultValue="all">
              <option value="all">{t('catalogue:filters.allPlatforms')}</option>
              {['windows', 'macos', 'linux', 'web'].map((id) => (
                <option key={id} value={id}>
                  {t(`catalogue:platforms.${id}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="listing-sort">{t('catalogue:sort.label')}</label>
            <select id="listing-sort" name="sort" defaultValue="namePopular">
              {['namePopular', 'nameAsc', 'nameDesc'].map((id) => (
                <option key={id} value={id}>
                  {t(`catalogue:sort.${id}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field field-check">
            <input id="listing-mine" type="checkbox" name="mine" value="1" />
            <label htmlFor="listing-mine">{t('catalogue:filters.myLanguage')}</label>
          </div>
          <button type="submit" className="button">
            {t('catalogue:filters.submit')}
          </button>
        </form>
      </details>
      <nav className="tabs" aria-label={t('catalogue:tabs.label')}>
        <Link className="tab tab-active" aria-current="page" href="/library">
          {t('catalogue:tabs.all')}
        </Link>
        <Link className="tab" href="/library?price=free">
          {t('catalogue:tabs.free')}
        </Link>
        <Link className="tab" href="/library?price=paid">
          {t('catalogue:tabs.paid')}
        </Link>
      </nav>
      <h2 className="listing-count" aria-live="polite">
        {t(programs.length === 1 ? 'catalogue:results.count_one' : 'catalogue:results.count_other', { count: programs.length })}
      </h2>
      <ul className="program-grid">
        {shown.map((program) => (
          <ProgramCard key={program.id} program={program} />
        ))}
      </ul>
      <nav className="pagination" aria-label={t('catalogue:results.pagination')}>
        <ul>
          <li>
            <Link aria-current={page === 1 ? 'page' : undefined} href={at(1)}>
              1
            </Link>
          </li>
          {page + 1 < pages ? (
            <li>
              <Link href={at(page + 1)}>{page + 1}</Link>
            </li>
          ) : null}
          <li>…</li>
          <li>
            <Link href={at(pages)}>{pages}</Link>
          </li>
        </ul>
        {page < pages ? (
          <Link rel="next" href={at(page + 1)}>
            {t('catalogue:results.next')}
          </Link>
        ) : null}
      </nav>
    </main>
  )
}

export function ProgramPage({ programId }: { programId: string }) {
  const program = programById.get(programId)
  if (!program) notFound()
  const back = encodeURIComponent(`/@/programs/${program.id}`)
  const licence = t(`catalogue:licenseTypes.${program.licenseType}`)
  return (
    <main id="content" className="program-page">
      <header className="program-header">
        <img className="program-icon program-icon-lg" src={`/logos/${program.id}.svg`} alt="" width={80} height={80} loading="eager" decoding="async" />
        <div>
          <h1>{program.name}</h1>
          <p className="program-summary">{program.summary}</p>
          <p className="program-card-meta">
            <Link className={`badge ${isFree(program) ? 'badge-free' : 'badge-paid'}`} href={`/license-type/${program.licenseType}`}>
              {licence}
            </Link>
            <span className="price">{priceText(program.price)}</span>
          </p>
          <p className="program-actions">
            <Link className="button" aria-describedby="add-hint" href={`/login?redirectToPath=${back}&action=add`}>
              {t('catalogue:program.addToLibrary')}
            </Link>
            <span id="add-hint" className="hint">
              {t('catalogue:program.addToLibraryHint')}
            </span>
            <Link className="button button-secondary" title={t('catalogue:watch.signInHint')} href={`/login?redirectToPath=${back}`}>
              {t('catalogue:watch.watch')}
            </Link>
          </p>
        </div>
      </header>
      <div className="program-layout">
        <div className="program-main">
          <section aria-labelledby="about-title" className="program-about">
            <h2 id="about-title">{t('catalogue:program.about', { name: program.name })}</h2>
            <p>{program.description}</p>
            <p>
              <a href={program.homepage} rel="noopener noreferrer external" target="_blank" className="button">
                {t('catalogue:program.homepage')}
              </a>
            </p>
          </section>
          <section aria-labelledby="languages-title" className="program-languages">
            <h2 id="languages-title">{t('catalogue:program.languages')}</h2>
            <ul className="chip-list" aria-labelledby="languages-title">
              {program.languages.map((code) => (
                <li key={code}>{languageName(code)}</li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="releases-title" className="program-releases">
            <h2 id="releases-title">{t('catalogue:releases.title')}</h2>
            <ol className="release-list">
              <li>
                <strong>{t('catalogue:releases.version', { version: program.version })}</strong> <span className="badge">{t('catalogue:releases.current')}</span>{' '}
                <time dateTime={program.updated}>{dateText(program.updated)}</time> · {t('catalogue:releases.fromEditors')}
              </li>
            </ol>
          </section>
        </div>
        <section aria-labelledby="details-title" className="program-details card">
          <h2 id="details-title">{t('catalogue:program.details')}</h2>
          <dl>
            <dt>{t('catalogue:program.developer')}</dt>
            <dd>
              <Link href={`/developer/${slug(program.developer)}`}>{program.developer}</Link>
            </dd>
            <dt>{t('catalogue:program.publisher')}</dt>
            <dd>
              <Link href={`/publisher/${slug(program.publisher)}`}>{program.publisher}</Link>
            </dd>
            <dt>{t('catalogue:program.licenseType')}</dt>
            <dd>
              <Link href={`/license-type/${program.licenseType}`}>{licence}</Link>
            </dd>
            <dt>{t('catalogue:program.categories')}</dt>
            <dd>
              {program.categories.map((id, i) => (
                <span key={id}>
                  {i > 0 ? ', ' : ''}
                  <Link href={`/category/${id}`}>{t(`categories.${id}`)}</Link>
                </span>
              ))}
            </dd>
            <dt>{t('catalogue:program.platforms')}</dt>
            <dd>{program.platforms.map((id) => t(`catalogue:platforms.${id}`)).join(', ')}</dd>
            <dt>{t('catalogue:program.version')}</dt>
            <dd data-testid="program-version">{program.version}</dd>
            <dt>{t('catalogue:program.updated')}</dt>
            <dd>{dateText(program.updated)}</dd>
            <dt>{t('catalogue:program.released')}</dt>
            <dd>{program.released}</dd>
          </dl>
        </section>
      </div>
      <section aria-labelledby="related-title">
        <h2 id="related-title">{t('catalogue:program.related')}</h2>
        <ul className="program-grid">
          {relatedTo(program).map((other) => (
            <ProgramCard key={other.id} program={other} />
          ))}
        </ul>
      </section>
    </main>
  )
}

export function libraryMetadata() {
  return { title: 'Software catalogue — Softshelf', description: t('catalogue:meta.library') }
}

export function programMetadata(programId: string) {
  const program = programById.get(programId)
  return program ? { title: `${program.name} by ${program.developer} — Softshelf`, description: program.summary } : {}
}
