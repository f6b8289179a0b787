import { DISPLAY_NAME_MAX_LENGTH } from './constants.ts'

// The profile's rules (issue 11), shared by the form and the API.

// Control characters, and the invisible format characters that can reorder or hide text (bidi
// overrides, zero-width joiners): a display name shows in other people's view of the page.
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u

/** The display name as stored (trimmed; empty → null), or what is wrong with it. */
export function checkDisplayName(value: string): { name: string | null } | { problem: string } {
  const name = value.trim()
  if (name === '') return { name: null }
  if (HIDDEN.test(name)) return { problem: 'The name cannot contain control or invisible characters.' }
  if ([...name].length > DISPLAY_NAME_MAX_LENGTH) return { problem: `The name can be at most ${DISPLAY_NAME_MAX_LENGTH} characters long.` }
  return { name }
}
