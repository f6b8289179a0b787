import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useLoaderData, useRevalidator, useRouteLoaderData, type LoaderFunctionArgs } from 'react-router'
import { permissionsOf } from '../../../shared/operator.ts'
import type { ErrorBody } from '../../../shared/types.ts'
import { Notice } from '../../components/auth-shell.tsx'
import { apiGet, apiSend } from '../../lib/api.ts'
import type { SignedInData } from '../../lib/session/guards.ts'
import { LocalTime } from './audit.tsx'

// /@/operator/feeds (decision 029): the catalogue feeds (GET /api/operator/feeds) with
// their state, problem and reports; "Read the feeds now" (POST /api/operator/feeds/sync); and what
// the feeds propose (GET /api/operator/proposed-changes), each accepted or rejected by an editor.

interface FeedReport {
  id: string
  at: string
  kind: string
  programId: string | null
  detail: string
}

interface FeedState {
  name: string
  format: 'appstream' | 'homebrew'
  source: string
  checkedAt: string | null
  succeededAt: string | null
  problem: string | null
  problemAt: string | null
  reports: FeedReport[]
}

interface Proposal {
  id: string
  programId: string
  programName: string
  field: 'name' | 'homepage' | 'summary' | 'description'
  current: string
  proposed: string
  source: string
  createdAt: string
}

interface FeedsData {
  feeds: FeedState[]
  intervalSeconds: number
  proposals: Proposal[]
  total: number
}

interface SyncSummary {
  feeds: Array<{ feed: string; status: 'updated' | 'not-modified' | 'skipped' | 'failed'; releases: unknown[]; ignored: unknown[]; proposals: unknown[]; problem: string | null }>
}

export async function loader({ request, context }: LoaderFunctionArgs): Promise<FeedsData> {
  const [feeds, proposals] = await Promise.all([
    apiGet<{ feeds: FeedState[]; intervalSeconds: number }>(context, '/api/operator/feeds', request.signal),
    apiGet<{ items: Proposal[]; total: number }>(context, '/api/operator/proposed-changes', request.signal),
  ])
  return { feeds: feeds.feeds, intervalSeconds: feeds.intervalSeconds, proposals: proposals.items, total: proposals.total }
}

function FeedCard({ feed }: { feed: FeedState }) {
  const { t } = useTranslation('operator')
  const state = feed.problem ? 'failing' : feed.succeededAt ? 'ok' : 'unread'
  return (
    <li className="operator-feed" data-testid="feed">
      <h3>
        <code>{feed.name}</code>
      </h3>
      <dl className="profile-facts">
        <dt>{t('feeds.format')}</dt>
        <dd>{t(`feeds.formats.${feed.format}`)}</dd>
        <dt>{t('feeds.state')}</dt>
        <dd data-testid="feed-state">{t(`feeds.states.${state}`)}</dd>
        <dt>{t('feeds.checkedAt')}</dt>
        <dd>{feed.checkedAt ? <LocalTime iso={feed.checkedAt} /> : t('feeds.never')}</dd>
        <dt>{t('feeds.succeededAt')}</dt>
        <dd>{feed.succeededAt ? <LocalTime iso={feed.succeededAt} /> : t('feeds.never')}</dd>
      </dl>
      {feed.problem ? (
        <Notice kind="error" testId="feed-problem">
          {t('feeds.problem', { problem: feed.problem })}
        </Notice>
      ) : null}
      <h4>{t('feeds.reports')}</h4>
      {feed.reports.length === 0 ? (
        <p className="hint">{t('feeds.noReports')}</p>
      ) : (
        <ul className="operator-feed-reports">
          {feed.reports.map((report) => (
            <li key={report.id} data-testid="feed-report">
              <LocalTime iso={report.at} /> — <strong>{t(`feeds.kinds.${report.kind}`, { defaultValue: report.kind })}</strong>: {report.detail}
            </li>
          ))}
        </ul>
      )}
    </li>
  )
}

