import { useTranslation } from 'react-i18next'
import { Link, useRouteLoaderData } from 'react-router'
import { isOperatorRole } from '../../../shared/operator.ts'
import type { SignedInData } from '../../lib/session/guards.ts'
import { useOperatorSections } from './layout.tsx'

/** /@/operator: who the account is in the console, and the sections its roles open. */
export function Component() {
  const { t } = useTranslation('operator')
  const { user } = useRouteLoaderData('signed-in') as SignedInData
  const sections = useOperatorSections()
  return (
    <main id="content" className="operator-page">
      <h1>{t('shell.title')}</h1>
      <p>{t('shell.lead')}</p>
      <p>{`${t('shell.yourRoles')}: ${user.roles
        .filter(isOperatorRole)
        .map((role) => t(`shell.roles.${role}`))
        .join(', ')}`}</p>
      <ul className="operator-sections">
        {sections.map((section) => (
          <li key={section.id}>
            <Link to={`/@/operator/${section.id}`}>{t(`shell.sections.${section.id}`)}</Link>
            <p>{t(`shell.descriptions.${section.id}`)}</p>
          </li>
        ))}
      </ul>
    </main>
  )
}
