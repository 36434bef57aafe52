import type { Figures } from '../lib/measure.js';
import { CHECKS } from '../lib/report.js';
import type { BenchContext } from './context.js';

// Each scenario compared with a reference or with book2, and the references and the ceiling
// themselves (and chartLoad, whose 304s are judged against /health), first runs for a few seconds untimed (docs/benchmarks.md, "Order, settling and warm-up"). A
// process's first thousands of requests on a path run in V8's interpreter and baseline code
// while its helper threads compile the hot functions; the server has far more code on each
// path than the reference, so a 4-s quick scenario measured from cold paid for the compiling
// (a quick `--only book2` measured 19–23 µs per booking on the server's other threads, against
// 7–9 warm). Warming each scenario on its own path, rather than all of them on book2's, keeps
// the ratios to book2 (holdThenBook's token routes, releaseChurn's releases, seasonEventBook's
// seasons) from charging those scenarios for compiling that book2 was spared.

/** The scenarios that run warm. */
export const WARMED = new Set(['ceiling', 'referenceBook2', 'referenceHealth', 'referenceReleaseChurn', 'referenceSeasonEventBook', 'book2', 'health', 'releaseChurn', 'holdThenBook', 'seasonEventBook', 'chartLoad']);

/** What must be 0 after a warm-up run, as after the timed one: the scenario's checks, and no connection errors. */
const MUST_BE_ZERO = [...CHECKS, 'errors'];

/**
 * Runs `scenario` for `seconds`, untimed, on the same context: a scenario that goes on from
 * where its last run stopped (seasonEventBook's seats) goes on from there in the timed run.
 */
export async function warmUp(name: string, scenario: (ctx: BenchContext) => Promise<Figures>, ctx: BenchContext, seconds: number): Promise<void> {
  const timed = ctx.settings;
  ctx.settings = { ...timed, durationSeconds: seconds };
  let figures: Figures;
  try {
    figures = await scenario(ctx);
  } finally {
    ctx.settings = timed;
  }
  const wrong = MUST_BE_ZERO.filter((figure) => (figures[figure] ?? 0) > 0);
  if (wrong.length > 0) throw new Error(`${name}'s warm-up: ${wrong.map((figure) => `${figure} ${figures[figure]}`).join(', ')}`);
}
