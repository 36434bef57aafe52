import { drainCaughtUp, pendingStreamsOf } from '../lib/drain.js';
import type { FinalState } from '../lib/finalState.js';
import { percentile } from '../lib/measure.js';
import type { BenchContext } from './context.js';

// Event creation on the 100,000-seat chart (time per event) and what inventory costs in
// Redis: the memory delta over the seats of the events created (free seats) and over the
// seats booked in one of them (booked seats). Redis memory is read from INFO after each
// step; creation and bookings are sequential admin calls, nothing else runs meanwhile.
// A booked seat's history entry waits in Redis until the drain stores it in MongoDB
// (docs/history.md): the bytes per booked seat are read once the drain caught up, which
// also gives the drain's rate on a backlog of 100,000 changes; and right after booking.

export interface EventsAndMemory {
  eventsCreated: number;
  /** The first event on the chart since it was uploaded. */
  eventCreateMsFirst: number;
  eventCreateMsP50: number;
  eventCreateMsP99: number;
  eventCreateMsMax: number;
  freeSeatBytes: number;
  seatsBooked: number;
  bookedSeatBytes: number;
  /** With every booking's history entry still in Redis. */
  bookedSeatBytesBeforeDrain: number;
  /**
   * The 100,000 bookings' changes over the time from the first booking until none waited
   * for the drain: the drain runs while they are booked, so this is at most the booking
   * rate, a floor of what the drain does.
   */
  historyDrainedPerSecond: number;
}

const DRAIN_WAIT_MS = 120_000;

/** Waits until no history stream waits for the drain. */
async function drained(serverUrl: string): Promise<void> {
  if (!(await drainCaughtUp(pendingStreamsOf(serverUrl), DRAIN_WAIT_MS, 20))) throw new Error(`the history drain did not catch up within ${DRAIN_WAIT_MS / 1000} s`);
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** `redis`: the server's own, whose memory is read. */
export async function eventsAndMemory(ctx: BenchContext, redis: FinalState): Promise<EventsAndMemory> {
  const chart = ctx.charts.seats100k;
  const count = ctx.scale.eventsCreated;
  const memoryBefore = await redis.usedMemory();
  const times: number[] = [];
  const events = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    events.push(await ctx.admin.createEvent(chart.key));
    times.push(performance.now() - started);
  }
  const memoryAfterEvents = await redis.usedMemory();
  const first = times[0]!;
  times.sort((a, b) => a - b);

  // Every seat of one of those events booked, 1,000 per request.
  const bookingStarted = performance.now();
  await ctx.admin.book(events[0]!.key, chart.labels);
  const memoryBeforeDrain = await redis.usedMemory();
  await drained(ctx.serverUrl);
  const drainMs = performance.now() - bookingStarted;
  const memoryAfterBooking = await redis.usedMemory();
  return {
    eventsCreated: count,
    eventCreateMsFirst: round(first),
    eventCreateMsP50: round(percentile(times, 50)),
    eventCreateMsP99: round(percentile(times, 99)),
    eventCreateMsMax: round(times[times.length - 1]!),
    freeSeatBytes: round((memoryAfterEvents - memoryBefore) / (count * chart.labels.length), 2),
    seatsBooked: chart.labels.length,
    bookedSeatBytes: round((memoryAfterBooking - memoryAfterEvents) / chart.labels.length),
    bookedSeatBytesBeforeDrain: round((memoryBeforeDrain - memoryAfterEvents) / chart.labels.length),
    historyDrainedPerSecond: Math.round(chart.labels.length / (drainMs / 1000)),
  };
}
