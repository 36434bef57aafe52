import { SeatLedger } from '../lib/ledger.js';
import { generatedRequests, measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// hot seats: 1,000 connections (100 in the smoke run) all after the same 100 seats of a
// fresh event, one seat per request, every seat asked for many times. Exactly 100 requests
// may succeed; every other one must be refused with 400, and the final state must hold
// exactly those 100 bookings.

const HOT_SEATS = 100;

export async function hotSeats(ctx: BenchContext): Promise<Figures> {
  const [event] = await ctx.newEvents(ctx.charts.seats10k, 1);
  const seats = ctx.charts.seats10k.labels.slice(0, HOT_SEATS);
  const ledger = new SeatLedger();
  const statuses = new Map<number, number>();
  let next = 0;
  const figures = await measure(ctx.settings, {
    url: ctx.serverUrl,
    connections: ctx.scale.hotSeatConnections,
    amount: ctx.scale.hotSeatRequests,
    requests: generatedRequests({
      headers: ctx.workspaceHeaders,
      next: () => {
        const seat = seats[next++ % HOT_SEATS]!;
        return { path: `/events/${event!.key}/actions/book`, body: JSON.stringify({ objects: [seat] }), data: seat };
      },
      onStatus: (status, seat) => {
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status < 300) ledger.booked(event!, [seat]);
      },
    }),
  });
  const booked = await ctx.state.booked(event!);
  const successes = [...statuses].filter(([s]) => s < 300).reduce((n, [, count]) => n + count, 0);
  const refused400 = statuses.get(400) ?? 0;
  const checks = await ledger.check(ctx.state);
  return {
    ...figures,
    successes,
    refused400,
    otherAnswers: figures.requests - successes - refused400,
    seatsBookedInState: booked.size,
    // Booked in the final state but not one of the hot seats: must never happen.
    strayBookings: [...booked].filter((label) => !seats.includes(label)).length,
    ...checks,
  };
}
