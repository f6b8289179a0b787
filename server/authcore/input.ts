// Reading CDI queries (and the fields of a nested body object) the way the real core does: a missing or mistyped
// field is a programmer error, answered with HTTP 400 and a plain-text message naming it.

export class BadRequest extends Error {}

type Kind = 'string' | 'boolean' | 'number' | 'object' | 'array'

function kindOf(value: unknown): Kind | 'null' | 'other' {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const type = typeof value
  return type === 'string' || type === 'boolean' || type === 'number' || type === 'object' ? type : 'other'
}

function read(source: Record<string, unknown>, name: string, kind: Kind, required: boolean): unknown {
  const value = source[name]
  if (value === undefined || (value === null && !required)) {
    if (required) throw new BadRequest(`Field name '${name}' is invalid in JSON input`)
    return undefined
  }
  if (kindOf(value) !== kind) throw new BadRequest(`Field name '${name}' is invalid in JSON input`)
  return value
}

export const body = {
  string: (source: Record<string, unknown>, name: string) => read(source, name, 'string', true) as string,
  optString: (source: Record<string, unknown>, name: string) => read(source, name, 'string', false) as string | undefined,
  boolean: (source: Record<string, unknown>, name: string) => read(source, name, 'boolean', true) as boolean,
  optBoolean: (source: Record<string, unknown>, name: string) => read(source, name, 'boolean', false) as boolean | undefined,
  number: (source: Record<string, unknown>, name: string) => read(source, name, 'number', true) as number,
  optNumber: (source: Record<string, unknown>, name: string) => read(source, name, 'number', false) as number | undefined,
  object: (source: Record<string, unknown>, name: string) => read(source, name, 'object', true) as Record<string, unknown>,
  optObject: (source: Record<string, unknown>, name: string) => read(source, name, 'object', false) as Record<string, unknown> | undefined,
  stringArray(source: Record<string, unknown>, name: string): string[] {
    const value = read(source, name, 'array', true) as unknown[]
    if (!value.every((item) => typeof item === 'string')) throw new BadRequest(`Field name '${name}' is invalid in JSON input`)
    return value as string[]
  },
  /** An array of strings that may be absent or null (undefined then). */
  optStringArray(source: Record<string, unknown>, name: string): string[] | undefined {
    if (source[name] === undefined || source[name] === null) return undefined
    return body.stringArray(source, name)
  },
}

/**
 * A name the real core trims before use (Java's String.trim: every character up to U+0020 at
 * either end) and refuses when nothing is left: roles, permissions, user ids of the roles recipe.
 */
export function trimmedName(value: string, name: string): string {
  let start = 0
  let end = value.length
  while (start < end && value.charCodeAt(start) <= 0x20) start++
  while (end > start && value.charCodeAt(end - 1) <= 0x20) end--
  const trimmed = value.slice(start, end)
  if (trimmed === '') throw new BadRequest(`Field name '${name}' cannot be an empty String`)
  return trimmed
}

export const query = {
  string(source: unknown, name: string): string {
    const value = (source as Record<string, unknown>)[name]
    if (typeof value !== 'string') throw new BadRequest(`Field name '${name}' is missing in GET request`)
    return value
  },
  optString(source: unknown, name: string): string | undefined {
    const value = (source as Record<string, unknown>)[name]
    return typeof value === 'string' ? value : undefined
  },
  /** A whole number as Java's Integer.parseInt reads it (the real core's parser); absent → undefined. */
  optInt(source: unknown, name: string): number | undefined {
    const value = (source as Record<string, unknown>)[name]
    if (value === undefined) return undefined
    const parsed = typeof value === 'string' && /^[+-]?\d{1,10}$/.test(value) ? Number(value) : Number.NaN
    if (!(parsed >= -2147483648 && parsed <= 2147483647)) throw new BadRequest(`Field name '${name}' must be an int in the GET request`)
    return parsed
  },
  /** "true"/"false"; absent → the fallback. */
  boolean(source: unknown, name: string, fallback: boolean): boolean {
    const value = (source as Record<string, unknown>)[name]
    if (value === undefined) return fallback
    if (value === 'true') return true
    if (value === 'false') return false
    throw new BadRequest(`Field name '${name}' must be true or false`)
  },
  /** A whole number ≥ 0; absent → undefined. */
  optInteger(source: unknown, name: string): number | undefined {
    const value = (source as Record<string, unknown>)[name]
    if (value === undefined) return undefined
    if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw new BadRequest(`Field name '${name}' is invalid in GET request`)
    return Number(value)
  },
}
