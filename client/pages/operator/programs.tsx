import { useTranslation } from 'react-i18next'
import { Form, Link, useLoaderData, useLocation, type LoaderFunctionArgs } from 'react-router'
import { formatPartialDate, parsePartialDate } from '../../../shared/catalogue/partial-dates.ts'
import type { EditorProgram } from '../../../shared/catalogue/program-editor.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiGet } from '../../lib/api.ts'

// /@/operator/programs: every program of the catalogue as editors see it, retired ones
// too; a search over id, name, developer and publisher, a page at a time.

interface ProgramsPage {
  items: EditorProgram[]
  total: number
  page: number
  pageSize: number
}

export interface ProgramsData {
  q: string
  list: ProgramsPage
}

/** The page number of a query string, 1 for anything else. */
function pageOf(value: string | null): number {
  const page = Number(value)
  return Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<ProgramsData> {
  const url = new URL(request.url)
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, 100)
  const page = pageOf(url.searchParams.get('page'))
  const query = new URLSearchParams({ ...(q ? { q } : {}), page: String(page) })
  const list = await apiGet<ProgramsPage>(context, `/api/operator/programs?${query.toString()}`, request.signal)
  return { q, list }
}

/** A partial date as the catalogue shows it, in the console's language. */
export function shownDate(value: string, language: string): string {
  const parsed = parsePartialDate(value)
  return parsed ? formatPartialDate(parsed.start, parsed.precision, language) : value
}

export function Component() {
  const { t, i18n } = useTranslation(['operator', 'catalogue'])
  const { q, list } = useLoaderData() as ProgramsData
  const location = useLocation()
  const retiredName = (location.state as { retired?: string } | null)?.retired
  const pages = Math.max(1, Math.ceil(list.total / list.pageSize))
  const pageLink = (page: number) => `?${new URLSearchParams({ ...(q ? { q } : {}), ...(page > 1 ? { page: String(page) } : {}) }).toString()}`

  return (
    <main id="content" className="operator-page">
      <header className="operator-header">
        <div>
          <h1>{t('programs.title')}</h1>
          <p>{t('programs.lead')}</p>
        </div>
        <Link className="button" to="/@/operator/programs/new">
          {t('programs.new')}
        </Link>
      </header>
      {retiredName ? <Notice kind="success">{t('programs.retiredDone', { name: retiredName })}</Notice> : null}
      <Form method="get" role="search" className="operator-search">
        <label htmlFor="operator-programs-q">{t('programs.search')}</label>
        <div className="operator-search-row">
          <input id="operator-programs-q" type="search" name="q" defaultValue={q} key={q} maxLength={100} placeholder={t('programs.searchPlaceholder')} />
          <button type="submit" className="button button-small">
            {t('programs.searchSubmit')}
          </button>
        </div>
      </Form>
      <p className="operator-count" role="status">
        {t('programs.count', { count: list.total })}
      </p>
      {list.items.length === 0 ? (
        <p>{t('programs.none')}</p>
      ) : (
        <div className="operator-table-wrap" tabIndex={0} role="region" aria-labelledby="operator-programs-caption">
          <table className="operator-table">
            <caption id="operator-programs-caption" className="visually-hidden">
              {t('programs.caption')}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('programs.columns.name')}</th>
                <th scope="col">{t('programs.columns.developer')}</th>
                <th scope="col">{t('programs.columns.licenseType')}</th>
                <th scope="col">{t('programs.columns.version')}</th>
                <th scope="col">{t('programs.columns.updated')}</th>
                <th scope="col">{t('programs.columns.status')}</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((program) => (
                <tr key={program.id} className={program.retired ? 'operator-row-retired' : undefined}>
                  <th scope="row">
                    <Link to={`/@/operator/programs/${program.id}`}>{program.name}</Link>
                    <span className="operator-id">{program.id}</span>
                  </th>
                  <td>{program.developer.name}</td>
                  <td>{t(`catalogue:licenseTypes.${program.licenseType}`)}</td>
                  <td>{program.version}</td>
                  <td>{shownDate(program.updated, i18n.language)}</td>
                  <td>{program.retired ? <span className="operator-badge operator-badge-retired">{t('programs.retired')}</span> : <span className="operator-badge">{t('programs.public')}</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 ? (
        <nav className="operator-pagination" aria-label={t('programs.pagination')}>
          {list.page > 1 ? (
            <Link to={pageLink(list.page - 1)} rel="prev">
              {t('programs.previous')}
            </Link>
          ) : null}
          <span aria-current="page">{t('programs.pageOf', { page: list.page, pages })}</span>
          {list.page < pages ? (
            <Link to={pageLink(list.page + 1)} rel="next">
              {t('programs.next')}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </main>
  )
}
