import type autocannon from 'autocannon';
import { measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// release churn: book a pair of seats, release it, again and again, on the same 2,000 seats
// of one event. A pair is taken from a pool to be booked and goes back once its release
// was answered, so no two requests in flight touch the same seat: every request should
// succeed, and at the end only pairs still out of the pool may be booked.

const PAIRS = 1000;

interface Cycle {
  pair?: number;
}

export async function releaseChurn(ctx: BenchContext): Promise<Figures> {
  const [event] = await ctx.newEvents(ctx.charts.seats10k, 1);
  const labels = ctx.charts.seats10k.labels;
  const pool = Array.from({ length: PAIRS }, (_, i) => i);
  const out = new Set<number>();
  const seatsOf = (pair: number) => [labels[pair * 2]!, labels[pair * 2 + 1]!];
  let cycles = 0;
  const change = (action: 'book' | 'release'): autocannon.Request => ({
    method: 'POST',
    headers: ctx.workspaceHeaders,
    setupRequest: (request, context: Cycle) => {
      if (action === 'book') {
        context.pair = pool.shift()!;
        out.add(context.pair);
      }
      return { ...request, path: `/events/${event!.key}/actions/${action}`, body: JSON.stringify({ objects: seatsOf(context.pair!) }) };
    },
    onResponse: (status, _body, context: Cycle) => {
      if (action === 'book') return;
      if (status < 300) cycles++;
      out.delete(context.pair!);
      pool.push(context.pair!);
    },
  });
  const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests: [change('book'), change('release')] });
  const booked = await ctx.state.booked(event!);
  const allowed = new Set([...out].flatMap(seatsOf));
  return {
    ...figures,
    cycles,
    // Booked at the end although its pair had been released: must never happen.
    strayBookings: [...booked].filter((label) => !allowed.has(label)).length,
  };
}
