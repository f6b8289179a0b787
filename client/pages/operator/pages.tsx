import { Component as AccountPage, loader as accountLoader } from './account.tsx'
import { Component as AccountsPage, loader as accountsLoader } from './accounts.tsx'
import { Component as AuditPage, loader as auditLoader } from './audit.tsx'
import { Component as FeedsPage, loader as feedsLoader } from './feeds.tsx'
import { Component as LayoutPage, loader as layoutLoader } from './layout.tsx'
import { Component as MaintenancePage, loader as maintenanceLoader } from './maintenance.tsx'
import { Component as OverviewPage } from './overview.tsx'
import { Component as ProgramEditorPage, loader as programEditorLoader } from './program-editor.tsx'
import { Component as ProgramsPage, loader as programsLoader } from './programs.tsx'

// The operator console's pages as one chunk: the route table names one dynamic import
// for all of them, so the console adds next to nothing to every visitor's first JavaScript; an
// operator loads the console's code once, on the first console page.

export const layout = { Component: LayoutPage, loader: layoutLoader }
export const overview = { Component: OverviewPage }
export const accounts = { Component: AccountsPage, loader: accountsLoader }
export const account = { Component: AccountPage, loader: accountLoader }
export const maintenance = { Component: MaintenancePage, loader: maintenanceLoader }
export const audit = { Component: AuditPage, loader: auditLoader }
export const programs = { Component: ProgramsPage, loader: programsLoader }
export const programEditor = { Component: ProgramEditorPage, loader: programEditorLoader }
export const feeds = { Component: FeedsPage, loader: feedsLoader }
