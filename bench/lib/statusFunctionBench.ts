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
  redis: Redis;
  scripts: Scripts;
  calls: AtMostOnceCalls;
  index: ObjectIndex;
  seats: string[];
  event: { _id: number; tag: string; usedBuckets: number; tableBookingConfig: { mode: 'INHERIT' } };
  owner: { _id: number; companyId: number };
}

/** Runs `bench` on a private redis-server, stopped and removed after. */
export async function withStatusFunctionBench(name: string, bench: (parts: StatusFunctionBench) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const server = await startRedisServer({ dir, appendOnly: false });
  const redis = new Redis(server.url);
  const clock = new RedisClock(redis);
  try {
    const scripts = new Scripts(redis);
    const calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 10_000, maxOutstanding: 100_000 });
    const index = buildObjectIndex(generatedDrawing({ sections: 10, rowsPerSection: 50, seatsPerRow: 200 }));
    const seats = index.objects.filter((o) => o.objectType === 'seat').map((o) => o.label);
    const event = { _id: 1, tag: '1', usedBuckets: usedBucketsFor(index.objects.length), tableBookingConfig: { mode: 'INHERIT' as const } };
    await bench({ redis, scripts, calls, index, seats, event, owner: { _id: 1, companyId: 1 } });
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
