import { useTranslation } from 'react-i18next'
import { isRouteErrorResponse, Link } from 'react-router'
import type { ErrorBody } from '../../shared/types.ts'
import { signedInHome, useSignedInPage } from '../lib/catalogue/twins.ts'
import { useViewer } from '../lib/session/guards.ts'
import { useErrorHead } from '../lib/head/route-head.ts'

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
  // A signed-in user's 404 is outside the protected group (client/routes.tsx): the viewer says.
  const viewer = useViewer()
  const signedIn = useSignedInPage() || viewer.user !== null
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
  // 410, a program the editors retired.
  const kind = status === 404 ? 'notFound' : status === 410 ? 'gone' : status === 503 || status === 502 || status === 504 ? 'unavailable' : status >= 500 ? 'server' : 'other'
  return (
    <main id="content" className="error-page" data-testid="error-page" data-status={status}>
      <p className="error-status" aria-hidden="true">
        {status}
      </p>
      <h1>{t(`errors.${kind}.title`, { status })}</h1>
      <p className="error-cause">{t(`errors.${kind}.cause`, { status })}</p>
      {/* Spec §2: the not-found message is "Page Not Found" and the path: kept in English, as the spec names it, introduced in the visitor's language. */}
      {detail && status === 404 ? (
        <p className="error-detail">
          {t('errors.notFound.message')}{' '}
          <code lang="en" data-testid="error-message">
            {detail}
          </code>
        </p>
      ) : null}
      <p className="error-actions">
        {/* A way on from a wrong address: the catalogue, where most links lead. */}
        {status === 404 || status === 410 ? (
          <Link className="button button-secondary" to={signedIn ? signedInHome('/library') : '/library'}>
            {t('errors.notFound.catalogue')}
          </Link>
        ) : null}
        {/* Spec §2: a full page load home; for a signed-in user the signed-in home (/@), where "/" would send them anyway. */}
        <a className="button" href={signedIn ? '/@' : '/'}>
          {t('errors.backHome')}
        </a>
      </p>
    </main>
  )
}
