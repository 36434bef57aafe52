import { SeatLedger } from '../lib/ledger.js';
import { generatedRequests, measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// hotEvent: the on-sale everyone wants. 400 connections (40 in the smoke run) book two seats
// each request in one fresh event of 100,000 seats, walking its labels, so every request
// should succeed, until the event is sold out (full run) or half of it (quick). One event
// lives in one Redis hash slot, so whatever the servers and shards, what one Redis core does
// for it bounds its sale: the report gives Redis's µs per booked seat
// (`redisUsPerBookedSeat`, bench/lib/report.ts) and the seats a second one Redis core would
// book at that cost (`seatsPerRedisCoreSecond`, 1e6 / µs). Meant with `--workers 2`
// (`npm run bench -- --workers 2 --only hotEvent`): two server processes feed the one
// Redis, each batching its calls (docs/performance.md, "Batched calls").

const CONNECTIONS = { full: 400, quick: 400, smoke: 40 };
/** Requests of two seats: the whole event in the full run, half of it in the quick run. */
const REQUESTS = { full: 50_000, quick: 25_000, smoke: 1_000 };

export async function hotEvent(ctx: BenchContext): Promise<Figures> {
  const chart = ctx.charts.seats100k;
  const [event] = await ctx.newEvents(chart, 1);
  const ledger = new SeatLedger();
  let next = 0;
  const figures = await measure(ctx.settings, {
    url: ctx.serverUrl,
    connections: CONNECTIONS[ctx.scale.mode],
    amount: REQUESTS[ctx.scale.mode],
    requests: generatedRequests({
      headers: ctx.workspaceHeaders,
      next: () => {
        const at = (next++ * 2) % chart.labels.length;
        const seats = [chart.labels[at]!, chart.labels[at + 1]!];
        return { path: `/events/${event!.key}/actions/book`, body: JSON.stringify({ objects: seats }), data: seats };
      },
      onStatus: (status, seats) => {
        if (status < 300) ledger.booked(event!, seats);
      },
    }),
  });
  return { ...figures, seatsBooked: ledger.seatsBooked, ...(await ledger.check(ctx.state)) };
}
