import { SeatLedger } from '../lib/ledger.js';
import { measure } from '../lib/measure.js';
import { bookTwoRequests } from './bookTwo.js';
import type { BenchContext } from './context.js';

// Before the timed scenarios, the ceiling, the reference and the server each take a few
// seconds of book2's requests, untimed (docs/benchmarks.md, "Warm-up"). A process's first
// thousands of bookings run interpreted and in baseline code while V8 compiles the hot
// functions on its helper threads; the server has far more code to compile than the
// reference or the ceiling, so a 4-s quick scenario measured from cold paid for it: a
// quick `--only book2` measured about 15 µs per booking on the server's other threads against
// about 3 in whole runs, where the set-up's bookings had warmed the path first. The warm-up
// books on events of its own (seats the ledger checks like a scenario's); every scenario's own
// first requests (its new events, its own routes) are still timed, as before.

export async function warmUp(ctx: BenchContext, seconds: number): Promise<void> {
  const settings = { ...ctx.settings, durationSeconds: seconds };
  const { labels } = ctx.charts.seats100k;
  const fake = (prefix: string) => Array.from({ length: 2 }, (_, i) => ({ id: i, key: `${prefix}-${Date.now().toString(36)}-${i}` }));
  await measure(settings, { url: ctx.ceilingUrl, requests: bookTwoRequests(labels, fake('warm-up-ceiling'), ctx.workspaceHeaders) });
  if (ctx.referenceUrl) await measure(settings, { url: ctx.referenceUrl, requests: bookTwoRequests(labels, fake('warm-up'), ctx.workspaceHeaders) });
  const ledger = new SeatLedger();
  const figures = await measure(settings, {
    url: ctx.serverUrl,
    requests: bookTwoRequests(labels, await ctx.newEvents(ctx.charts.seats100k, 2), ctx.workspaceHeaders, ledger),
  });
  const { doubleBookings, lostBookings } = await ledger.check(ctx.state);
  if (doubleBookings + lostBookings + figures.non2xx + figures.errors > 0) {
    throw new Error(`warm-up: ${doubleBookings} double and ${lostBookings} lost bookings, ${figures.non2xx} answers other than 2xx, ${figures.errors} errors`);
  }
}
