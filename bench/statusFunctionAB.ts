import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import type * as AtMostOnceModule from '../src/inventory/atMostOnce.js';
import type * as RedisClockModule from '../src/inventory/redisClock.js';
import type * as ScriptsModule from '../src/inventory/scripts.js';
import type * as StatusChangesModule from '../src/inventory/statusChanges.js';
import type * as StatusChangeRequestModule from '../src/domain/statusChangeRequest.js';
import { commandStats } from './lib/commandStats.js';
import { median } from './lib/median.js';
import { cpuSecondsOf } from './lib/processes.js';
import { inFlight, withStatusFunctionBench } from './lib/statusFunctionBench.js';

// `npm run bench:ab -- DIR [calls] [rounds]`: the status function of another checkout (DIR,
// built: its dist/ and lua/) against this one's, on one private Redis that keeps an
// append-only file as the bench's does, in alternating rounds (the order swapped every round).
// Each round books `calls` pairs of free seats the direct way (book2's call), then releases
// them (half of releaseChurn's calls), then books `calls` pairs in an event of a season
// (seasonEventBook's call), as each checkout's own server code sends them. Per
// side and kind: FCALL's µs per call (INFO commandstats) and the Redis process's CPU µs per
// call (/proc, in 10 ms ticks), the medians of the rounds and each round's ratio of this
// checkout to DIR; and the Redis commands per call. A whole run of `npm run bench` spreads by
// ±15 % between minutes and cannot show a change of a few microseconds of Redis's time per
// call; rounds of a few seconds, alternated on one Redis, can (docs/benchmarks.md, "The status
// function against another checkout's"). One JSON line.

const [otherDir, callsArg, roundsArg] = process.argv.slice(2);
if (!otherDir) throw new Error('usage: node dist/bench/statusFunctionAB.js DIR [calls] [rounds] (DIR: another checkout, built)');
const CALLS = Number(callsArg ?? 5_000);
const ROUNDS = Number(roundsArg ?? 10);
const KINDS = ['book', 'release', 'seasonEvent'] as const;
type Kind = (typeof KINDS)[number];

/** The modules of a checkout the calls are made with. */
interface Checkout {
  Scripts: typeof ScriptsModule.Scripts;
  AtMostOnceCalls: typeof AtMostOnceModule.AtMostOnceCalls;
  RedisClock: typeof RedisClockModule.RedisClock;
  planChange: typeof StatusChangeRequestModule.planChange;
  applyPlainChange: typeof StatusChangesModule.applyPlainChange;
}

async function checkout(root: string): Promise<Checkout> {
  const load = (path: string) => import(pathToFileURL(join(root, 'dist', path)).href) as Promise<Record<string, unknown>>;
  return {
    Scripts: (await load('src/inventory/scripts.js')).Scripts as Checkout['Scripts'],
    AtMostOnceCalls: (await load('src/inventory/atMostOnce.js')).AtMostOnceCalls as Checkout['AtMostOnceCalls'],
    RedisClock: (await load('src/inventory/redisClock.js')).RedisClock as Checkout['RedisClock'],
    planChange: (await load('src/domain/statusChangeRequest.js')).planChange as Checkout['planChange'],
    applyPlainChange: (await load('src/inventory/statusChanges.js')).applyPlainChange as Checkout['applyPlainChange'],
  };
}

interface Side {
  name: string;
  code: Checkout;
  redis: Redis;
  clock: RedisClockModule.RedisClock;
  calls: AtMostOnceModule.AtMostOnceCalls;
  fcallUs: Record<Kind, number[]>;
  redisCpuUs: Record<Kind, number[]>;
  commandsPerCall: Record<Kind, Record<string, number>>;
}

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const hundredths = (value: number) => Math.round(value * 100) / 100;

