import { useTranslation } from 'react-i18next'
import { isRouteErrorResponse, Link } from 'react-router'
import type { ErrorBody } from '../../shared/types.ts'
import { useSignedInPage } from '../lib/catalogue/twins.ts'
import { useErrorHead } from '../lib/route-head.ts'

/** What the generic error page shows for an error (spec §2: a status message and a cause). */
export function describeError(error: unknown): { status: number; detail: string | null } {
  if (isRouteErrorResponse(error)) {
    const body = error.data as Partial<ErrorBody> | null
    return { status: error.status, detail: typeof body?.message === 'string' ? body.message : null }
  }
  return { status: 500, detail: null }
}

/** Spec §8: a disabled account sees its own page, with a way to sign out. */
function isAccountDisabled(error: unknown): boolean {
  return isRouteErrorResponse(error) && (error.data as { code?: string } | null)?.code === 'ACCOUNT_DISABLED'
}

export function ErrorPage({ error }: { error: unknown }) {
  const { t } = useTranslation()
  const { status, detail } = describeError(error)
  const signedIn = useSignedInPage()
  useErrorHead(status)
  if (isAccountDisabled(error)) {
    return (
      <main id="content" className="error-page" data-testid="account-disabled" data-status={status}>
        <h1>{t('errors.accountDisabled.title')}</h1>
        <p className="error-cause">{t('errors.accountDisabled.message')}</p>
        <Link className="button" to="/@/logout">
          {t('errors.accountDisabled.logOut')}
        </Link>
      </main>
    )
  }
  const kind = status === 404 ? 'notFound' : status === 503 || status === 502 || status === 504 ? 'unavailable' : status >= 500 ? 'server' : 'other'
  return (
    <main id="content" className="error-page" data-testid="error-page" data-status={status}>
      <p className="error-status" aria-hidden="true">
        {status}
      </p>
      <h1>{t(`errors.${kind}.title`, { status })}</h1>
      <p className="error-cause">{t(`errors.${kind}.cause`, { status })}</p>
      {detail && status === 404 ? <p className="error-detail">{detail}</p> : null}
      {/* Spec §2: a full page load home; for a signed-in user the signed-in home (/@), where "/" would send them anyway. */}
      <a className="button" href={signedIn ? '/@' : '/'}>
        {t('errors.backHome')}
      </a>
    </main>
  )
}
