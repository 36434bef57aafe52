import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SeatLedger } from '../lib/ledger.js';
import { measure, type Figures } from '../lib/measure.js';
import { cpuSecondsOf } from '../lib/processes.js';
import { viewDigest } from '../lib/streamSubscribers.js';
import { waitUntil } from '../lib/waitUntil.js';
import { againstBook2Alone, bookTwo, bookTwoRequests } from './bookTwo.js';
import type { BenchContext } from './context.js';

// The live status stream's scenarios (docs/status-stream.md): subscribers of one event in a
// process of their own (bench/lib/streamSubscribers.ts), with the workspace's public key as a
// seat map in a browser has it.
// - statusStream: `scale.streamSubscribers` compact subscribers while book2 runs on the event;
// - statusStreamJson: a fifth as many JSON subscribers, the same way;
// - statusStreamIdle: twice as many subscribers and no load: what each costs the server's memory.
// Reported: book2's rps (against book2 alone just before, `ratioToBook2Alone`), delivery times (a booking's
// answer to a sampled subscriber's receipt of its seats), the server's CPU per subscriber and
// second (its CPU less what the same bookings cost alone), bytes per change, and the checks:
// no gap in any subscriber's seqs, none closed or behind, the sampled views equal the event.

/** Subscribers that decode every frame and time its changes. */
const SAMPLED = 50;
/** Seats of every this-many-th pair have their answer time kept. */
const SAMPLE_EVERY = 10;
/** statusStreamIdle: connected first (the stream's thread starts with them), before the memory is read. */
const FIRST_IDLE = 100;

interface Finished {
  behind: number;
  gaps: number;
  closed: number;
  closedTooSlow: number;
  conflated: number;
  frames: number;
  changeBytes: number;
  changes: number;
  latencies: [p50: number, p99: number, samples: number];
  viewMismatches: number;
}

