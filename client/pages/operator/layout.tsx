import { useTranslation } from 'react-i18next'
import { NavLink, Outlet, useRouteLoaderData } from 'react-router'
import { permissionsOf } from '../../../shared/operator.ts'
import type { SignedInData } from '../../lib/guards.ts'
import { builtSections } from './routes.ts'
import { OPERATOR_SECTIONS } from './sections.ts'

/** The sections of the console the signed-in account may open. */
export function useOperatorSections() {
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const permissions = new Set(permissionsOf(user.roles))
  const built = builtSections()
  return OPERATOR_SECTIONS.filter((section) => built.has(section.id) && permissions.has(section.permission))
}

/** /@/operator (issue 28): the console's own navigation above its pages. */
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
