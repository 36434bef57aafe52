import type { BenchEvent } from '../lib/admin.js';
import { SeatLedger } from '../lib/ledger.js';
import { generatedRequests, measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// book-2: every request books 2 distinct free seats, walking the 100,000-seat chart's labels
// event after event, so every request should succeed. The ceiling is driven by the very
// same generator (same bodies, same per-request cost in the load generator).

export function bookTwoRequests(labels: string[], events: BenchEvent[], headers: Record<string, string>, ledger?: SeatLedger) {
  const pairsPerEvent = Math.floor(labels.length / 2);
  let next = 0;
  return generatedRequests({
    headers,
    next: () => {
      const pair = next++;
      const event = events[Math.floor(pair / pairsPerEvent) % events.length]!;
      const at = (pair % pairsPerEvent) * 2;
      const seats = [labels[at]!, labels[at + 1]!];
      return { path: `/events/${event.key}/actions/book`, body: JSON.stringify({ objects: seats }), data: { event, seats } };
    },
    onStatus: (status, { event, seats }) => {
      if (status < 300) ledger?.booked(event, seats);
    },
  });
}

/** The no-op ceiling, driven like book-2; it answers with an empty body, as book does (204). */
export async function ceiling(ctx: BenchContext): Promise<Figures> {
  const fake = Array.from({ length: ctx.scale.bookEvents }, (_, i) => ({ id: i, key: `ceiling-${i}` }));
  return measure(ctx.settings, { url: ctx.ceilingUrl, requests: bookTwoRequests(ctx.charts.seats100k.labels, fake, ctx.workspaceHeaders) });
}

/**
 * book-2. `loadServerUsPerRequest`: the server's CPU per request over the timed load alone (its
 * events' creation and the ledger's check left out), when the bench started the server.
 */
export async function bookTwo(ctx: BenchContext): Promise<Figures> {
  const events = await ctx.newEvents(ctx.charts.seats100k, ctx.scale.bookEvents);
  const ledger = new SeatLedger();
  const cpuBefore = ctx.serverCpuSeconds?.();
  const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests: bookTwoRequests(ctx.charts.seats100k.labels, events, ctx.workspaceHeaders, ledger) });
  const loadServerUsPerRequest = ctx.serverCpuSeconds ? Math.round(((ctx.serverCpuSeconds() - cpuBefore!) * 1e7) / Math.max(1, figures.requests)) / 10 : undefined;
  return { ...figures, loadServerUsPerRequest, seatsBooked: ledger.seatsBooked, ...(await ledger.check(ctx.state)) };
}

/**
 * A booking run's figures set against book2 alone run just before it on the same server: the
 * share of its rate kept (`ratioToBook2Alone`), and both runs' checks and failures together.
 */
export function againstBook2Alone(during: Figures, alone: Figures) {
  return {
    book2AloneRps: alone.rps,
    ratioToBook2Alone: Math.round((during.rps / alone.rps) * 1000) / 1000,
    doubleBookings: (during.doubleBookings ?? 0) + (alone.doubleBookings ?? 0),
    lostBookings: (during.lostBookings ?? 0) + (alone.lostBookings ?? 0),
    non2xx: during.non2xx + alone.non2xx,
    errors: during.errors + alone.errors,
  };
}