/** The subscribers' process and how to wait for its answers. */
function subscribersProcess(): { child: ChildProcess; next: <T>(type: string, ms: number) => Promise<T> } {
  const child = fork(fileURLToPath(new URL('../lib/streamSubscribers.js', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // Each answer fails after `ms`: a stalled run fails with a reason instead of waiting for the caller's timeout.
  const next = <T>(type: string, ms: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the subscribers did not answer ${type} within ${ms / 1000} s`)), ms);
      const listener = (message: { type: string; error?: string }) => {
        if (message.type === 'failed') reject(new Error(`subscribers failed: ${message.error}`));
        if (message.type !== type) return;
        child.off('message', listener);
        clearTimeout(timer);
        resolve(message as T);
      };
      child.on('message', listener);
    });
  return { child, next };
}

/** Connects `count` subscribers to the event; resolves once each has its first frame. */
async function connectSubscribers(ctx: BenchContext, run: ReturnType<typeof subscribersProcess>, eventKey: string, count: number, format: 'json' | 'compact', sampled: number): Promise<void> {
  const layout = await ctx.admin.call<{ publicKey: string; objects: { label: string }[] }>('GET', `/events/${encodeURIComponent(eventKey)}/layout`);
  const url = new URL(ctx.serverUrl);
  const ready = run.next('ready', 180_000);
  const path = `/events/${encodeURIComponent(eventKey)}/status-stream?publicKey=${encodeURIComponent(layout.publicKey)}&format=${format}`;
  run.child.send({ type: 'start', host: url.hostname, port: Number(url.port), path, headers: {}, count, sampled, format, layout: format === 'compact' ? layout.objects.map((o) => o.label) : [] });
  await ready;
}

/** Subscribers on an event while book2 runs on it. */
async function withBookings(ctx: BenchContext, count: number, format: 'json' | 'compact'): Promise<Figures> {
  // book2 alone right before, what the subscribers' run is set against: this machine's speed
  // moves within minutes, and against the run's first book2 the share kept swung from 0.6 to 1.2.
  const alone = await bookTwo(ctx);
  const events = await ctx.newEvents(ctx.charts.seats100k, ctx.scale.bookEvents);
  const watched = events[0]!;
  const run = subscribersProcess();
  try {
    await connectSubscribers(ctx, run, watched.key, count, format, Math.min(SAMPLED, count));
    const ledger = new SeatLedger();
    const answered = new Map<string, number>();
    let pair = 0;
    const requests = bookTwoRequests(ctx.charts.seats100k.labels, events, ctx.workspaceHeaders, ledger);
    type Answer = (status: number, body: string, context: { data?: { event: { key: string }; seats: string[] } }) => void;
    const onResponse = requests[0]!.onResponse as unknown as Answer;
    const timed: Answer = (status, body, context) => {
      onResponse(status, body, context);
      const data = context.data;
      if (status < 300 && data && data.event.key === watched.key && pair++ % SAMPLE_EVERY === 0) {
        const at = performance.timeOrigin + performance.now();
        for (const seat of data.seats) answered.set(seat, at);
      }
    };
    requests[0]!.onResponse = timed as unknown as (typeof requests)[0]['onResponse'];
    const cpuBefore = ctx.serverCpuSeconds?.();
    const subscribersCpuBefore = cpuSecondsOf(run.child.pid!);
    const started = performance.now();
    const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests });
    const seconds = (performance.now() - started) / 1000;
    const cpuDuring = ctx.serverCpuSeconds ? ctx.serverCpuSeconds() - cpuBefore! : undefined;
    // The subscribers' own process: a run it limits measures the client, not the server.
    const subscribersCpuPct = ((cpuSecondsOf(run.child.pid!) - subscribersCpuBefore) / seconds) * 100;

    // Requests still in flight when the load stopped are answered after: wait until the event stops changing.
    let booked = await ctx.state.booked(watched);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const again = await ctx.state.booked(watched);
      if (again.size === booked.size) break;
      booked = again;
    }
    const finished = run.next<Finished>('finished', 90_000);
    run.child.send({ type: 'finish', lastSeq: booked.size, timeoutMs: 60_000, answered: [...answered], expectedDigest: viewDigest([...booked].map((label) => [label, 'booked'])) });
    const result = await finished;
    const [deliveryP50Ms, deliveryP99Ms, deliverySamples] = result.latencies;
    const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;
    return {
      ...figures,
      ...againstBook2Alone({ ...figures, ...(await ledger.check(ctx.state)) }, alone),
      book2AloneServerUsPerRequest: alone.loadServerUsPerRequest,
      subscribers: count,
      format: format === 'compact' ? 1 : 0,
      deliveryP50Ms: round(deliveryP50Ms),
      deliveryP99Ms: round(deliveryP99Ms),
      deliverySamples,
      // What the subscribers cost the server beyond the bookings: set against book2 alone (book2AloneServerUsPerRequest) by the report (serverCpuUsPerSubscriberSecond).
      serverCpuSecondsWithSubscribers: cpuDuring === undefined ? undefined : round(cpuDuring, 3),
      loadSeconds: round(seconds, 2),
      subscribersCpuPct: round(subscribersCpuPct),
      bytesPerChange: result.changes === 0 ? -1 : round(result.changeBytes / result.changes, 2),
      framesPerSubscriber: round(result.frames / count),
      subscribersBehind: result.behind,
      streamGaps: result.gaps,
      subscribersClosed: result.closed,
      subscribersClosedTooSlow: result.closedTooSlow,
      subscribersConflated: result.conflated,
      viewMismatches: result.viewMismatches,
    };
  } finally {
    run.child.kill();
  }
}

export const statusStream = (ctx: BenchContext): Promise<Figures> => withBookings(ctx, ctx.scale.streamSubscribers, 'compact');

export const statusStreamJson = (ctx: BenchContext): Promise<Figures> => withBookings(ctx, Math.max(1, Math.round(ctx.scale.streamSubscribers / 5)), 'json');

/** The server's memory once its RSS moves by less than 1 MiB in a second (at most about 20 s). */
async function steadyMemory(ctx: BenchContext): Promise<ReturnType<BenchContext['serverMemory']>> {
  let now: ReturnType<BenchContext['serverMemory']> | undefined;
  await waitUntil(
    async () => {
      const last = now;
      now = ctx.serverMemory();
      return last !== undefined && Math.abs(now.rssBytes - last.rssBytes) < 2 ** 20;
    },
    20_000,
    1_000,
  );
  return now!;
}

/**
 * Idle subscribers: what each costs the server's memory (its RSS with them less before them,
 * the stream's thread started). `count` in all, the first ones included: twice 5,000 is the
 * server's default limit of one event's subscribers (STREAM_MAX_EVENT_SUBSCRIBERS, 10,000).
 */
export async function statusStreamIdle(ctx: BenchContext): Promise<Figures> {
  const [event] = await ctx.newEvents(ctx.charts.seats100k, 1);
  const count = ctx.scale.streamSubscribers * 2;
  const firstCount = Math.min(FIRST_IDLE, Math.floor(count / 2));
  const first = subscribersProcess();
  const rest = subscribersProcess();
  try {
    await connectSubscribers(ctx, first, event!.key, firstCount, 'compact', 0);
    // After the scenarios with bookings the server's RSS still falls for a while (the
    // allocator giving back send buffers and heap): measured from a steady RSS, or the
    // difference says what was given back rather than what the subscribers take.
    const before = await steadyMemory(ctx);
    await connectSubscribers(ctx, rest, event!.key, count - firstCount, 'compact', 0);
    const after = await steadyMemory(ctx);
    return {
      requests: 0,
      rps: 0,
      p50Ms: 0,
      p99Ms: 0,
      non2xx: 0,
      errors: 0,
      subscribers: count,
      serverRssMbBefore: Math.round(before.rssBytes / 2 ** 20),
      serverRssMbWith: Math.round(after.rssBytes / 2 ** 20),
      serverBytesPerSubscriber: Math.round((after.rssBytes - before.rssBytes) / (count - firstCount)),
    };
  } finally {
    first.child.kill();
    rest.child.kill();
  }
}
