import { Type, type Static } from 'typebox'

// Answers every service and page reads, as schemas (the API's responses and the OpenAPI document
// use them) with their types derived. The pages import only the types, never these values.

/** The body of every error answer of the BFF and the API (DESIGN.md §4.11; server/http/errors.ts errorBody). */
export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    code: Type.String({ description: 'Stable, SCREAMING_SNAKE (docs/API.md lists them).' }),
    error: Type.String({ description: 'The status text, e.g. "Not Found".' }),
    message: Type.String(),
    requestId: Type.String({ description: 'Also in the x-request-id header; quote it when reporting a problem.' }),
  },
  { description: 'An error: the HTTP status again, a stable code from the API reference, and a message a person can read.' },
)
export type ErrorBody = Static<typeof ErrorBody>

/** GET /api/version (spec §3 "Version response"). */
export const VersionResponse = Type.Object({ version: Type.String(), maintenanceTime: Type.Optional(Type.String()) })
export type VersionResponse = Static<typeof VersionResponse>
