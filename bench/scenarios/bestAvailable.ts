import type { BenchEvent } from '../lib/admin.js';
import { SeatLedger } from '../lib/ledger.js';
import { measure, percentile, type Figures } from '../lib/measure.js';
import { generatedDrawing } from '../drawings.js';
import type { BenchContext } from './context.js';

// bestAvailable4 (docs/best-available.md): buyers asking for "the best 4" on one event of a
// 50,000-seat chart, at the run's connections (book2's, so the two compare), until 80 % of
// it is sold. Every request should
// succeed (there are always enough seats); the seats each answer names go into a ledger
// checked against the final state (none given twice, none lost). Besides the run's p99,
// the p99 of the answers given while the event was 0-10 %, 10-20 %, ... 70-80 % sold
// shows how the search slows as the best seats go.

const SEATS_PER_REQUEST = 4;
const SOLD_FRACTION = 0.8;
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

export async function bestAvailable4(ctx: BenchContext): Promise<Figures> {
  const chart = await bestAvailableChartOf(ctx);
  const [event] = (await ctx.admin.createEvents(chart.key, 1)) as BenchEvent[];
  const ledger = new SeatLedger();
  const amount = Math.floor((chart.seats * SOLD_FRACTION) / SEATS_PER_REQUEST);
  let seatsSold = 0;
  let wrongCounts = 0;
  // Latencies by the tenth of the chart sold when the answer came.
  const byTenth: number[][] = Array.from({ length: 10 }, () => []);
  const sent = new Map<object, number>();
  const body = JSON.stringify({ bestAvailable: { number: SEATS_PER_REQUEST } });
  const figures = await measure(ctx.settings, {
    url: ctx.serverUrl,
    connections: ctx.settings.connections,
    amount,
    requests: [
      {
        method: 'POST',
        path: `/events/${event!.key}/actions/book`,
        headers: ctx.workspaceHeaders,
        body,
        setupRequest: (request, context: object) => {
          sent.set(context, performance.now());
          return request;
        },
        onResponse: (status, responseBody, context: object) => {
          const latency = performance.now() - (sent.get(context) ?? performance.now());
          byTenth[Math.min(9, Math.floor((seatsSold / chart.seats) * 10))]!.push(latency);
          if (status >= 300) return;
          const objects = (JSON.parse(responseBody) as { objects: string[] }).objects;
          if (objects.length !== SEATS_PER_REQUEST) wrongCounts++;
          seatsSold += objects.length;
          ledger.booked(event!, objects);
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
