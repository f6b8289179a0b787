import type { OperatorPermission } from '../../../shared/operator.ts'

// The console's sections: where each lives under /@/operator and the permission that
// opens it. The console's navigation and its overview list the sections the account's roles
// open; the routes of their pages are in routes.ts.

export const OPERATOR_SECTIONS = [
  { id: 'programs', permission: 'catalogue:read' },
  { id: 'feeds', permission: 'catalogue:read' },
  { id: 'accounts', permission: 'accounts:read' },
  { id: 'maintenance', permission: 'maintenance:write' },
  { id: 'audit', permission: 'audit:read' },
] as const satisfies ReadonlyArray<{ id: string; permission: OperatorPermission }>

export type OperatorSectionId = (typeof OPERATOR_SECTIONS)[number]['id']
