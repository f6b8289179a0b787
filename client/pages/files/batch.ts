import type { TFunction } from 'i18next'
import type { WriteFailure } from '../../lib/route-writes.ts'
import { showToast } from '../../lib/notices/toasts.ts'
import type { BatchOutcome } from './actions.ts'

// How the drive says what a write of several items did (actions.ts sends each on its own): the
// toast counts what was done and names each item that was not, with the server's reason. Never
// "3 moved to trash" when one was refused.

/** Reasons the drive's API gives, in the visitor's language; any other code keeps the API's message. */
const REASONS: Record<string, 'notFound' | 'nameTaken' | 'intoItself'> = {
  FILES_NOT_FOUND: 'notFound',
  FILES_NAME_TAKEN: 'nameTaken',
  FILES_MOVE_INTO_ITSELF: 'intoItself',
}

/** At most this many refused items are named; the rest are counted. */
const NAMED_MAX = 5

/** Why the server refused one write, in words a person reads. */
export function refusalReason(t: TFunction<['files', 'common']>, failure: WriteFailure, name: string): string {
  if (failure.status === 0) return t('common:errors.errorApiRequest')
  const known = failure.code ? REASONS[failure.code] : undefined
  if (known) return t(`files:results.reasons.${known}`, { name })
  return failure.message ?? t('common:errors.occuredSomeError')
}

export interface BatchWords {
  /** What was done, e.g. "2 items moved to the trash." (given `count`, and `name` of the first). */
  done: (count: number, first: string) => string
  /** What was not, e.g. "1 item could not be moved to the trash:" (given `count`). */
  refused: (count: number) => string
}

/** The toast for an outcome: success when all went through, a warning when some did, an error when none did. */
export function reportBatch(t: TFunction<['files', 'common']>, outcome: BatchOutcome, words: BatchWords): void {
  const { done, refused } = outcome
  if (refused.length === 0) {
    if (done.length > 0) showToast({ kind: 'success', title: words.done(done.length, done[0]!.name) })
    return
  }
  const title = [done.length > 0 ? words.done(done.length, done[0]!.name) : null, words.refused(refused.length)].filter((part) => part !== null).join(' ')
  const named = refused.slice(0, NAMED_MAX).map(({ item, failure }) => `${item.name} — ${refusalReason(t, failure, item.name)}`)
  if (refused.length > NAMED_MAX) named.push(t('files:results.more', { count: refused.length - NAMED_MAX }))
  // A refusal stays until it is read and closed: a person must not miss what did not happen.
  showToast({ kind: done.length > 0 ? 'warning' : 'error', title, description: named.join('\n'), timeoutMs: null })
}