// The private Redis (with its append-only file), the 100,000-seat chart and the event as the
// server makes it, from the status function benches' setup; its own calls are not used.
await withStatusFunctionBench(
  'ab',
  async ({ url, redis: admin, index, seats, event: template, owner }) => {
    const redisPid = Number(/process_id:(\d+)/.exec(await admin.info('server'))![1]);
    /** The Redis process's CPU µs so far (the kernel counts it in ticks of 10 ms). */
    const redisCpuUs = () => cpuSecondsOf(redisPid) * 1e6;
    const sides: Side[] = [];
    try {
      for (const [name, root] of [
        ['other', resolve(otherDir)],
        ['this', projectRoot],
      ] as const) {
        const code = await checkout(root);
        const redis = new Redis(url);
        const clock = new code.RedisClock(redis);
        // Each call alone (a side that batches would send a round's calls as a few batches).
        const calls = new code.AtMostOnceCalls(new code.Scripts(redis, redis, join(root, 'lua')), redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000, batchAtMost: 1 });
        const perKind = <T>(make: () => T) => ({ book: make(), release: make(), seasonEvent: make() });
        sides.push({ name, code, redis, clock, calls, fcallUs: perKind(() => []), redisCpuUs: perKind(() => []), commandsPerCall: perKind(() => ({})) });
      }

      let nextEvent = 0;
      /**
       * One round of a side: CALLS bookings of two free seats on an event of its own, then their
       * releases, all with the one record of that event (the calls keep per-event state by it);
       * then CALLS bookings in an event of a season of its own (the season has no records, so
       * every booking goes the direct way).
       */
      const round = async (side: Side) => {
        const _id = ++nextEvent;
        const event = { ...template, _id, tag: String(_id) };
        const topId = ++nextEvent;
        const top = { ...template, _id: topId, tag: String(topId), season: { role: 'top' as const, forSalePropagated: true } };
        const inSeason = { ...template, _id: ++nextEvent, tag: top.tag, season: { role: 'event' as const, topId } };
        const season = { role: 'event' as const, top, sum: [top], groups: [], propagated: true, version: '0' };
        for (const kind of KINDS) {
          await admin.config('RESETSTAT');
          const cpuBefore = redisCpuUs();
          await inFlight(CALLS, (i) => {
            const pair = [seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!];
            const planned =
              kind === 'seasonEvent'
                ? { event: inSeason, change: side.code.planChange(inSeason, index, 'book', 'booked', pair, {}), season }
                : { event, change: side.code.planChange(event, index, kind, kind === 'book' ? 'booked' : 'free', pair, {}) };
            return new Promise((resolve, reject) => side.code.applyPlainChange(side.calls, planned, Date.now(), '127.0.0.1', owner, { resolve, reject }));
          });
          side.redisCpuUs[kind].push((redisCpuUs() - cpuBefore) / CALLS);
          const stats = await commandStats(admin);
          const fcall = stats.get('fcall')!;
          side.fcallUs[kind].push(fcall.usec / fcall.calls);
          side.commandsPerCall[kind] = Object.fromEntries([...stats].filter(([command]) => command !== 'config').map(([command, { calls }]) => [command, hundredths(calls / CALLS)]));
        }
      };

      for (const side of sides) await round(side); // loads each function and warms both sides
      for (const side of sides) for (const kind of KINDS) side.fcallUs[kind].length = side.redisCpuUs[kind].length = 0;
      for (let r = 0; r < ROUNDS; r++) for (const side of r % 2 === 0 ? sides : [...sides].reverse()) await round(side);

      const [other, self] = sides as [Side, Side];
      const ratios = (mine: number[], theirs: number[]) => mine.map((value, i) => hundredths(value / theirs[i]!));
      // A round's ratio compares two runs a few seconds apart: its median is what a change is judged by.
      const figures = (kind: Kind) => {
        const fcallRatios = ratios(self.fcallUs[kind], other.fcallUs[kind]);
        const redisCpuRatios = ratios(self.redisCpuUs[kind], other.redisCpuUs[kind]);
        return {
          fcallUs: { other: hundredths(median(other.fcallUs[kind])), this: hundredths(median(self.fcallUs[kind])) },
          fcallRatio: hundredths(median(fcallRatios)),
          fcallRatioByRound: fcallRatios,
          redisCpuUs: { other: hundredths(median(other.redisCpuUs[kind])), this: hundredths(median(self.redisCpuUs[kind])) },
          redisCpuRatio: hundredths(median(redisCpuRatios)),
          redisCpuRatioByRound: redisCpuRatios,
          commandsPerCall: { other: other.commandsPerCall[kind], this: self.commandsPerCall[kind] },
        };
      };
      console.log(JSON.stringify({ other: resolve(otherDir), calls: CALLS, rounds: ROUNDS, book: figures('book'), release: figures('release'), seasonEvent: figures('seasonEvent') }));
    } finally {
      for (const side of sides) {
        side.clock.stop();
        side.redis.disconnect();
      }
    }
  },
  { appendOnly: true },
);
