import type { RouteObject } from 'react-router'
import { page } from '../../lib/namespaces.ts'
import type { OperatorSectionId } from './sections.ts'

// The console's pages under /@/operator (issue 28), one entry each. `section` says which of
// sections.ts a page belongs to: the console shows a section once a page of it is here.

/** An English, unindexed title, like every account page. */
const head = (title: string) => ({ title, noindex: true })

interface OperatorPage {
  section: OperatorSectionId | null
  route: RouteObject
}

export const OPERATOR_PAGES: OperatorPage[] = [
  { section: null, route: { index: true, ...page(['operator'], 'client/pages/operator/overview.tsx', () => import('./overview.tsx'), head('Operator console')) } },
  { section: 'accounts', route: { path: 'accounts', ...page(['operator'], 'client/pages/operator/accounts.tsx', () => import('./accounts.tsx'), head('Accounts')) } },
  { section: 'accounts', route: { path: 'accounts/:id', ...page(['operator'], 'client/pages/operator/account.tsx', () => import('./account.tsx'), head('Account')) } },
  { section: 'maintenance', route: { path: 'maintenance', ...page(['operator'], 'client/pages/operator/maintenance.tsx', () => import('./maintenance.tsx'), head('Maintenance · Operator console')) } },
  { section: 'audit', route: { path: 'audit', ...page(['operator'], 'client/pages/operator/audit.tsx', () => import('./audit.tsx'), head('Audit log · Operator console')) } },
  { section: 'programs', route: { path: 'programs', ...page(['operator', 'catalogue'], 'client/pages/operator/programs.tsx', () => import('./programs.tsx'), head('Programs')) } },
  { section: 'programs', route: { path: 'programs/new', ...page(['operator', 'catalogue'], 'client/pages/operator/program-editor.tsx', () => import('./program-editor.tsx'), head('New program')) } },
  { section: 'programs', route: { path: 'programs/:id', ...page(['operator', 'catalogue'], 'client/pages/operator/program-editor.tsx', () => import('./program-editor.tsx'), head('Edit program')) } },
]

/** The sections that have a page. */
export function builtSections(): Set<OperatorSectionId> {
  return new Set(OPERATOR_PAGES.flatMap((entry) => (entry.section ? [entry.section] : [])))
}
