import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { buildObjectIndex } from '../src/domain/objectIndex.js';
import { planChange } from '../src/domain/statusChangeRequest.js';
import { usedBucketsFor } from '../src/domain/usedBuckets.js';
import { startMongoServer } from '../src/embedded/mongoServer.js';
import { startRedisServer } from '../src/embedded/redisServer.js';
import { AtMostOnceCalls } from '../src/inventory/atMostOnce.js';
import { HistoryStreams } from '../src/inventory/historyStreams.js';
import { RedisClock } from '../src/inventory/redisClock.js';
import { Scripts } from '../src/inventory/scripts.js';
import { applyStatusChanges } from '../src/inventory/statusChanges.js';
import { UsedObjects } from '../src/inventory/usedObjects.js';
import { HistoryDrain } from '../src/jobs/historyDrain.js';
import { StatusChangeHistory } from '../src/metadata/statusChangeHistory.js';
import { generatedDrawing } from './drawings.js';
import { median } from './lib/median.js';

// `npm run bench:drain`: what the history drain (docs/history.md) costs per 2-seat booking,
// alone: each round books BOOKINGS pairs of seats through the status function (with nothing
// draining), then times the drain's runs until every entry is stored in MongoDB. Reported
// per booking: this process's CPU while draining (what the drain costs a server process on
// the event loop and V8's helper threads), and Redis's. The median of ROUNDS rounds, one JSON
// line. In the on-sale bench the drain shares the server with the bookings, so there its cost
// shows as server CPU per booking (docs/performance.md, "The drain").

const BOOKINGS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
/** A file to write a V8 CPU profile of the drain's runs to (all rounds), for DevTools. */
const PROFILE = process.argv[4];

const dir = mkdtempSync(join(tmpdir(), 'bench-drain-'));
const redisServer = await startRedisServer({ dir, appendOnly: false });
const mongoServer = await startMongoServer();
const redis = new Redis(redisServer.url);
const mongo = new MongoClient(mongoServer.url);
try {
  const scripts = new Scripts(redis);
  const clock = new RedisClock(redis);
  const calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000 });
  const streams = new HistoryStreams(redis, '');
  const drain = new HistoryDrain(streams, new StatusChangeHistory(mongo.db('bench')), new UsedObjects(redis, scripts));
  const index = buildObjectIndex(generatedDrawing({ sections: 10, rowsPerSection: 50, seatsPerRow: 200 }));
  const seats = index.objects.filter((o) => o.objectType === 'seat').map((o) => o.label);
  const base = { tag: '', usedBuckets: usedBucketsFor(index.objects.length), tableBookingConfig: { mode: 'INHERIT' as const } };
  const redisCpu = async () => {
    const info = await redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)![1]);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
  };

  const profiler = PROFILE ? new Session() : undefined;
  profiler?.connect();
  if (profiler) await profiler.post('Profiler.enable');
  if (profiler) await profiler.post('Profiler.setSamplingInterval', { interval: 50 });
  const profiles: object[] = [];
  const round = async (r: number) => {
    const events = new Set<{ _id: number; tag: string }>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = next++; i < BOOKINGS; i = next++) {
          const _id = 1 + r * 1000 + Math.floor((2 * i) / seats.length);
          const event = { ...base, _id, tag: String(_id) };
          events.add(event);
          const change = planChange(event, index, 'book', 'booked', [seats[(2 * i) % seats.length]!, seats[(2 * i + 1) % seats.length]!], {});
          await applyStatusChanges(calls, [{ event, change }], Date.now(), false, { type: 'API_CALL', ip: '127.0.0.1' }, { _id: 1, companyId: 1 });
        }
      }),
    );
    streams.noteChanged([...events]);
    await streams.flush();
    if (profiler) await profiler.post('Profiler.start');
    const redisBefore = await redisCpu();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let stored = 0;
    for (;;) {
      const run = await drain.run();
      stored += run.stored;
      if (run.stored === 0 && run.unfinished === 0) break;
    }
    const cpu = process.cpuUsage(cpuBefore);
    if (profiler) profiles.push((await profiler.post('Profiler.stop')).profile);
    const ms = performance.now() - started;
    const redisUs = (await redisCpu()) - redisBefore;
    if (stored !== 2 * BOOKINGS) throw new Error(`the drain stored ${stored} changes, not ${2 * BOOKINGS}`);
    return { serverUs: (cpu.user + cpu.system) / BOOKINGS, redisUs: redisUs / BOOKINGS, ms };
  };

  const results: { serverUs: number; redisUs: number; ms: number }[] = [];
  for (let r = 0; r < ROUNDS; r++) results.push(await round(r));
  clock.stop();
  // The last round's profile: the first rounds run code V8 has not optimised yet.
  if (PROFILE) writeFileSync(PROFILE, JSON.stringify(profiles[profiles.length - 1]));
  const med = (pick: (x: (typeof results)[number]) => number) => Math.round(median(results.map(pick)) * 10) / 10;
  console.log(
    JSON.stringify({
      bookings: BOOKINGS,
      rounds: ROUNDS,
      drainServerCpuUsPerBooking: med((x) => x.serverUs),
      drainRedisCpuUsPerBooking: med((x) => x.redisUs),
      drainMsPerRound: med((x) => x.ms),
      serverUsPerRound: results.map((x) => Math.round(x.serverUs * 10) / 10),
    }),
  );
} finally {
  redis.disconnect();
  await mongo.close();
  await mongoServer.stop();
  await redisServer.stop();
  rmSync(dir, { recursive: true, force: true });
}
