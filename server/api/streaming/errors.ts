import { createError } from '../../http/errors.ts'

// Streaming's error codes (decision 017), a family of their own like the drive's: the
// API answers them and the BFF passes them through (server/http/errors.ts), the 503s included,
// since "streaming is off" and "every cluster is full" are answers a person should read as they are.
export const StreamingNotConfigured = createError('STREAMING_NOT_CONFIGURED', 'Streaming is not available: no streaming clusters are set up on this server.', 503)
export const StreamingClustersFull = createError('STREAMING_CLUSTERS_FULL', 'Every streaming cluster is full right now. Please try again in a few minutes.', 503)
export const StreamingProgramNotFound = createError<[string]>('STREAMING_PROGRAM_NOT_FOUND', 'There is no program "%s" in the catalogue.', 404)
export const StreamingNotInLibrary = createError('STREAMING_NOT_IN_LIBRARY', 'Add this program to your library before you stream it.', 400)
export const StreamingNotOwned = createError<[string]>(
  'STREAMING_NOT_OWNED',
  '"%s" is a paid program: buy it (or renew its subscription) before you stream it.',
  403,
)
export const StreamingNotStreamable = createError('STREAMING_NOT_STREAMABLE', 'This program runs in a web browser, so there is nothing to stream: open it from its website.', 400)
export const StreamingUnknownLayout = createError<[string]>('STREAMING_UNKNOWN_LAYOUT', 'There is no keyboard layout "%s". Choose one from the list (GET /api/streaming/keyboard-layouts).', 400)
export const StreamingUnknownRegion = createError<[string]>('STREAMING_UNKNOWN_REGION', 'There is no streaming region "%s". Choose one of the regions offered.', 400)
export const StreamingAlreadyAssigned = createError<[string]>(
  'STREAMING_ALREADY_ASSIGNED',
  'You are already streaming "%s". Stop that stream before you start another program.',
  409,
)
