import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { buildObjectIndex } from '../src/domain/objectIndex.js';
import { planChange } from '../src/domain/statusChangeRequest.js';
import { usedBucketsFor } from '../src/domain/usedBuckets.js';
import { startRedisServer } from '../src/embedded/redisServer.js';
import { AtMostOnceCalls } from '../src/inventory/atMostOnce.js';
import { RedisClock } from '../src/inventory/redisClock.js';
import { Scripts, statusLibrary } from '../src/inventory/scripts.js';
import { applyPlainChange } from '../src/inventory/statusChanges.js';
import { generatedDrawing } from './drawings.js';
import { FUNCTION as REFERENCE_FUNCTION, LUA as REFERENCE_LUA } from './reference/bookFunction.js';
import { commandStats } from './lib/commandStats.js';
import { median } from './lib/median.js';

// `npm run bench:phases`: where Redis's time goes in the status function's call for a plain
// 2-seat booking (book2's call, src/inventory/plainRequest.ts). The function's library is
// loaded again with `do return 1 end` put in after one phase of the call (PHASES: a line of
// the assembled source, lua/), so each figure is what the call costs up to that point (FCALL's
// µs per call, INFO commandstats), and `inner` the part of it spent in the commands the
// function called (what commandstats counts for each of them). What is neither is Lua and the
// cost of each redis.call() itself. An empty function with as many arguments is the floor, and
// the lean reference's function (bench/reference/bookFunction.ts) booking the same seats the yardstick.
// Rounds alternate the phases, as the machine's speed moves between minutes
// (docs/performance.md, "Where Redis's time goes in a booking's call"). One JSON line.

const CALLS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 3);

/** A phase: its name, and the line of the source after which the call returns (none: the whole call). */
const PHASES: [string, string | undefined][] = [
  ['arguments', '  KEYS, ARGV, now, nowText, request = keys, args, tonumber(args[ARG_NOW]), args[ARG_NOW], nil\n'],
  ['deadline', '  if pastDeadline() then return { -1 } end\n'],
  ['saleConfig', "  if redis.call('EXISTS', KEYS[EVENT_KEY_SALE_CONFIG]) == 1 then return nil, true end\n"],
  ['records', "  local stored = redis.call('HMGET', objectsKey, unpack(labels, first, last))\n"],
  ['checks', '    values[i] = value\n  end\n'],
  ['writes', '  deleteFields(KEYS[EVENT_KEY_EXTRA_DATA], { unpack(labels, first, last) })\n'],
  ['history', "    noteEntry(stream, labels[i], statuses[i], 1, orderId, token, API_CALL, ip, '', usage)\n  end\n  writeHistory()\n"],
  ['whole call', undefined],
];

const dir = mkdtempSync(join(tmpdir(), 'bench-phases-'));
const server = await startRedisServer({ dir, appendOnly: false });
const redis = new Redis(server.url);
try {
  const scripts = new Scripts(redis);
  const clock = new RedisClock(redis);
  const calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000 });
  const index = buildObjectIndex(generatedDrawing({ sections: 10, rowsPerSection: 50, seatsPerRow: 200 }));
  const seats = index.objects.filter((o) => o.objectType === 'seat').map((o) => o.label);
  const event = { _id: 1, tag: '1', usedBuckets: usedBucketsFor(index.objects.length), tableBookingConfig: { mode: 'INHERIT' as const } };
  const owner = { _id: 1, companyId: 1 };
  const library = statusLibrary();
  const sources = PHASES.map(([name, line]) => {
    if (line === undefined) return library.source;
    if (!library.source.includes(line)) throw new Error(`bench:phases: the phase "${name}" names a line the status function no longer has; update PHASES`);
    return library.source.replace(line, `${line}  do return 1 end\n`);
  });

  /** FCALL's µs per call since the stats were reset, and the part spent in the commands it called. */
  const fcallTimes = async (): Promise<{ usPerCall: number; innerUsPerCall: number }> => {
    let fcall = { calls: 1, usec: 0 };
    let inner = 0;
    for (const [name, stats] of await commandStats(redis)) {
      if (name === 'fcall') fcall = stats;
      else if (name !== 'config' && name !== 'function') inner += stats.usec;
    }
    return { usPerCall: fcall.usec / fcall.calls, innerUsPerCall: inner / fcall.calls };
  };

  let events = 0;
  /** CALLS bookings of 2 free seats each, 100 in flight; FCALL's and the called commands' µs per call. */
  const round = async (): Promise<{ usPerCall: number; innerUsPerCall: number }> => {
    await redis.config('RESETSTAT');
    const first = (events += 100);
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = next++; i < CALLS; i = next++) {
          const _id = first + Math.floor((2 * i) / seats.length);
          const change = planChange(event, index, 'book', 'booked', [seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!], {});
          await new Promise((resolve, reject) => applyPlainChange(calls, { event: { ...event, _id, tag: String(_id) }, change }, Date.now(), '127.0.0.1', owner, { resolve, reject }));
        }
      }),
    );
    return fcallTimes();
  };

  await round(); // loads the function and warms both sides
  const measured = PHASES.map(() => [] as { usPerCall: number; innerUsPerCall: number }[]);
  for (let r = 0; r < ROUNDS; r++) {
    for (let p = 0; p < PHASES.length; p++) {
      await redis.call('FUNCTION', 'LOAD', 'REPLACE', sources[p]!);
      measured[p]!.push(await round());
    }
  }
  // The floor: an empty function given the same number of keys and arguments.
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', `#!lua name=bench_empty\nredis.register_function('bench_empty', function() return 1 end)\n`);
  const floor: number[] = [];
  const KEYS_AND_ARGUMENTS = [...Array.from({ length: 8 }, (_, j) => `inv:{1}:key-${j}`), ...Array.from({ length: 16 }, (_, j) => `argument-${j}`)];
  for (let r = 0; r < ROUNDS; r++) {
    await redis.config('RESETSTAT');
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = next++; i < CALLS; i = next++) await redis.fcall('bench_empty', 8, ...KEYS_AND_ARGUMENTS);
      }),
    );
    const stats = (await commandStats(redis)).get('fcall')!;
    floor.push(stats.usec / stats.calls);
  }
  // The lean reference's function (bench/reference/bookFunction.ts), booking the same seats.
  await redis.call('FUNCTION', 'LOAD', 'REPLACE', REFERENCE_LUA);
  const reference: { usPerCall: number; innerUsPerCall: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    await redis.config('RESETSTAT');
    const first = (events += 100);
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = next++; i < CALLS; i = next++) {
          const at = first + Math.floor((2 * i) / seats.length);
          await redis.fcall(REFERENCE_FUNCTION, 3, `ref:{${at}}:objects`, `ref:{${at}}:history`, `ref:{${at}}:request:${i}`, Date.now(), 10_000, seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!);
        }
      }),
    );
    reference.push(await fcallTimes());
  }
  clock.stop();
  const round1 = (n: number) => Math.round(n * 10) / 10;
  console.log(
    JSON.stringify({
      calls: CALLS,
      rounds: ROUNDS,
      emptyFunctionUsPerCall: round1(median(floor)),
      referenceFunction: { usPerCall: round1(median(reference.map((m) => m.usPerCall))), innerUsPerCall: round1(median(reference.map((m) => m.innerUsPerCall))) },
      phases: Object.fromEntries(
        PHASES.map(([name], p) => [name, { usPerCall: round1(median(measured[p]!.map((m) => m.usPerCall))), innerUsPerCall: round1(median(measured[p]!.map((m) => m.innerUsPerCall))) }]),
      ),
    }),
  );
} finally {
  redis.disconnect();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
