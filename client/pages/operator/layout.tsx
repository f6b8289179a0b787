import { useTranslation } from 'react-i18next'
import { data, NavLink, Outlet, useRouteLoaderData, type LoaderFunctionArgs } from 'react-router'
import { notFoundMessage } from '../../../shared/constants.ts'
import type { UserRecord } from '../../../shared/types.ts'
import { apiResponse } from '../../lib/api.ts'
import { permissionsOf } from '../../../shared/operator.ts'
import type { SignedInData } from '../../lib/session/guards.ts'
import { OPERATOR_SECTIONS } from './sections.ts'

/**
 * The operator console: only for an account with a role. Anyone else gets the 404 page,
 * as for any path that is not there — the console does not say it exists. The API checks every
 * operator call again; this only keeps the pages away.
 */
export async function loader({ context, request }: LoaderFunctionArgs): Promise<null> {
  const response = await apiResponse(context, '/api/user', request.signal)
  const roles = response.status === 200 ? (response.body as UserRecord).roles : []
  if (roles.length === 0) throw data({ message: notFoundMessage(new URL(request.url).pathname) }, { status: 404, statusText: 'Not Found' })
  return null
}

/** The sections of the console the signed-in account may open. */
export function useOperatorSections() {
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const permissions = new Set(permissionsOf(user.roles))
  return OPERATOR_SECTIONS.filter((section) => permissions.has(section.permission))
}

/** /@/operator: the console's own navigation above its pages. */
export function Component() {
  const { t } = useTranslation('operator')
  const sections = useOperatorSections()
  return (
    <div className="operator">
      <nav className="operator-nav" aria-label={t('shell.nav')}>
        <NavLink to="/@/operator" end>
          {t('shell.title')}
        </NavLink>
        {sections.map((section) => (
          <NavLink key={section.id} to={`/@/operator/${section.id}`}>
            {t(`shell.sections.${section.id}`)}
          </NavLink>
        ))}
      </nav>
      <Outlet />
    </div>
  )
}
