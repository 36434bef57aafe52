import { OWN_REFERENCES } from '../lib/alternating.js';
import { measure, type Figures } from '../lib/measure.js';
import { bookTwoRequests } from './bookTwo.js';
import type { BenchContext } from './context.js';
import { churnRequests } from './releaseChurn.js';
import { eventsPerSeason, seasonEventRequests } from './seasons.js';

// The lean reference (bench/reference/server.ts; docs/performance.md, "The lean reference"),
// driven like book2 and /health: the floor the server's figures are divided by.

let runs = 0;

/** Two seats per request, on events of the reference's own keys, new for each call of this scenario. */
export async function referenceBook2(ctx: BenchContext): Promise<Figures> {
  const run = `${Date.now().toString(36)}-${++runs}`;
  const events = Array.from({ length: ctx.scale.bookEvents }, (_, i) => ({ id: i, key: `ref-${run}-${i}` }));
  return measure(ctx.settings, { url: ctx.referenceUrl!, requests: bookTwoRequests(ctx.charts.seats100k.labels, events, ctx.workspaceHeaders) });
}

/**
 * releaseChurn's requests (a pair booked, then released, on 2,000 seats of one event) on an
 * event of the reference's own keys, new for each call: the floor of a release churn, whose
 * ratio to referenceBook2 is what the lean design's release costs against its booking. Every
 * answer is to be 2xx (non2xx counts a pair the reference found not free or not booked).
 */
export function referenceReleaseChurn(ctx: BenchContext): Promise<Figures> {
  const churn = churnRequests(ctx.charts.seats10k.labels, `ref-churn-${Date.now().toString(36)}-${++runs}`, ctx.workspaceHeaders);
  return measure(ctx.settings, { url: ctx.referenceUrl!, requests: churn.requests });
}

/**
 * seasonEventBook's requests (pairs of the 10,000-seat chart's second half, event after event,
 * in seasons of as many events as the bench's) on seasons and events of the reference's own
 * keys, new for each call: the floor of a booking in an event of a season, whose ratio to
 * referenceBook2 is what the season's rule adds at the least. Every answer is to be 2xx.
 */
export function referenceSeasonEventBook(ctx: BenchContext): Promise<Figures> {
  const run = `${Date.now().toString(36)}-${++runs}`;
  const perSeason = eventsPerSeason(ctx);
  const walk = seasonEventRequests(ctx, 0, (event) => `/seasons/ref-season-${run}-${Math.floor(event / perSeason)}/events/${event}/actions/book`);
  return measure(ctx.settings, { url: ctx.referenceUrl!, requests: walk.requests });
}

export const referenceHealth = (ctx: BenchContext): Promise<Figures> => measure(ctx.settings, { url: `${ctx.referenceUrl!}/health` });

/**
 * The server's scenarios that are divided by referenceBook2, and /health by referenceHealth;
 * the reference's own release churn and season event booking by its booking too (what each
 * costs against a booking at the floor).
 */
export const AGAINST_REFERENCE: Record<string, string> = {
  book2: 'referenceBook2',
  holdThenBook: 'referenceBook2',
  releaseChurn: 'referenceBook2',
  seasonEventBook: 'referenceBook2',
  health: 'referenceHealth',
  referenceReleaseChurn: 'referenceBook2',
  referenceSeasonEventBook: 'referenceBook2',
};

const ratio = (ours: number | undefined, reference: number | undefined) =>
  ours !== undefined && reference ? Math.round((ours / reference) * 100) / 100 : undefined;

/**
 * Each scenario of AGAINST_REFERENCE as a multiple of its reference in the same run: rps
 * (below 1 is slower), p99, and server and Redis CPU µs per request (above 1 costs more).
 * Needs the CPU per request already worked out (addRatios).
 */
export function addReferenceRatios(scenarios: Record<string, Figures>): void {
  addRatiosTo(scenarios, AGAINST_REFERENCE, 'ToReference');
  // releaseChurn's against the reference's release churn, seasonEventBook's against its season
  // booking (OWN_REFERENCES): `rpsToOwnReference`, ...
  addRatiosTo(scenarios, OWN_REFERENCES, 'ToOwnReference');
}

function addRatiosTo(scenarios: Record<string, Figures>, pairs: Record<string, string>, suffix: string): void {
  for (const [name, referenceName] of Object.entries(pairs)) {
    const ours = scenarios[name];
    const reference = scenarios[referenceName];
    if (!ours || !reference) continue;
    const ratios = {
      [`rps${suffix}`]: ratio(ours.rps, reference.rps),
      [`p99${suffix}`]: ratio(ours.p99Ms, reference.p99Ms),
      [`serverUs${suffix}`]: ratio(ours.serverUsPerRequest, reference.serverUsPerRequest),
      [`redisUs${suffix}`]: ratio(ours.redisUsPerRequest, reference.redisUsPerRequest),
    };
    for (const [figure, value] of Object.entries(ratios)) if (value !== undefined) ours[figure] = value;
  }
}
