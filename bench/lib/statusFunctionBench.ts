import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { buildObjectIndex, type ObjectIndex } from '../../src/domain/objectIndex.js';
import { usedBucketsFor } from '../../src/domain/usedBuckets.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import { RedisClock } from '../../src/inventory/redisClock.js';
import { Scripts } from '../../src/inventory/scripts.js';
import { generatedDrawing } from '../drawings.js';

// What the benches of the status function alone (bench/statusScript.ts, bench/statusPhases.ts)
// share: a private redis-server, the calls as the server makes them, and a chart of 100,000
// seats with an event as the server creates it (used-object buckets sized to the chart).

export interface StatusFunctionBench {
  /** The private redis-server's address, for more connections. */
  url: string;
  redis: Redis;
  scripts: Scripts;
  calls: AtMostOnceCalls;
  index: ObjectIndex;
  seats: string[];
  event: { _id: number; tag: string; usedBuckets: number; tableBookingConfig: { mode: 'INHERIT' } };
  owner: { _id: number; companyId: number };
}

/**
 * Runs `bench` on a private redis-server, stopped and removed after; with `appendOnly`, one
 * that keeps an append-only file as the on-sale bench's does (its writes cost that too).
 */
export async function withStatusFunctionBench(name: string, bench: (parts: StatusFunctionBench) => Promise<void>, options: { appendOnly?: boolean } = {}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const server = await startRedisServer({ dir, appendOnly: options.appendOnly ?? false });
  const redis = new Redis(server.url);
  const clock = new RedisClock(redis);
  try {
    const scripts = new Scripts(redis);
    // Every call alone, as a lone request of a turn goes: these benches measure one call's cost
    // (batches of one event's calls: bench/batchCost.ts).
    const calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000, batchAtMost: 1 });
    const index = buildObjectIndex(generatedDrawing({ sections: 10, rowsPerSection: 50, seatsPerRow: 200 }));
    const seats = index.objects.filter((o) => o.objectType === 'seat').map((o) => o.label);
    const event = { _id: 1, tag: '1', usedBuckets: usedBucketsFor(index.objects.length), tableBookingConfig: { mode: 'INHERIT' as const } };
    await bench({ url: server.url, redis, scripts, calls, index, seats, event, owner: { _id: 1, companyId: 1 } });
  } finally {
    clock.stop();
    redis.disconnect();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `count` calls of `call` (given each one's number), 100 in flight at a time, as a server batches them. */
export async function inFlight(count: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      for (let i = next++; i < count; i = next++) await call(i);
    }),
  );
}

/**
 * One record per event id, made by `make` the first time: the server's catalog keeps one
 * object per event, and the calls keep per-event state by it (the record hash of
 * src/inventory/atMostOnce.ts), which a new object per call would hide.
 */
export function eventRecords<T extends object>(): (id: number, make: () => T) => T {
  const records = new Map<number, T>();
  return (id, make) => {
    let record = records.get(id);
    if (record === undefined) records.set(id, (record = make()));
    return record;
  };
}
