import { useTranslation } from 'react-i18next'
import { Form, Link, useLoaderData, type LoaderFunctionArgs } from 'react-router'
import { PRODUCT_NAME } from '../../shared/constants.ts'
import type { ProgramCategory } from '../../shared/catalogue/catalogue.ts'
import type { ProgramPage, ProgramSummary } from '../../shared/catalogue/program-schemas.ts'
import { CompareTray } from '../components/compare-toggle.tsx'
import { ProgramGrid } from '../components/program-card.tsx'
import { apiGet } from '../lib/api.ts'

/** Programs per home section: two full rows at the widest grid, four at the narrowest. */
const SECTION_SIZE = 6

interface HomeData {
  categories: Array<{ id: ProgramCategory; count: number }>
  popular: ProgramSummary[]
  recent: ProgramSummary[]
  freePicks: ProgramSummary[]
}

export async function loader({ context, request }: LoaderFunctionArgs): Promise<HomeData> {
  const list = (query: string) => apiGet<ProgramPage>(context, `/api/programs?${query}`, request.signal)
  const [categories, popular, recent, free] = await Promise.all([
    apiGet<HomeData['categories']>(context, '/api/categories', request.signal),
    list(`sort=namePopular&pageSize=${SECTION_SIZE}`),
    list(`sort=updated&pageSize=${SECTION_SIZE}`),
    // Free picks should not repeat the popular row, which free programs tend to lead.
    list(`price=free&sort=namePopular&pageSize=${SECTION_SIZE * 2}`),
  ])
  const shown = new Set(popular.items.map((program) => program.id))
  return {
    categories,
    popular: popular.items,
    recent: recent.items,
    freePicks: free.items.filter((program) => !shown.has(program.id)).slice(0, SECTION_SIZE),
  }
}

function ProgramRow({ id, title, more, programs }: { id: string; title: string; more?: { to: string; label: string }; programs: ProgramSummary[] }) {
  if (programs.length === 0) return null
  return (
    <section className="home-section" aria-labelledby={`${id}-title`}>
      <div className="section-heading">
        <h2 id={`${id}-title`}>{title}</h2>
        {more ? <Link to={more.to}>{more.label}</Link> : null}
      </div>
      <ProgramGrid programs={programs} />
    </section>
  )
}

export function Component() {
  const { categories, popular, recent, freePicks } = useLoaderData() as HomeData
  const { t } = useTranslation(['home', 'common', 'catalogue'])
  return (
    <main id="content" className="home">
      <section className="hero">
        <p className="hero-kicker">{PRODUCT_NAME}</p>
        <h1>{t('home:hero.title')}</h1>
        <p className="hero-lead">{t('home:hero.lead')}</p>
        {/* A plain GET form: it works before scripts load, and the router takes it over after. */}
        <Form method="get" action="/library" role="search" className="hero-search">
          <label htmlFor="home-q" className="visually-hidden">
            {t('catalogue:filters.search')}
          </label>
          <input id="home-q" type="search" name="q" placeholder={t('home:search.placeholder')} maxLength={100} />
          <button type="submit" className="button">
            {t('home:search.submit')}
          </button>
        </Form>
      </section>

      <section className="home-section" aria-labelledby="categories-title">
        <div className="section-heading">
          <h2 id="categories-title">{t('home:categories.title')}</h2>
          <Link to="/library">{t('home:sections.browseAll')}</Link>
        </div>
        <p className="section-lead">{t('home:categories.lead')}</p>
        <ul className="category-grid">
          {categories.map((category) => (
            <li key={category.id}>
              <Link to={`/category/${category.id}`} className="category-tile">
                <span className="category-name">{t(`common:categories.${category.id}`)}</span>
                <span className="category-count">{t('catalogue:results.count', { count: category.count })}</span>
              </Link>
            </li>
          ))}
        </ul>
      </section>

      <ProgramRow id="popular" title={t('home:sections.popular')} more={{ to: '/library', label: t('home:sections.seeAll') }} programs={popular} />
      <ProgramRow id="recent" title={t('home:sections.recent')} programs={recent} />
      <ProgramRow id="free" title={t('home:sections.free')} more={{ to: '/library?price=free', label: t('home:sections.seeAllFree') }} programs={freePicks} />

      <section className="home-section" aria-labelledby="features-title">
        <h2 id="features-title">{t('home:features.title')}</h2>
        <ul className="feature-grid">
          {(['catalogue', 'browse', 'library'] as const).map((key) => (
            <li key={key} className="card">
              <h3>{t(`home:features.${key}.title`)}</h3>
              <p>{t(`home:features.${key}.text`)}</p>
            </li>
          ))}
        </ul>
      </section>
      <CompareTray />
    </main>
  )
}
