import type { BenchSeason } from '../lib/admin.js';
import { SeatLedger } from '../lib/ledger.js';
import { generatedRequests, measure, type Figures } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// Seasons (docs/seasons.md): seasons of 100 events on the 10,000-seat chart.
// - seasonBook: 10 seats per request on the season itself, each season's first half of the
//   chart, season after season until every season sold it (bounded by that amount);
// - seasonEventBook: 2 seats per request in the seasons' events, from the other half of
//   the chart, walking event after event like book2, but in events of a season: each
//   booking is checked against the season in the same script call.
// The final state must show no seat booked both on a season and in one of its events, and
// every seat a request was told it booked booked.

const EVENTS_PER_SEASON = 100;
const SEATS_PER_SEASON_REQUEST = 10;
/** The seasons seasonBook books on; seasonEventBook may need more (seasonsOf). */
const SEASONS: Record<BenchContext['scale']['mode'], number> = { full: 6, quick: 2, smoke: 1 };
/**
 * Bookings a second seasonEventBook's seats are made for, above what this machine's server
 * has reached (about 21,000): a run that outran them would come back to booked seats and
 * count refusals (non-2xx) in its last rounds, as smoke runs with rounds did on a fast hour.
 */
const SEASON_EVENT_BOOKINGS_PER_SECOND = 30_000;

/** How many events a season of the bench has (seasonsOf), for the reference's walk of its own too. */
export const eventsPerSeason = (ctx: BenchContext) => (ctx.scale.mode === 'smoke' ? 20 : EVENTS_PER_SEASON);

const made = new WeakMap<BenchContext, Promise<BenchSeason[]>>();

/** The pairs seasonEventBook has taken so far in a run's seasons (it goes on from there). */
const walked = new WeakMap<BenchContext, number>();

/**
 * The seasons both scenarios use, made once per run; bench/run.ts makes them before the
 * timed scenarios, so their creation does not count in a scenario's CPU figures.
 */
export function seasonsOf(ctx: BenchContext): Promise<BenchSeason[]> {
  if (!made.has(ctx)) {
    const events = eventsPerSeason(ctx);
    // Enough pairs (2,500 an event) for every run of seasonEventBook: its warm-up, its timed run and its rounds.
    const pairsPerSeason = events * pairsPerEvent(ctx);
    const count = Math.max(SEASONS[ctx.scale.mode], Math.ceil((SEASON_EVENT_BOOKINGS_PER_SECOND * ctx.secondsPerScenario) / pairsPerSeason));
    made.set(ctx, (async () => {
      const seasons: BenchSeason[] = [];
      for (let i = 0; i < count; i++) seasons.push(await ctx.admin.createSeason(ctx.charts.seats10k.key, events));
      return seasons;
    })());
  }
  return made.get(ctx)!;
}

/** The first half of the chart's seats are sold on the seasons, the second half in their events. */
const halves = (labels: string[]) => [labels.slice(0, labels.length / 2), labels.slice(labels.length / 2)] as const;

/** The pairs seasonEventBook books in one event: the second half of the chart, two seats at a time. */
const pairsPerEvent = (ctx: BenchContext) => Math.floor(halves(ctx.charts.seats10k.labels)[1].length / 2);

export async function seasonBook(ctx: BenchContext): Promise<Figures> {
  const seasons = (await seasonsOf(ctx)).slice(0, SEASONS[ctx.scale.mode]);
  const [onSeason] = halves(ctx.charts.seats10k.labels);
  const perSeason = Math.floor(onSeason.length / SEATS_PER_SEASON_REQUEST);
  const ledger = new SeatLedger();
  let next = 0;
  const figures = await measure(ctx.settings, {
    url: ctx.serverUrl,
    amount: perSeason * seasons.length,
    requests: generatedRequests({
      headers: ctx.workspaceHeaders,
      next: () => {
        const n = next++;
        const { season } = seasons[Math.floor(n / perSeason) % seasons.length]!;
        const at = (n % perSeason) * SEATS_PER_SEASON_REQUEST;
        const seats = onSeason.slice(at, at + SEATS_PER_SEASON_REQUEST);
        return { path: `/events/${season.key}/actions/book`, body: JSON.stringify({ objects: seats }), data: { event: season, seats } };
      },
      onStatus: (status, { event, seats }) => status < 300 && ledger.booked(event, seats),
    }),
  });
  return { ...figures, seatsBooked: ledger.seatsBooked, ...(await ledger.check(ctx.state)) };
}

/**
 * seasonEventBook's requests: pairs of the chart's second half, event after event, from pair
 * `first`; `pathOf` names the booking's path for an event's place in the walk, `booked` hears
 * of each pair booked. `taken()` is the pairs taken so far, where the next run goes on.
 */
export function seasonEventRequests(ctx: BenchContext, first: number, pathOf: (event: number) => string, booked?: (event: number, seats: string[]) => void) {
  const [, inEvents] = halves(ctx.charts.seats10k.labels);
  const perEvent = pairsPerEvent(ctx);
  let next = first;
  const requests = generatedRequests({
    headers: ctx.workspaceHeaders,
    // Event after event, as book2 walks its events.
    next: () => {
      const pair = next++;
      const event = Math.floor(pair / perEvent);
      const at = (pair % perEvent) * 2;
      const seats = [inEvents[at]!, inEvents[at + 1]!];
      return { path: pathOf(event), body: JSON.stringify({ objects: seats }), data: { event, seats } };
    },
    onStatus: (status, { event, seats }) => status < 300 && booked?.(event, seats),
  });
  return { requests, taken: () => next };
}

export async function seasonEventBook(ctx: BenchContext): Promise<Figures> {
  const seasons = await seasonsOf(ctx);
  const events = seasons.flatMap((s) => s.events);
  const ledger = new SeatLedger();
  // The seasons are made once per run and the scenario runs again in alternating rounds: each
  // run goes on from the pair where the last one stopped, so its bookings are of free seats
  // as book2's (starting over would measure refusals: OBJECT_NOT_FREE for nearly every request).
  const eventAt = (n: number) => events[n % events.length]!;
  const walk = seasonEventRequests(ctx, walked.get(ctx) ?? 0, (n) => `/events/${eventAt(n).key}/actions/book`, (n, seats) => ledger.booked(eventAt(n), seats));
  const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests: walk.requests });
  walked.set(ctx, walk.taken());
  // No seat may be booked both on a season and in one of its events.
  const seasonAndEvent = await ctx.state.seasonAndEventBookings(seasons, ledger);
  return { ...figures, seatsBooked: ledger.seatsBooked, ...(await ledger.check(ctx.state)), seasonAndEventBookings: seasonAndEvent };
}
