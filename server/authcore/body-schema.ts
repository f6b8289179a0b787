import type { FastifySchemaCompiler } from 'fastify'
import { Type, type TObject, type TSchema } from 'typebox'
import { Value } from 'typebox/value'
import { BadRequest } from './input.ts'

// The auth core's request bodies are validated with their route's TypeBox schema (the handler's
// types come from the same schema), and refused the way the real core refuses them (AUTH-CORE.md
// §1): a body that is not a JSON object is "Invalid Json Input"; then field by field, in the
// schema's order, a required field missing or any field of the wrong type is "Field name '<name>'
// is invalid in JSON input" — 400, plain text (app.ts's error handler). An optional field sent as
// null counts as absent and is removed. Fields a schema does not name are kept: supertokens-node
// sends more than a route reads.

/** A JSON object of any fields (a session's or a token's data, metadata, a core config). */
export const JsonObject = Type.Record(Type.String(), Type.Unknown())

function fieldError(name: string): BadRequest {
  return new BadRequest(`Field name '${name}' is invalid in JSON input`)
}

/** Checks a body against `schema` as the core does; the body itself, with null optional fields removed, or the refusal. */
export function checkCdiBody(schema: TObject, data: unknown): { value: Record<string, unknown> } | { error: BadRequest } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { error: new BadRequest('Invalid Json Input') }
  const body = data as Record<string, unknown>
  const required = new Set<string>(schema.required ?? [])
  for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const value = body[name]
    if (value === undefined || (value === null && !required.has(name))) {
      if (required.has(name)) return { error: fieldError(name) }
      delete body[name]
      continue
    }
    if (!Value.Check(property, value)) return { error: fieldError(name) }
  }
  return { value: body }
}

/** The auth core's validator compiler: bodies only, each with an object schema (a query or params schema is refused when the route is added). */
export const cdiValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, method, url, httpPart }) => {
  if (httpPart !== 'body' || (schema as { type?: unknown }).type !== 'object') throw new Error(`${method} ${url}: the auth core validates JSON object bodies only (a ${httpPart} schema was given)`)
  return (data: unknown) => checkCdiBody(schema as TObject, data)
}
