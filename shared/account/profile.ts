import { DELETION_COMMENT_MAX_LENGTH, DISPLAY_NAME_MAX_LENGTH } from '../constants.ts'

// The profile's rules, shared by the form and the API.

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

/**
 * Why an account is deleted (spec §9 "Account-deletion reasons": negative service experience,
 * found alternative, too expensive, cannot find a program, other), as the API spells them.
 */
export const DELETION_REASONS = ['negative-service-experience', 'found-alternative', 'too-expensive', 'cannot-find-program', 'other'] as const
export type DeletionReason = (typeof DELETION_REASONS)[number]

// A comment may have line breaks and tabs; nothing else invisible.
const hiddenInComment = (text: string) => HIDDEN.test(text.replace(/[\n\t]/g, ''))

/** The reason and comment as stored (the comment trimmed; empty → null), or what is wrong. */
export function checkDeletionReason(reason: unknown, comment: unknown): { reason: DeletionReason; comment: string | null } | { problem: string } {
  if (typeof reason !== 'string' || !(DELETION_REASONS as readonly string[]).includes(reason)) {
    return { problem: `reason must be one of: ${DELETION_REASONS.join(', ')}` }
  }
  if (comment !== undefined && comment !== null && typeof comment !== 'string') return { problem: 'comment must be text.' }
  const text = typeof comment === 'string' ? comment.trim().replace(/\r\n?/g, '\n') : ''
  if (reason === 'other' && text === '') return { problem: 'Tell us the reason in a comment when you choose "other".' }
  if (hiddenInComment(text)) return { problem: 'The comment cannot contain control or invisible characters.' }
  if ([...text].length > DELETION_COMMENT_MAX_LENGTH) return { problem: `The comment can be at most ${DELETION_COMMENT_MAX_LENGTH} characters long.` }
  return { reason: reason as DeletionReason, comment: text === '' ? null : text }
}
