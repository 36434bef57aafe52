import type { BenchEvent } from '../lib/admin.js';
import { SeatLedger } from '../lib/ledger.js';
import { measure, percentile, type Figures } from '../lib/measure.js';
import { generatedDrawing } from '../drawings.js';
import type { BenchContext } from './context.js';

// bestAvailable4 (docs/best-available.md): buyers asking for "the best 4" on events of a
// 50,000-seat chart, at the run's connections (book2's, so the two compare), until 80 % of
// each is sold, the events one after the other over the same connections. Every request should
// succeed (there are always enough seats); the seats each answer names go into a ledger
// checked against the final state (none given twice, none lost). Besides the run's p99,
// the p99 of the answers given while their event was 0-10 %, 10-20 %, ... 70-80 % sold
// shows how the search slows as the best seats go.
//
// Three events, not one: the run's first answers wait while the generator and the server
// open the 100 connections, and on one event of 10,000 answers those hundred are the p99
// (docs/benchmarks.md, "Order, settling and warm-up"). book2's p99 is over some
// 150,000 answers, where its start does not show; over three events the connections' start
// is a third of a percent of the answers, and each event's own start (its first reading
// from Redis) stays in the figures.
//
// bestAvailable4Cold runs first, on an event of its own: the process's first best-available
// requests (a fifth as many as one event of bestAvailable4), whose code V8 has not compiled
// yet. book2 runs 15 seconds and bestAvailable4 about 6, so without it the one-off compilation
// would weigh on bestAvailable4's figures more than on book2's, with which they are compared
// (docs/benchmarks.md, "Order, settling and warm-up"); the cold figures stay in the report.

const SEATS_PER_REQUEST = 4;
const SOLD_FRACTION = 0.8;
/** bestAvailable4Cold's requests against one event of bestAvailable4's. */
const COLD_SHARE = 0.2;
/** 50 sections of 40 rows of 25: 50,000 seats (the smoke run: 2,000). */
const CHART = { full: { sections: 50, rowsPerSection: 40, seatsPerRow: 25 }, smoke: { sections: 4, rowsPerSection: 20, seatsPerRow: 25 } };

const charts = new WeakMap<BenchContext, Promise<{ key: string; seats: number }>>();

/** The chart, uploaded once per run before the timed scenarios (bench/run.ts), so its upload is not in the scenario's CPU figures. */
export function bestAvailableChartOf(ctx: BenchContext): Promise<{ key: string; seats: number }> {
  if (!charts.has(ctx)) {
    const options = ctx.scale.mode === 'smoke' ? CHART.smoke : CHART.full;
    charts.set(ctx, ctx.admin.uploadChart(generatedDrawing(options)).then((key) => ({ key, seats: options.sections * options.rowsPerSection * options.seatsPerRow })));
  }
  return charts.get(ctx)!;
}

/** bestAvailable4's events, sold one after the other. */
const EVENTS = 3;

/** The process's first best-available requests, on an event of their own: a fifth of one of bestAvailable4's events. */
export const bestAvailable4Cold = (ctx: BenchContext): Promise<Figures> => bestAvailableRun(ctx, 1, COLD_SHARE);

export const bestAvailable4 = (ctx: BenchContext): Promise<Figures> => bestAvailableRun(ctx, EVENTS, 1);

/** What autocannon keeps per connection: when its request went, and to which event. */
interface Sent {
  at: number;
  event: number;
}

/** Requests for 4 on `eventCount` new events of the chart, one after the other, until `share` of 80 % of each is sold. */
async function bestAvailableRun(ctx: BenchContext, eventCount: number, share: number): Promise<Figures> {
  const chart = await bestAvailableChartOf(ctx);
  const events = (await ctx.admin.createEvents(chart.key, eventCount)) as BenchEvent[];
  const ledger = new SeatLedger();
  const perEvent = Math.floor((chart.seats * SOLD_FRACTION * share) / SEATS_PER_REQUEST);
  const paths = events.map((event) => `/events/${event.key}/actions/book`);
  const seatsSold = events.map(() => 0);
  let requestsSent = 0;
  let wrongCounts = 0;
  // Latencies by the tenth of its event sold when the answer came.
  const byTenth: number[][] = Array.from({ length: 10 }, () => []);
  const body = JSON.stringify({ bestAvailable: { number: SEATS_PER_REQUEST } });
  const figures = await measure(ctx.settings, {
    url: ctx.serverUrl,
    connections: ctx.settings.connections,
    amount: perEvent * events.length,
    requests: [
      {
        method: 'POST',
        headers: ctx.workspaceHeaders,
        body,
        setupRequest: (request, context: Partial<Sent>) => {
          context.at = performance.now();
          context.event = Math.min(events.length - 1, Math.floor(requestsSent++ / perEvent));
          return { ...request, path: paths[context.event]! };
        },
        onResponse: (status, responseBody, context: Partial<Sent>) => {
          const latency = performance.now() - context.at!;
          const e = context.event!;
          byTenth[Math.min(9, Math.floor((seatsSold[e]! / chart.seats) * 10))]!.push(latency);
          if (status >= 300) return;
          const objects = (JSON.parse(responseBody) as { objects: string[] }).objects;
          if (objects.length !== SEATS_PER_REQUEST) wrongCounts++;
          seatsSold[e]! += objects.length;
          ledger.booked(events[e]!, objects);
        },
      },
    ],
  });
  const tenths: Record<string, number> = {};
  byTenth.forEach((latencies, i) => {
    if (latencies.length > 0 && i < SOLD_FRACTION * 10) tenths[`p99MsSold${i * 10}to${i * 10 + 10}`] = Math.round(percentile(latencies.sort((a, b) => a - b), 99) * 100) / 100;
  });
  return { ...figures, seatsBooked: ledger.seatsBooked, wrongCounts, ...tenths, ...(await ledger.check(ctx.state)) };
}
