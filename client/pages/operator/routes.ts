import type { RouteObject } from 'react-router'
import type { Namespace } from '../../../shared/locales.ts'
import { page } from '../../lib/i18n/namespaces.ts'

// The console's pages under /@/operator, all in one chunk (pages.tsx); which of them
// an account sees in the console's navigation is sections.ts's.

/** The console's one chunk (pages.tsx). */
export const operatorPages = () => import('./pages.tsx')

type PageName = Exclude<keyof Awaited<ReturnType<typeof operatorPages>>, 'layout'>

/** A page of the console: its route, its English unindexed title. */
function operatorPage(path: string | null, name: PageName, title: string, ns: Namespace[] = ['operator']): RouteObject {
  const fields = page(ns, 'client/pages/operator/pages.tsx', () => operatorPages().then((pages) => pages[name]), { title, noindex: true })
  return path === null ? { index: true, ...fields } : { path, ...fields }
}

const catalogue: Namespace[] = ['operator', 'catalogue']

export const OPERATOR_PAGES: RouteObject[] = [
  operatorPage(null, 'overview', 'Operator console'),
  operatorPage('accounts', 'accounts', 'Accounts'),
  operatorPage('accounts/:id', 'account', 'Account'),
  operatorPage('maintenance', 'maintenance', 'Maintenance'),
  operatorPage('audit', 'audit', 'Audit log'),
  operatorPage('programs', 'programs', 'Programs', catalogue),
  operatorPage('programs/new', 'programEditor', 'New program', catalogue),
  operatorPage('programs/:id', 'programEditor', 'Edit program', catalogue),
  operatorPage('feeds', 'feeds', 'Feeds'),
]
