import { createError } from '../http/errors.ts'

// The product API's error catalogue. Codes are stable: clients and the API reference rely on them.
export const ApiNotFound = createError<[string, string]>('API_NOT_FOUND', 'No API endpoint matches %s %s.', 404)
export const ApiNotReady = createError('API_NOT_READY', 'The API cannot reach its database right now.', 503)
export const ApiUnauthorized = createError('API_UNAUTHORIZED', 'A valid operator token is required.', 401)
export const ApiInvalidMaintenanceTime = createError(
  'API_INVALID_MAINTENANCE_TIME',
  'maintenanceTime must be an ISO 8601 date and time, for example 2026-12-01T22:00:00Z.',
  400,
)
export const ApiCatalogueNotFound = createError<[string, string]>('API_CATALOGUE_NOT_FOUND', 'There is no %s "%s" in the catalogue.', 404)
