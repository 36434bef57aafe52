import type autocannon from 'autocannon';
import type { BenchEvent } from '../lib/admin.js';
import { SeatLedger } from '../lib/ledger.js';
import { measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// hold-then-book, a buyer's checkout: create a hold token, hold 4 seats with it, book them
// with it. Each connection runs the three requests in turn; the token and the seats travel
// in autocannon's per-connection context from one request to the next.

const SEATS = 4;
/**
 * Checkouts a second its events are made for, above what this machine's server has reached
 * (about 7,000): a run that outran its seats would come back to booked ones and count refusals,
 * which a whole run on a fast machine did with events made for a fixed number of checkouts.
 */
const CHECKOUTS_PER_SECOND = 10_000;

interface Checkout {
  token?: string;
  event?: BenchEvent;
  seats?: string[];
}

export async function holdThenBook(ctx: BenchContext): Promise<Figures> {
  const { labels } = ctx.charts.seats100k;
  const perEvent = Math.floor(labels.length / SEATS);
  const events = await ctx.newEvents(ctx.charts.seats100k, Math.max(ctx.scale.checkoutEvents, Math.ceil((CHECKOUTS_PER_SECOND * ctx.settings.durationSeconds) / perEvent)));
  const ledger = new SeatLedger();
  let next = 0;
  let checkouts = 0;
  const requests: autocannon.Request[] = [
    {
      method: 'POST',
      path: '/hold-tokens',
      headers: ctx.workspaceHeaders,
      body: '{}',
      onResponse: (status, body, context: Checkout) => {
        context.token = status === 200 ? (JSON.parse(body) as { holdToken: string }).holdToken : undefined;
      },
    },
    {
      method: 'POST',
      headers: ctx.workspaceHeaders,
      setupRequest: (request, context: Checkout) => {
        const n = next++;
        const event = events[Math.floor(n / perEvent) % events.length]!;
        const seats = labels.slice((n % perEvent) * SEATS, (n % perEvent) * SEATS + SEATS);
        Object.assign(context, { event, seats });
        return { ...request, path: `/events/${event.key}/actions/hold`, body: JSON.stringify({ objects: seats, holdToken: context.token }) };
      },
    },
    {
      method: 'POST',
      headers: ctx.workspaceHeaders,
      setupRequest: (request, context: Checkout) => ({
        ...request,
        path: `/events/${context.event!.key}/actions/book`,
        body: JSON.stringify({ objects: context.seats, holdToken: context.token }),
      }),
      onResponse: (status, _body, context: Checkout) => {
        if (status >= 300) return;
        checkouts++;
        ledger.booked(context.event!, context.seats!);
      },
    },
  ];
  const started = performance.now();
  const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests });
  const seconds = (performance.now() - started) / 1000;
  return { ...figures, checkoutsPerSecond: Math.round(checkouts / seconds), seatsBooked: ledger.seatsBooked, ...(await ledger.check(ctx.state)) };
}
