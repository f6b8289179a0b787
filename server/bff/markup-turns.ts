// The rendered pages' p99 at 100 connections (docs/BENCHMARKS.md). libuv, since 1.45 (Node 20), accepts one
// new connection per turn of the event loop. Under load a turn made the markup of every page whose
// data had arrived meanwhile — 70–100 ms of work — so a hundred connections opened at once waited
// up to 5 s to be accepted (strace: one accept4 every ~80 ms), and their first requests were the
// whole p99 tail; the server itself never took more than 0.7 s over any page. Here pages make their
// markup a few per turn: past that, a page waits for the next turn's check phase (setImmediate),
// so the loop polls — and accepts — every few milliseconds however many pages are ready.

/** How many pages may make their markup in one turn of the event loop (~2 ms each). */
export const MARKUP_PER_TURN = 2

/**
 * Pages waiting for a turn past which the BFF counts as overloaded (load-shedding.ts refuses new
 * requests once OVERLOAD_PRESSURE_IN_FLIGHT are in hand): the CPU is that many pages behind.
 */
export const MARKUP_BACKLOG = 8

/**
 * Turns of the event loop, each with room for `perTurn` pages' markup. A turn runs from one check
 * phase to the next (timers, the poll for I/O, then the check phase), so whatever else is ready,
 * at most `perTurn` pages are made between two polls.
 */
export class MarkupTurns {
  #used = 0
  #waiting: Array<() => void> = []
  #scheduled = false

  constructor(
    private readonly perTurn: number = MARKUP_PER_TURN,
    /** Runs `next` in the next check phase (tests turn it by hand). */
    private readonly nextCheck: (next: () => void) => void = (next) => void setImmediate(next),
  ) {}

  /** When this page may make its markup: undefined for at once, else a promise for its turn (first come, first made). */
  take(): Promise<void> | undefined {
    this.#schedule()
    if (this.#used < this.perTurn && this.#waiting.length === 0) {
      this.#used++
      return undefined
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve))
  }

  /** Pages waiting for a turn now. */
  get waiting(): number {
    return this.#waiting.length
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    this.nextCheck(() => this.#turn())
  }

  #turn(): void {
    this.#scheduled = false
    this.#used = 0
    while (this.#used < this.perTurn && this.#waiting.length > 0) {
      this.#used++
      this.#waiting.shift()!()
    }
    // The pages let through now count against this turn: the next one resets the count.
    if (this.#used > 0) this.#schedule()
  }
}
