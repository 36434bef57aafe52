import type autocannon from 'autocannon';
import { measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// release churn: book a pair of seats, release it, again and again, on the same 2,000 seats
// of one event. A pair is taken from a pool to be booked and goes back once its release
// was answered, so no two requests in flight touch the same seat: every request should
// succeed, and at the end only pairs still out of the pool may be booked. The server's run
// (releaseChurn) and the lean reference's (referenceReleaseChurn, bench/scenarios/reference.ts)
// send the same requests.

const PAIRS = 1000;

interface Cycle {
  pair?: number;
}

/** The churn's two requests on `eventKey`, and the pairs out of the pool once it has run. */
export function churnRequests(labels: string[], eventKey: string, headers: Record<string, string>) {
  const pool = Array.from({ length: PAIRS }, (_, i) => i);
  const out = new Set<number>();
  const seatsOf = (pair: number) => [labels[pair * 2]!, labels[pair * 2 + 1]!];
  let cycles = 0;
  const change = (action: 'book' | 'release'): autocannon.Request => ({
    method: 'POST',
    headers,
    setupRequest: (request, context: Cycle) => {
      if (action === 'book') {
        context.pair = pool.shift()!;
        out.add(context.pair);
      }
      return { ...request, path: `/events/${eventKey}/actions/${action}`, body: JSON.stringify({ objects: seatsOf(context.pair!) }) };
    },
    onResponse: (status, _body, context: Cycle) => {
      if (action === 'book') return;
      if (status < 300) cycles++;
      out.delete(context.pair!);
      pool.push(context.pair!);
    },
  });
  return {
    requests: [change('book'), change('release')],
    /** Releases answered 2xx so far. */
    cycles: () => cycles,
    /** The seats of the pairs out of the pool: the only ones that may still be booked. */
    outSeats: () => new Set([...out].flatMap(seatsOf)),
  };
}

export async function releaseChurn(ctx: BenchContext): Promise<Figures> {
  const [event] = await ctx.newEvents(ctx.charts.seats10k, 1);
  const churn = churnRequests(ctx.charts.seats10k.labels, event!.key, ctx.workspaceHeaders);
  const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests: churn.requests });
  const booked = await ctx.state.booked(event!);
  const allowed = churn.outSeats();
  return {
    ...figures,
    cycles: churn.cycles(),
    // Booked at the end although its pair had been released: must never happen.
    strayBookings: [...booked].filter((label) => !allowed.has(label)).length,
  };
}
