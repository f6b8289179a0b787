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
]

/** The sections that have a page. */
export function builtSections(): Set<OperatorSectionId> {
  return new Set(OPERATOR_PAGES.flatMap((entry) => (entry.section ? [entry.section] : [])))
}
