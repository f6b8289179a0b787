import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLoaderData, useNavigate, type LoaderFunctionArgs } from 'react-router'
import { isCrossSite, SEC_FETCH_SITE } from '../../../shared/web/fetch-metadata.ts'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { signOut } from '../../lib/session/auth.ts'

interface LogoutData {
  /** Another site sent the visitor here: ask before signing out. */
  confirm: boolean
}

/**
 * Decided from the request: on the server it is the browser's own (its Sec-Fetch-Site reaches the
 * router with the other headers, ssr.ts); in the browser a navigation inside the app is always
 * same-origin, and its request carries no such header.
 */
export function loader({ request }: LoaderFunctionArgs): LogoutData {
  return { confirm: isCrossSite(request.headers.get(SEC_FETCH_SITE)) }
}

/**
 * /@/logout runs the sign-out in the browser (a POST with the custom header) and lands on /login.
 * Any page can link here, so when another site sent the visitor, it asks first.
 */
export function Component() {
  const { t } = useTranslation(['auth', 'common'])
  const { confirm } = useLoaderData() as LogoutData
  const [confirmed, setConfirmed] = useState(!confirm)
  if (!confirmed) {
    return (
      <AuthShell title={t('auth:logout.title')} lead={t('auth:logout.confirmLead')}>
        <p className="actions">
          <button type="button" className="button" onClick={() => setConfirmed(true)}>
            {t('auth:logout.confirm')}
          </button>
          <Link to="/@/library">{t('auth:logout.backToLibrary')}</Link>
        </p>
      </AuthShell>
    )
  }
  return <SigningOut />
}

function SigningOut() {
  const { t } = useTranslation(['auth', 'common'])
  const navigate = useNavigate()
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let cancelled = false
    signOut().then(
      () => {
        try {
          sessionStorage.clear()
        } catch {
          // Storage off: nothing to clear.
        }
        if (!cancelled) void navigate('/login', { replace: true })
      },
      () => !cancelled && setFailed(true),
    )
    return () => {
      cancelled = true
    }
  }, [navigate])
  return (
    <AuthShell title={t('auth:logout.title')}>
      {failed ? (
        <Notice kind="error">
          {t('common:errors.errorApiRequest')} <Link to="/@/logout" reloadDocument>{t('auth:logout.retry')}</Link>
        </Notice>
      ) : (
        <p aria-live="polite">{t('auth:logout.inProgress')}</p>
      )}
    </AuthShell>
  )
}
