import type { DevHistory } from './devHistory.js';
import { drainCaughtUp } from './drain.js';
import type { FinalState } from './finalState.js';
import { waitUntil } from './waitUntil.js';

// Before every timed scenario (bench/run.ts, and each scenario of an alternating round) the
// bench waits for what the scenarios before it left running, so a scenario pays for its own
// work, not for its predecessor's (docs/benchmarks.md, "Order, settling and warm-up"):
// - the history drain, until no event's stream waits to be stored: a booking scenario's
//   drain goes on for a while after its last answer, on the server's main thread;
// - Redis's append-only file: Redis would rewrite it in a forked child once it has grown to
//   twice its size after the last rewrite, whichever scenario is running then. Over a full run
//   Redis holds half a gigabyte, and a rewrite takes seconds of a core and slows every write of
//   the parent (copy on write). So the bench turns Redis's own rewrites off for the run
//   (FinalState.rewriteAppendOnlyFilesOnlyWhenAsked) and rewrites here, between scenarios, a
//   file grown past 1.5 times its base, waiting for the rewrite to end;
// - the development MongoDB's stored history, emptied once the drain caught up (unless
//   `--keep-history`): each of that stand-in's inserts costs in proportion to the square of what
//   the collection holds (bench/lib/devHistory.ts).
// A scenario still reports the Redis forks made while it ran (`redisForksDuring`): one that
// is not 0 was measured with a fork beside it.

const POLL_MS = 100;
/** At most this long for each of the two, so a stuck drain or rewrite slows the run rather than stopping it. */
const MAX_WAIT_MS = 60_000;
/** A file grown past this many times its base size is rewritten before the scenario (Redis's own trigger is 2). */
const REWRITE_AT = 1.5;

export interface Settled {
  /** How long the bench waited. */
  settleMs: number;
  /** Whether it started an AOF rewrite (and waited for it). */
  aofRewritten: boolean;
  /** The history batches it deleted from the development MongoDB (none when given no history to clear). */
  historyBatchesCleared: number;
}

/**
 * `pendingStreams`: the events' streams waiting for the drain (the server's gauge,
 * bench/lib/drain.ts); `history`: the development MongoDB's, to empty once they are stored.
 */
export async function settle(pendingStreams: () => Promise<number>, state: FinalState, history?: DevHistory): Promise<Settled> {
  const started = Date.now();
  await drainCaughtUp(pendingStreams, MAX_WAIT_MS, POLL_MS);
  const historyBatchesCleared = history ? await history.clear() : 0;
  const aofRewritten = await state.rewriteAppendOnlyFiles(REWRITE_AT);
  await waitUntil(async () => (await state.appendOnlyFiles()).every((file) => !file.rewriting), MAX_WAIT_MS, POLL_MS);
  return { settleMs: Date.now() - started, aofRewritten, historyBatchesCleared };
}