export function Component() {
  const { t } = useTranslation(['operator', 'common'])
  const loaded = useLoaderData() as FeedsData
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const canWrite = permissionsOf(user.roles).includes('catalogue:write')
  const revalidator = useRevalidator()
  const [busy, setBusy] = useState<string | null>(null)
  const [status, setStatus] = useState<{ kind: 'success' | 'error'; text: string } | null>(null)
  const statusRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (status) statusRef.current?.focus()
  }, [status])

  const failure = (result: { status: number; body: unknown }) => {
    const code = (result.body as Partial<ErrorBody> | null)?.code
    if (result.status === 0) return t('common:errors.errorApiRequest')
    if (code === 'API_PROPOSAL_DECIDED') return t('operator:feeds.errors.decided')
    if (code === 'API_REVISION_CONFLICT') return t('operator:feeds.errors.conflict')
    if (code === 'API_VALIDATION_FAILED') return t('operator:feeds.errors.invalid')
    if (result.status === 403) return t('operator:feeds.errors.denied')
    return t('operator:feeds.errors.failed')
  }

  const sync = async () => {
    setBusy('sync')
    setStatus(null)
    const result = await apiSend<SyncSummary>('POST', '/api/operator/feeds/sync')
    setBusy(null)
    if (!result.ok) return setStatus({ kind: 'error', text: failure(result) })
    const summary = result.body as SyncSummary
    const count = (key: 'releases' | 'ignored' | 'proposals') => summary.feeds.reduce((sum, feed) => sum + feed[key].length, 0)
    const failed = summary.feeds.filter((feed) => feed.status === 'failed').length
    setStatus({
      kind: failed > 0 ? 'error' : 'success',
      text: t('operator:feeds.synced', { releases: count('releases'), ignored: count('ignored'), proposals: count('proposals'), failed }),
    })
    await revalidator.revalidate()
  }

  const decide = async (proposal: Proposal, decision: 'accept' | 'reject') => {
    setBusy(proposal.id)
    setStatus(null)
    const result = await apiSend<unknown>('POST', `/api/operator/proposed-changes/${proposal.id}/${decision}`)
    setBusy(null)
    if (!result.ok) setStatus({ kind: 'error', text: failure(result) })
    else setStatus({ kind: 'success', text: t(decision === 'accept' ? 'operator:feeds.accepted' : 'operator:feeds.rejected', { program: proposal.programName, field: t(`operator:feeds.fields.${proposal.field}`) }) })
    await revalidator.revalidate()
  }

  return (
    <main id="content" className="operator-page" data-testid="operator-feeds">
      <h1>{t('operator:feeds.title')}</h1>
      <p>{t('operator:feeds.lead', { hours: Math.round((loaded.intervalSeconds / 3600) * 10) / 10 })}</p>
      {status ? (
        <div ref={statusRef} tabIndex={-1}>
          <Notice kind={status.kind} testId="feeds-status">
            {status.text}
          </Notice>
        </div>
      ) : null}
      <h2>{t('operator:feeds.feedsHeading')}</h2>
      {loaded.feeds.length === 0 ? (
        <p data-testid="feeds-none">{t('operator:feeds.none')}</p>
      ) : (
        <>
          {canWrite ? (
            <p className="actions">
              <button type="button" className="button" disabled={busy !== null} onClick={() => void sync()} data-testid="feeds-sync">
                {t('operator:feeds.sync')}
              </button>
            </p>
          ) : null}
          <ul className="operator-feeds">
            {loaded.feeds.map((feed) => (
              <FeedCard key={feed.name} feed={feed} />
            ))}
          </ul>
        </>
      )}
      <h2>{t('operator:feeds.proposalsHeading', { count: loaded.total })}</h2>
      <p>{t('operator:feeds.proposalsLead')}</p>
      {loaded.proposals.length === 0 ? (
        <p data-testid="proposals-none">{t('operator:feeds.noProposals')}</p>
      ) : (
        <div className="operator-table-wrap">
          <table className="operator-table">
            <thead>
              <tr>
                <th scope="col">{t('operator:feeds.columns.program')}</th>
                <th scope="col">{t('operator:feeds.columns.field')}</th>
                <th scope="col">{t('operator:feeds.columns.current')}</th>
                <th scope="col">{t('operator:feeds.columns.proposed')}</th>
                <th scope="col">{t('operator:feeds.columns.source')}</th>
                {canWrite ? <th scope="col">{t('operator:feeds.columns.decision')}</th> : null}
              </tr>
            </thead>
            <tbody>
              {loaded.proposals.map((proposal) => (
                <tr key={proposal.id} data-testid="proposal">
                  <td>{proposal.programName}</td>
                  <td>{t(`operator:feeds.fields.${proposal.field}`)}</td>
                  <td>
                    <del>{proposal.current}</del>
                  </td>
                  <td>
                    <ins>{proposal.proposed}</ins>
                  </td>
                  <td>
                    <code>{proposal.source}</code>
                  </td>
                  {canWrite ? (
                    <td>
                      <button
                        type="button"
                        className="button"
                        disabled={busy !== null}
                        onClick={() => void decide(proposal, 'accept')}
                        aria-label={t('operator:feeds.acceptLabel', { program: proposal.programName, field: t(`operator:feeds.fields.${proposal.field}`) })}
                      >
                        {t('operator:feeds.accept')}
                      </button>{' '}
                      <button
                        type="button"
                        className="button button-secondary"
                        disabled={busy !== null}
                        onClick={() => void decide(proposal, 'reject')}
                        aria-label={t('operator:feeds.rejectLabel', { program: proposal.programName, field: t(`operator:feeds.fields.${proposal.field}`) })}
                      >
                        {t('operator:feeds.reject')}
                      </button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  )
}
