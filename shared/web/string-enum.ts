import { Type, type TUnsafe } from 'typebox'

/** A plain JSON-schema enum, so a rejected value is answered with the list of allowed ones; its type is the union of `values`. */
export function StringEnum<T extends string>(values: readonly T[], options: { default?: T; description?: string } = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })
}
