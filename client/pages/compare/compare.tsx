import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { data, Link, useLoaderData, type LoaderFunctionArgs } from 'react-router'
import type { ProgramDetail, ProgramSummary } from '../../../shared/catalogue/program-schemas.ts'
import { COMPARE_MAX, COMPARE_MIN, comparePath } from '../../../shared/catalogue/living.ts'
import { formatPartialDate } from '../../../shared/catalogue/partial-dates.ts'
import type { ErrorBody } from '../../../shared/types.ts'
// Through the cards' module, with which they ship in one chunk (a chunk of their own would be one
// more file in the first load of every listing, against the first-load budget).
import { CompareTray, PriceLabel } from '../../components/program-card.tsx'
import { ProgramIcon } from '../../components/program-icon.tsx'
import { apiResponse } from '../../lib/api.ts'
import { useCatalogueHref } from '../../lib/catalogue/twins.ts'

// /compare?programs=a,b,c, and its twin /@/compare: COMPARE_MIN to COMPARE_MAX programs
// side by side, server-rendered; the URL is the whole state, so the page is shared by its link.
// Each program is read with GET /api/programs/{id}, in parallel. A link that cannot be shown
// — too few or too many programs, one twice (400), one unknown or retired (404) — is a page that
// says what is wrong and links to the programs of it that exist.

/** What the page shows of a program: the summary's fields (the detail's texts and lists stay out of the page's data). */
export type ComparedProgram = Pick<
  ProgramSummary,
  'id' | 'name' | 'developer' | 'licenseType' | 'isFree' | 'price' | 'categories' | 'platforms' | 'languages' | 'version' | 'updated' | 'updatedPrecision'
>

export type CompareProblem =
  | { kind: 'tooFew'; count: number }
  | { kind: 'tooMany'; count: number }
  | { kind: 'duplicate'; id: string; name: string | null }
  | { kind: 'unknown'; id: string }
  | { kind: 'retired'; id: string }

export interface CompareData {
  /** The programs found, in the link's order, each once. */
  programs: ComparedProgram[]
  /** Empty when the comparison shows. */
  problems: CompareProblem[]
}

/** How many of a link's ids are looked up at most: a link of hundreds is answered without hundreds of calls. */
const LOOKUP_MAX = COMPARE_MAX * 2

/** The ids of `?programs=a,b,c` in order (several `programs` parameters count as one list). */
export function compareIds(params: URLSearchParams): string[] {
  return params
    .getAll('programs')
    .flatMap((value) => value.split(','))
    .map((id) => id.trim())
    .filter((id) => id !== '')
}

function pick(program: ProgramDetail): ComparedProgram {
  const { id, name, developer, licenseType, isFree, price, categories, platforms, languages, version, updated, updatedPrecision } = program
  return { id, name, developer, licenseType, isFree, price, categories, platforms, languages, version, updated, updatedPrecision }
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ids = compareIds(new URL(request.url).searchParams)
  const unique = [...new Set(ids)]
  const looked = await Promise.all(
    unique.slice(0, LOOKUP_MAX).map(async (id) => ({ id, answer: await apiResponse(context, `/api/programs/${encodeURIComponent(id)}`, request.signal) })),
  )
  const programs: ComparedProgram[] = []
  const missing: CompareProblem[] = []
  for (const { id, answer } of looked) {
    if (answer.status === 200) programs.push(pick(answer.body as ProgramDetail))
    else if (answer.status === 404) missing.push({ kind: 'unknown', id })
    else if (answer.status === 410) missing.push({ kind: 'retired', id })
    // Anything else (the API away, overloaded) is the error page with that status, as on every page.
    else throw data((answer.body as ErrorBody | null) ?? null, { status: answer.status })
  }
  const problems: CompareProblem[] = []
  if (ids.length < COMPARE_MIN) problems.push({ kind: 'tooFew', count: ids.length })
  if (ids.length > COMPARE_MAX) problems.push({ kind: 'tooMany', count: ids.length })
  for (const id of unique) {
    if (ids.indexOf(id) !== ids.lastIndexOf(id)) problems.push({ kind: 'duplicate', id, name: programs.find((p) => p.id === id)?.name ?? null })
  }
  problems.push(...missing)
  const result: CompareData = { programs, problems }
  if (problems.length === 0) return result
  // A link that is malformed (the count, a repeat) is the visitor's request at fault: 400. One
  // whose shape is right but names a program the catalogue does not have (any more): 404.
  const malformed = problems.some((problem) => problem.kind === 'tooFew' || problem.kind === 'tooMany' || problem.kind === 'duplicate')
  return data(result, { status: malformed ? 400 : 404 })
}

function languageName(code: string, locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(code) ?? code
  } catch {
    return code
  }
}

