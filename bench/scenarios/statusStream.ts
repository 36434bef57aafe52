import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SeatLedger } from '../lib/ledger.js';
import { measure, percentile, type Figures } from '../lib/measure.js';
import { bookTwoRequests } from './bookTwo.js';
import type { BenchContext } from './context.js';

// statusStream: `scale.streamSubscribers` WebSocket subscribers on one event
// (docs/status-stream.md) while book2 runs on it, as book2 alone does. Reports delivery
// latency (a booking's answer to a subscriber's receipt of its seats, for the first few
// subscribers), book2's rps (compared with book2 alone in the same run), the server's memory
// per subscriber, and the checks: no subscriber missed a change or fell behind, and the view
// built from the messages equals the event's booked seats (bench/lib/streamSubscribers.ts says
// why one view stands for all).

/** Subscribers whose receipt times are kept (each keeps a time per seat). */
const SAMPLED = 20;
/** Seats of every this-many-th pair have their answer time kept. */
const SAMPLE_EVERY = 10;

interface Finished {
  behind: number;
  gaps: number;
  closedEarly: number;
  /** Of closedEarly, those the server closed for falling too far behind (4008). */
  closedTooSlow: number;
  view: [string, string][];
  seen: [string, number][][];
}

export async function statusStream(ctx: BenchContext): Promise<Figures> {
  const events = await ctx.newEvents(ctx.charts.seats100k, ctx.scale.bookEvents);
  const watched = events[0]!;
  const child = fork(fileURLToPath(new URL('../lib/streamSubscribers.js', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // Each answer of the subscribers' process, failing after `ms` (a stalled run fails with
  // a reason instead of waiting for the caller's timeout).
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
  try {
    const before = ctx.serverMemory();
    const count = ctx.scale.streamSubscribers;
    const url = `${ctx.serverUrl.replace(/^http/, 'ws')}/events/${watched.key}/status-stream`;
    const ready = next('ready', 120_000);
    child.send({ type: 'start', url, headers: { authorization: ctx.workspaceHeaders.authorization }, count, sampled: SAMPLED });
    await ready;
    const connected = ctx.serverMemory();

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
    requests[0]!.onResponse = timed as unknown as typeof requests[0]['onResponse'];
    const figures = await measure(ctx.settings, { url: ctx.serverUrl, requests });

    // Requests still in flight when the load stopped are answered after: wait until the event stops changing.
    let booked = await ctx.state.booked(watched);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const again = await ctx.state.booked(watched);
      if (again.size === booked.size) break;
      booked = again;
    }
    const finished = next<Finished>('finished', 45_000);
    child.send({ type: 'finish', lastSeq: booked.size, timeoutMs: 30_000 });
    const result = await finished;

    const latencies: number[] = [];
    for (const seen of result.seen) for (const [label, at] of seen) if (answered.has(label)) latencies.push(at - answered.get(label)!);
    latencies.sort((a, b) => a - b);
    const view = new Map(result.view);
    let viewMismatches = [...view].filter(([label, status]) => status !== 'booked' || !booked.has(label)).length;
    viewMismatches += [...booked].filter((label) => !view.has(label)).length;
    const round = (ms: number | undefined) => (ms === undefined ? -1 : Math.round(ms * 10) / 10);
    return {
      ...figures,
      ...(await ledger.check(ctx.state)),
      subscribers: count,
      deliveryP50Ms: round(percentile(latencies, 50)),
      deliveryP99Ms: round(percentile(latencies, 99)),
      deliverySamples: latencies.length,
      serverBytesPerSubscriber: Math.round((connected.rssBytes - before.rssBytes) / count),
      subscribersBehind: result.behind,
      streamGaps: result.gaps,
      subscribersClosed: result.closedEarly,
      subscribersClosedTooSlow: result.closedTooSlow,
      viewMismatches,
    };
  } finally {
    child.kill();
  }
}
