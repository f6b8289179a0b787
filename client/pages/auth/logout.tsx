import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { AuthShell, Notice } from '../../components/auth-shell.tsx'
import { signOut } from '../../lib/auth.ts'

/**
 * /@/logout runs the sign-out in the browser (a POST with the custom header, so no other site
 * can sign a user out by linking here) and lands on /login.
 */
export function Component() {
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