function Problems({ data: { programs, problems } }: { data: CompareData }) {
  const { t } = useTranslation('compare')
  const href = useCatalogueHref()
  const usable = programs.slice(0, COMPARE_MAX)
  return (
    <section className="compare-problems" aria-labelledby="compare-problems-title">
      <div className="notice notice-error" role="alert">
        <h2 id="compare-problems-title">{t('problems.title')}</h2>
        <ul>
          {problems.map((problem) => (
            <li key={`${problem.kind}:${'id' in problem ? problem.id : ''}`}>
              {problem.kind === 'tooFew'
                ? t('problems.tooFew', { min: COMPARE_MIN, given: problem.count })
                : problem.kind === 'tooMany'
                  ? t('problems.tooMany', { max: COMPARE_MAX, given: problem.count })
                  : problem.kind === 'duplicate'
                    ? t('problems.duplicate', { name: problem.name ?? problem.id })
                    : t(`problems.${problem.kind}`, { id: problem.id })}
            </li>
          ))}
        </ul>
      </div>
      {programs.length > 0 ? (
        <>
          <h2>{t('problems.found')}</h2>
          <ul className="compare-found">
            {programs.map((program) => (
              <li key={program.id}>
                <Link to={href(`/programs/${program.id}`)}>
                  <ProgramIcon id={program.id} />
                  <span>{program.name}</span>
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <p className="compare-next">
        {usable.length >= COMPARE_MIN ? (
          <Link className="button" to={href(comparePath(usable.map((p) => p.id)))}>
            {t('problems.compareThese', { number: usable.length })}
          </Link>
        ) : null}
        <Link className={usable.length >= COMPARE_MIN ? 'button button-secondary' : 'button'} to={href('/library')}>
          {t('browse')}
        </Link>
      </p>
    </section>
  )
}

function CompareTable({ programs }: { programs: ComparedProgram[] }) {
  const { t, i18n } = useTranslation(['compare', 'catalogue', 'common'])
  const { t: catalogueT } = useTranslation('catalogue')
  const href = useCatalogueHref()
  const language = i18n.language
  // The program page's names for the fields (catalogue:program.*), and the price's own.
  const rows: Array<{ key: string; label: string; cell: (program: ComparedProgram) => ReactNode }> = [
    { key: 'price', label: t('compare:rows.price'), cell: (program) => <PriceLabel program={program} t={catalogueT} language={language} /> },
    {
      key: 'licenseType',
      label: t('catalogue:program.licenseType'),
      cell: (program) => (
        <Link to={href(`/license-type/${program.licenseType}`)} className={`badge ${program.isFree ? 'badge-free' : 'badge-paid'}`}>
          {t(`catalogue:licenseTypes.${program.licenseType}`)}
        </Link>
      ),
    },
    { key: 'platforms', label: t('catalogue:program.platforms'), cell: (program) => <List items={program.platforms.map((platform) => t(`catalogue:platforms.${platform}`))} /> },
    { key: 'languages', label: t('catalogue:program.languages'), cell: (program) => <List items={program.languages.map((code) => languageName(code, language))} /> },
    {
      key: 'categories',
      label: t('catalogue:program.categories'),
      cell: (program) => (
        <ul className="compare-values">
          {program.categories.map((category) => (
            <li key={category}>
              <Link to={href(`/category/${category}`)}>{t(`common:categories.${category}`)}</Link>
            </li>
          ))}
        </ul>
      ),
    },
    { key: 'version', label: t('catalogue:program.version'), cell: (program) => program.version },
    { key: 'updated', label: t('catalogue:program.updated'), cell: (program) => formatPartialDate(program.updated, program.updatedPrecision, language) },
    { key: 'developer', label: t('catalogue:program.developer'), cell: (program) => <Link to={href(`/developer/${program.developer.id}`)}>{program.developer.name}</Link> },
  ]
  return (
    // On a narrow screen the table scrolls sideways inside this region, the row names staying in view.
    <div className="compare-scroller" role="region" aria-labelledby="compare-caption" tabIndex={0} data-testid="compare-scroller">
      <table className="compare-table">
        <caption id="compare-caption" className="visually-hidden">
          {t('compare:caption', { names: programs.map((p) => p.name).join(', ') })}
        </caption>
        <thead>
          <tr>
            <td />
            {programs.map((program) => (
              <th key={program.id} scope="col">
                <Link to={href(`/programs/${program.id}`)} className="compare-program">
                  <ProgramIcon id={program.id} />
                  <span>{program.name}</span>
                </Link>
                {programs.length > COMPARE_MIN ? (
                  <Link
                    className="compare-remove"
                    to={href(comparePath(programs.filter((p) => p.id !== program.id).map((p) => p.id)))}
                    aria-label={t('compare:removeNamed', { name: program.name })}
                  >
                    {t('compare:remove')}
                  </Link>
                ) : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} data-row={row.key}>
              <th scope="row">{row.label}</th>
              {programs.map((program) => (
                <td key={program.id}>{row.cell(program)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

function List({ items }: { items: string[] }) {
  return (
    <ul className="compare-values">
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  )
}

export function Component() {
  const loaded = useLoaderData() as CompareData
  const { t } = useTranslation('compare')
  return (
    <main id="content" className="compare-page">
      <header className="listing-header">
        <h1>{t('title')}</h1>
        <p>{t('lead')}</p>
      </header>
      {loaded.problems.length > 0 ? <Problems data={loaded} /> : <CompareTable programs={loaded.programs} />}
      <CompareTray />
    </main>
  )
}
