import type { SyncSummary } from './sync.ts'

// What `npm run catalogue -- sync` prints of a pass: per feed, its state, the releases
// recorded, what was ignored, the proposals made and the problem.

const STATUS: Record<SyncSummary['feeds'][number]['status'], string> = {
  updated: 'read',
  'not-modified': 'not changed since the last read',
  skipped: 'skipped (not due, or another instance is applying it)',
  failed: 'FAILED, nothing changed',
}

export function describeSync(summary: SyncSummary): string[] {
  if (summary.feeds.length === 0) return ['No catalogue feeds are configured (CATALOGUE_FEEDS).']
  const lines: string[] = []
  for (const feed of summary.feeds) {
    lines.push(`${feed.feed}: ${STATUS[feed.status]}`)
    if (feed.problem) lines.push(`\tproblem: ${feed.problem}`)
    if (feed.status !== 'updated') continue
    lines.push(`\treleases recorded: ${feed.releases.length}${feed.releases.length ? ` (${feed.releases.map((r) => `${r.programId} ${r.version}`).join(', ')})` : ''}`)
    lines.push(`\tignored: ${feed.ignored.length}${feed.ignored.length ? ` (${feed.ignored.map((r) => `${r.programId} ${r.version}: ${r.reason}`).join(', ')})` : ''}`)
    lines.push(`\tproposed changes: ${feed.proposals.length}${feed.proposals.length ? ` (${feed.proposals.map((p) => `${p.programId} ${p.field}`).join(', ')})` : ''}`)
  }
  return lines
}

/** The command's exit code: 1 when a feed failed, so a cron job notices. */
export function syncExitCode(summary: SyncSummary): number {
  return summary.feeds.some((feed) => feed.status === 'failed') ? 1 : 0
}
