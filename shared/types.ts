// Shapes that cross the wire between the product API, the BFF and the browser.


// The error body and the version answer, the user's record, a library change and the deletion
// summary are derived from their schemas (web/answers.ts, account/user-record.ts).
export type { ErrorBody, VersionResponse } from './web/answers.ts'
export type { DeletionSummary, LibraryChange, UserRecord } from './account/user-record.ts'

