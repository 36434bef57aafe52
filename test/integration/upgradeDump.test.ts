import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { areaState, FIELD_SEPARATOR, objectState } from '../../src/domain/objectStates.js';
import { planChange } from '../../src/domain/statusChangeRequest.js';
import { monthOf } from '../../src/domain/usedBuckets.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { HistoryStreams } from '../../src/inventory/historyStreams.js';
import { RedisClock } from '../../src/inventory/redisClock.js';
import { Scripts } from '../../src/inventory/scripts.js';
import { applyStatusChanges } from '../../src/inventory/statusChanges.js';
import { UsedObjects } from '../../src/inventory/usedObjects.js';
import { HistoryDrain } from '../../src/jobs/historyDrain.js';
import { StatusChangeHistory } from '../../src/metadata/statusChangeHistory.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { newDatabaseName } from '../support/harness.js';
import { storedHistory } from '../support/history.js';
import { streamChanges } from '../support/historyStream.js';

// An upgrade on a Redis written by an earlier version: test/fixtures/redis-dump/7e0664a.rdb
// is an event as the status function of 7e0664a left it (one history entry per change, not
// drained yet; test/fixtures/redis-dump/make.ts says what it holds and how it was made), with
// that version's function library loaded. This version reads its records, appends its own
// entries after the old ones, and drains both into MongoDB under one numbering, counting usage.

let dir: string;
let server: ChildServer;
let redis: Redis;
let mongo: MongoClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'upgrade-dump-'));
  copyFileSync(fileURLToPath(new URL('../fixtures/redis-dump/7e0664a.rdb', import.meta.url)), join(dir, 'dump.rdb'));
  server = await startRedisServer({ dir, appendOnly: false });
  redis = new Redis(server.url);
  mongo = new MongoClient(inject('mongoUrl'));
  await mongo.connect();
});

afterAll(async () => {
  redis?.disconnect();
  await mongo?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The dump's changes (number, label, status), as test/fixtures/redis-dump/make.ts made them. */
const OLD_CHANGES = [
  [1, 'A-1', 'booked'],
  [2, 'A-2', 'booked'],
  [3, 'A-1', 'free'],
  [4, 'A-3', 'reservedByToken'],
  [5, 'B-1', 'sold-elsewhere'],
  [6, 'GA1', 'booked'],
];

describe('a Redis written by 7e0664a (one history entry per change), after the upgrade', () => {
  it('answers with its records, numbers new changes after the old ones, and drains both', async () => {
    const event = { _id: 1, tag: '1', usedBuckets: 4, tableBookingConfig: { mode: 'INHERIT' as const } };
    const keys = eventKeys(event);
    const now = Date.now();
    // The records as the old version wrote them.
    expect(objectState(await redis.hget(keys.objects, 'A-2'), () => Infinity, now)).toMatchObject({ status: 'booked', orderId: 'o-1' });
    expect(await redis.hget(keys.objects, 'A-1')).toBeNull();
    expect(objectState(await redis.hget(keys.objects, 'A-3'), () => Infinity, now)).toMatchObject({ status: 'reservedByToken', holdToken: 'tok-1' });
    expect(areaState(await redis.hget(keys.objects, 'GA1'))).toMatchObject({ nonFree: 3, status: 'booked' });
    const old = await streamChanges(redis, keys.history);
    expect(old.map(({ seq, c }) => [seq, ...c.split(FIELD_SEPARATOR).slice(1, 3)])).toEqual(OLD_CHANGES);
    const then = Number(old[0]!.c.split(FIELD_SEPARATOR)[0]);

    // This version's status function (a library of its own beside the old one) goes on from there.
    const scripts = new Scripts(redis);
    const clock = new RedisClock(redis);
    const calls = new AtMostOnceCalls(scripts, redis, clock, { timeoutMs: 5_000, maxOutstanding: 100 });
    try {
      const index = buildObjectIndex(rowsWithoutSections);
      const refused = await applyStatusChanges(calls, [{ event, change: planChange(event, index, 'book', 'booked', ['A-2'], {}) }], now, false, { type: 'API_CALL' }, { _id: 7, companyId: 3 }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ status: 400, errors: [{ code: 'OBJECT_NOT_FREE' }] });
      await applyStatusChanges(calls, [{ event, change: planChange(event, index, 'book', 'booked', ['A-1', 'A-4'], {}) }], now, false, { type: 'API_CALL' }, { _id: 7, companyId: 3 });
    } finally {
      clock.stop();
    }
    const all = await streamChanges(redis, keys.history);
    expect(all.map(({ seq }) => seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(all.slice(6).map(({ c }) => c.split(FIELD_SEPARATOR)[1])).toEqual(['A-1', 'A-4']);
    expect(await scripts.streamLastEntry(keys.history)).toBe(8);

    // Drained: every change once, under its number; usage counted from old and new marks.
    const database = newDatabaseName();
    const streams = new HistoryStreams(redis, '');
    const used = new UsedObjects(redis, scripts);
    const drain = new HistoryDrain(streams, new StatusChangeHistory(mongo.db(database)), used);
    streams.noteChanged([event]);
    await streams.flush();
    expect((await drain.run()).stored).toBe(8);
    expect((await storedHistory(mongo, database, 1)).map((c) => [c.id, c.label, c.status])).toEqual([
      ...OLD_CHANGES,
      [7, 'A-1', 'booked'],
      [8, 'A-4', 'booked'],
    ]);
    expect(await redis.xlen(keys.history)).toBe(0);
    const months = [...new Set([monthOf(then), monthOf(now)])];
    const usedLabels = (await Promise.all(months.map((month) => used.usedObjects(event, month)))).flat();
    expect([...new Set(usedLabels)].sort()).toEqual(['A-1', 'A-2', 'A-3', 'A-4', 'B-1', 'GA1']);
  });
});
