import { measure, type Figures } from '../lib/measure.js';
import { bookTwoRequests } from './bookTwo.js';
import type { BenchContext } from './context.js';

// The lean reference (bench/reference/server.ts; docs/performance.md, "The lean reference"),
// driven like book2 and /health: the floor the server's figures are divided by.

let runs = 0;

/** Two seats per request, on events of the reference's own keys, new for each call of this scenario. */
export async function referenceBook2(ctx: BenchContext): Promise<Figures> {
  const run = `${Date.now().toString(36)}-${++runs}`;
  const events = Array.from({ length: ctx.scale.bookEvents }, (_, i) => ({ id: i, key: `ref-${run}-${i}` }));
  return measure(ctx.settings, { url: ctx.referenceUrl!, requests: bookTwoRequests(ctx.charts.seats100k.labels, events, ctx.workspaceHeaders) });
}

export const referenceHealth = (ctx: BenchContext): Promise<Figures> => measure(ctx.settings, { url: `${ctx.referenceUrl!}/health` });

/** The server's scenarios that are divided by referenceBook2, and /health by referenceHealth. */
export const AGAINST_REFERENCE: Record<string, string> = {
  book2: 'referenceBook2',
  holdThenBook: 'referenceBook2',
  releaseChurn: 'referenceBook2',
  seasonEventBook: 'referenceBook2',
  health: 'referenceHealth',
};

const ratio = (ours: number | undefined, reference: number | undefined) =>
  ours !== undefined && reference ? Math.round((ours / reference) * 100) / 100 : undefined;

/**
 * Each scenario of AGAINST_REFERENCE as a multiple of its reference in the same run: rps
 * (below 1 is slower), p99, and server and Redis CPU µs per request (above 1 costs more).
 * Needs the CPU per request already worked out (addRatios).
 */
export function addReferenceRatios(scenarios: Record<string, Figures>): void {
  for (const [name, referenceName] of Object.entries(AGAINST_REFERENCE)) {
    const ours = scenarios[name];
    const reference = scenarios[referenceName];
    if (!ours || !reference) continue;
    const ratios = {
      rpsToReference: ratio(ours.rps, reference.rps),
      p99ToReference: ratio(ours.p99Ms, reference.p99Ms),
      serverUsToReference: ratio(ours.serverUsPerRequest, reference.serverUsPerRequest),
      redisUsToReference: ratio(ours.redisUsPerRequest, reference.redisUsPerRequest),
    };
    for (const [figure, value] of Object.entries(ratios)) if (value !== undefined) ours[figure] = value;
  }
}
