import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generatedDrawing, rowLabel } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { storedHistory } from '../support/history.js';
import { retrieveEvent } from '../support/eventAdmin.js';
import { action, createEvent, done } from '../support/events.js';
import { call, client, createCompanyClients, newDatabaseName, eventually, gaugesNamed, mongoThroughProxy, spawnWorker, startTestServer, testEnv, testRedis, type CompanyClients, type SpawnedWorker, type TestServer } from '../support/harness.js';
import { RedisMonitor } from '../support/redisMonitor.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';
import { ENTRY_SEPARATOR } from '../../src/domain/statusChangeHistory.js';
import { StatusChangeHistory } from '../../src/metadata/statusChangeHistory.js';
import { HistoryStreams } from '../../src/inventory/historyStreams.js';
import { historyRange } from '../../src/inventory/historyFollower.js';
import { HistoryDrain } from '../../src/jobs/historyDrain.js';
import { Scripts } from '../../src/inventory/scripts.js';
import { UsedObjects } from '../../src/inventory/usedObjects.js';

// The drain of the history streams into MongoDB (docs/history.md), on real servers: a
// server without background jobs and `npm run worker` processes beside it, a worker killed
// mid-drain, MongoDB cut off under booking load, two servers draining at once.

const ROWS = 40;
const SEATS = 50;
const drawing = generatedDrawing({ sections: 0, rowsPerSection: ROWS, seatsPerRow: SEATS });
const seat = (i: number) => `${rowLabel(Math.floor(i / SEATS))}-${(i % SEATS) + 1}`;

let mongo: MongoClient;
const workers: SpawnedWorker[] = [];
const servers: TestServer[] = [];

beforeAll(async () => {
  mongo = new MongoClient(inject('mongoUrl'));
  await mongo.connect();
});

afterAll(async () => {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(servers.map((server) => server.stop()));
  await mongo.close();
});

async function server(env: Record<string, string>): Promise<TestServer> {
  const started = await startTestServer(env);
  servers.push(started);
  return started;
}

async function worker(env: Record<string, string>): Promise<SpawnedWorker> {
  const started = await spawnWorker(env);
  workers.push(started);
  return started;
}

const stored = (database: string, eventId: number) => storedHistory(mongo, database, eventId);

/** A server without background jobs (BACKGROUND_JOBS=off: workers are started beside it), and an event of it to book, with its id. */
async function eventOnServerWithoutJobs() {
  const env = testEnv({ BACKGROUND_JOBS: 'off' });
  const app = await server(env);
  const clients = await createCompanyClients(app.url);
  const chart = (await uploadDrawing(clients.api, drawing)).key;
  const event = await createEvent(clients.api, chart);
  const { id } = await retrieveEvent(clients.api, event);
  return { env, app, clients, event, id };
}

/** The history drain's gauges in /metrics. */
const metrics = (url: string) => gaugesNamed(url, 'history_');

/** Books seats first..first+count-1, one request each, `concurrency` at a time. */
async function bookEach(clients: CompanyClients, eventKey: string, first: number, count: number, concurrency = 20): Promise<void> {
  let next = first;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < first + count) await done(clients.api, eventKey, 'book', { objects: [seat(next++)] });
    }),
  );
}

/** Runs `use` on a Redis connection in a namespace of its own (`<name>-<pid>-<time>:`), disconnected after. */
async function withOwnRedis(name: string, use: (redis: ReturnType<typeof testRedis>, prefix: string) => Promise<void>): Promise<void> {
  const prefix = `${name}-${process.pid}-${Date.now()}:`;
  const redis = testRedis(prefix);
  try {
    await use(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

/** A history stream entry's `c` field (lua/includes/historyEntries.lua): object A-<n> given `status` at time 1000 by an API call. */
const historyEntry = (n: number, status = 'booked') => ['1000', `A-${n}`, status, '1', '', '', 'API_CALL', '', ''].join(FIELD_SEPARATOR);

/** Every change 1..count stored exactly once, and the seats booked each recorded once. */
function expectWhole(history: { id: number; label: string; status: string }[], count: number): void {
  expect(history.map((h) => h.id)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  expect(new Set(history.map((h) => h.label)).size).toBe(count);
  expect(history.every((h) => h.status === 'booked')).toBe(true);
}

describe('history drain', () => {
  it('stores a batch read twice from the head of a stream once, and says how far it is stored', async () => {
    const history = new StatusChangeHistory(mongo.db(newDatabaseName()));
    const batch = (first: number, ...statuses: string[]) => ({ first, last: first + statuses.length - 1, entries: statuses.map((status, i) => historyEntry(first + i, status)).join(ENTRY_SEPARATOR) });
    expect(await history.store(7, [batch(1, 'booked', 'booked')])).toEqual({ last: 2, inserted: 2 });
    // Read again from the same head, with more behind it: the first copy stands, up to 2.
    expect(await history.store(7, [batch(1, 'changed', 'changed', 'booked')])).toEqual({ last: 2, inserted: 0 });
    // Several batches in one write.
    expect(await history.store(7, [batch(3, 'booked'), batch(4, 'booked', 'booked')])).toEqual({ last: 5, inserted: 3 });
    // A write whose second batch was stored before (here by a drain that read it alone):
    // the first is stored, and the earlier copy of the second says how far.
    expect(await history.store(7, [batch(8, 'booked')])).toEqual({ last: 8, inserted: 1 });
    expect(await history.store(7, [batch(6, 'booked', 'booked'), batch(8, 'changed', 'changed'), batch(10, 'changed')])).toEqual({ last: 8, inserted: 2 });
    const page = await history.page(7, { direction: 'first', limit: 10 }, { field: 'id', ascending: true }, {});
    expect(page.items.map((r) => [r.id, r.status])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((id) => [id, 'booked']));
  });

  it('keeps /ready 200 while nothing drains, shows the lag in /metrics, and catches up when a worker starts', async () => {
    const { env, app, clients, event, id } = await eventOnServerWithoutJobs();
    await bookEach(clients, event, 0, 30);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await call(app.url, 'GET', '/ready')).status).toBe(200);
    const behind = await metrics(app.url);
    expect(behind.history_pending_streams).toBe(1);
    expect(behind.history_drain_lag_seconds).toBeGreaterThanOrEqual(1);
    expect(await stored(env.MONGODB_DB!, id)).toEqual([]);

    await worker(env);
    await eventually(async () => (await stored(env.MONGODB_DB!, id)).length === 30, 10_000, 50);
    expectWhole(await stored(env.MONGODB_DB!, id), 30);
    // A run takes the stream off the pending list before it adds what it stored to the
    // counter (src/jobs/historyDrain.ts), so wait for both.
    await eventually(async () => {
      const gauges = await metrics(app.url);
      return gauges.history_pending_streams === 0 && (gauges.history_changes_stored_total ?? 0) >= 30;
    }, 5_000, 50);
    const caughtUp = await metrics(app.url);
    expect(caughtUp.history_drain_lag_seconds).toBe(0);
    expect(caughtUp.history_changes_stored_total).toBe(30);
  });

  it('loses and repeats nothing when the worker is killed mid-drain and started again', async () => {
    const { env, clients, event, id } = await eventOnServerWithoutJobs();
    const first = await worker(env);
    const total = 1_500;
    const booking = bookEach(clients, event, 0, total);
    await eventually(async () => (await stored(env.MONGODB_DB!, id)).length >= 100, 20_000, 5);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = (await stored(env.MONGODB_DB!, id)).length;
    await booking;
    expect(atKill).toBeLessThan(total);
    await worker(env);
    await eventually(async () => (await stored(env.MONGODB_DB!, id)).length === total, 20_000, 50);
    expectWhole(await stored(env.MONGODB_DB!, id), total);
  });

  it('runs the drain every 200 ms within one job (a turn), and a stopped worker ends its turn at once', async () => {
    const { env, clients, event, id } = await eventOnServerWithoutJobs();
    const jobs = await worker(env);
    const redis = testRedis(env.REDIS_KEY_PREFIX);
    try {
      // BullMQ notes each job it starts in the queue's event stream (`event active`).
      const eventsKey = 'bull:{history}:events';
      const activeDrainJobs = async (after: string) =>
        (await redis.xrange(eventsKey, `(${after}`, '+')).filter(([, fields]) => fields[1] === 'active' && (fields[3] ?? '').includes('drain')).length;
      await eventually(async () => (await redis.hget('history:drain', 'at')) !== null, 5_000);
      const [[since] = ['0-0']] = await redis.xrevrange(eventsKey, '+', '-', 'COUNT', 1);
      // Each run writes its start time; 2 s of runs, bookings stored as they come.
      const runs = new Set<string>();
      const watching = (async () => {
        for (const until = Date.now() + 2_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) runs.add((await redis.hget('history:drain', 'at'))!);
      })();
      await bookEach(clients, event, 0, 10);
      await eventually(async () => (await stored(env.MONGODB_DB!, id)).length === 10, 2_000, 20);
      await watching;
      expect(runs.size).toBeGreaterThanOrEqual(6);
      // At most one turn ended and the next began in those 2 s (a turn is 5 s).
      expect(await activeDrainJobs(since)).toBeLessThanOrEqual(1);

      const stopping = Date.now();
      jobs.child.kill('SIGTERM');
      expect(await jobs.exited).toBe(0);
      // Without ending the turn, stopping waits for it (up to the 2 s the jobs get to close).
      expect(Date.now() - stopping).toBeLessThan(1_500);
      expect(jobs.output()).not.toContain('background job failed');
    } finally {
      redis.disconnect();
    }
  });

  it('stores every change, in order per object, after MongoDB was unreachable under booking load', async () => {
    const { proxy, url } = await mongoThroughProxy();
    try {
      // A booking that waits past REDIS_TIMEOUT_MS answers 503 (docs/faults.md). Beside the
      // suite's load tests one of these 300 once answered something else than 204; the deadline
      // is not what this test looks at, so it is long here.
      const env = testEnv({ MONGODB_URL: url, REDIS_TIMEOUT_MS: '15000' });
      const app = await server(env);
      const clients = await createCompanyClients(app.url);
      const chart = (await uploadDrawing(clients.api, drawing)).key;
      const event = await createEvent(clients.api, chart);
      const { id } = await retrieveEvent(clients.api, event);
      // The month's first booking of an event records the event as in use (MongoDB); made before the cut.
      await done(clients.api, event, 'book', { objects: [seat(1_999)] });
      await eventually(async () => (await stored(env.MONGODB_DB!, id)).length === 1, 5_000, 20);

      proxy.cut();
      // Each of 100 seats booked, released and booked again, in that order; the seats concurrently.
      const steps = ['book', 'release', 'book'] as const;
      const answers = await Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const statuses: number[] = [];
          for (const step of steps) statuses.push((await action(clients.api, event, step, { objects: [seat(i)] })).status);
          return statuses;
        }),
      );
      expect(answers.flat().filter((status) => status !== 204)).toEqual([]);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await metrics(app.url)).toMatchObject({ history_pending_streams: 1 });
      proxy.restore();

      await eventually(async () => (await stored(env.MONGODB_DB!, id)).length === 301, 30_000, 100);
      const history = await stored(env.MONGODB_DB!, id);
      expect(history.map((h) => h.id)).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
      for (let i = 0; i < 100; i++) {
        expect(history.filter((h) => h.label === seat(i)).map((h) => h.status), seat(i)).toEqual(['booked', 'free', 'booked']);
      }
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('drains with two servers at once, storing each change once', async () => {
    const env = testEnv();
    const [one, two] = [await server(env), await server(env)];
    const clients = await createCompanyClients(one.url);
    const chart = (await uploadDrawing(clients.api, drawing)).key;
    const events = [await createEvent(clients.api, chart), await createEvent(clients.api, chart)];
    // Both servers take bookings of both events, and both run a drain.
    const viaTwo: CompanyClients = { ...clients, api: client(two.url, clients.company.workspace.secretKey) };
    await Promise.all(events.flatMap((event) => [bookEach(clients, event, 0, 200), bookEach(viaTwo, event, 200, 200)]));
    for (const event of events) {
      const { id } = await retrieveEvent(clients.api, event);
      await eventually(async () => (await stored(env.MONGODB_DB!, id)).length === 400, 15_000, 50);
      expectWhole(await stored(env.MONGODB_DB!, id), 400);
    }
  });

  it('works on a stream one drain at a time: another skips it until it is given back, or its holder died and the lease ran out', async () => {
    await withOwnRedis('drainLease', async (redis, prefix) => {
      const leaseMs = 300;
      const streams = new HistoryStreams(redis, prefix, leaseMs);
      const database = newDatabaseName();
      const drain = new HistoryDrain(streams, new StatusChangeHistory(mongo.db(database)), new UsedObjects(redis, new Scripts(redis)));
      const key = 'inv:{41}:41:history';
      for (let n = 1; n <= 3; n++) await redis.xadd(key, '0-*', 'c', historyEntry(n));
      streams.noteChanged([{ _id: 41, tag: '41' }]);
      await streams.flush();

      // Another drain has the stream: this one leaves it alone, stored and listed as it was.
      expect(await streams.take(key)).toBe(true);
      expect(await drain.run()).toEqual({ stored: 0, unfinished: 0, busy: 1 });
      expect(await stored(database, 41)).toEqual([]);
      expect(await redis.xlen(key)).toBe(3);
      // Given back, the next run drains it.
      await streams.giveBack(key);
      expect(await drain.run()).toEqual({ stored: 3, unfinished: 0, busy: 0 });
      expect((await stored(database, 41)).map((c) => c.label)).toEqual(['A-1', 'A-2', 'A-3']);

      // A drain that took the stream and died: the others wait for its lease to run out.
      await redis.xadd(key, '0-*', 'c', historyEntry(4));
      streams.noteChanged([{ _id: 41, tag: '41' }]);
      await streams.flush();
      expect(await streams.take(key)).toBe(true);
      expect((await drain.run()).busy).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, leaseMs + 50));
      expect(await drain.run()).toEqual({ stored: 1, unfinished: 0, busy: 0 });
      expect((await stored(database, 41)).map((c) => c.id)).toEqual([1, 2, 3, 4]);
      expect(await redis.exists(`${key}:drainLease`)).toBe(0);
    });
  });

  it('a sweep finds the streams whose hint was lost (a crash within the 50 ms before hints are sent), and the drain stores them', async () => {
    await withOwnRedis('drainSweep', async (redis, prefix) => {
      const streams = new HistoryStreams(redis, prefix);
      const database = newDatabaseName();
      const drain = new HistoryDrain(streams, new StatusChangeHistory(mongo.db(database)), new UsedObjects(redis, new Scripts(redis)));
      const lost = 'inv:{43}:43:history';
      const empty = 'inv:{44}:44:history';
      // Entries with no hint, as a server that died before flushing its hints leaves them; and
      // a stream that was drained empty, which the sweep leaves off the list.
      for (let n = 1; n <= 2; n++) await redis.xadd(lost, '0-*', 'c', historyEntry(n));
      await redis.xadd(empty, '0-*', 'c', historyEntry(1));
      await redis.xtrim(empty, 'MAXLEN', 0);
      expect(await drain.run()).toEqual({ stored: 0, unfinished: 0, busy: 0 });
      expect(await streams.sweep()).toBe(1);
      expect(await drain.run()).toEqual({ stored: 2, unfinished: 0, busy: 0 });
      expect((await stored(database, 43)).map((c) => c.label)).toEqual(['A-1', 'A-2']);
      expect(await stored(database, 44)).toEqual([]);
    });
  });

  it('reads a batch as its texts and marks, and counts each used entry under its own mark and month', async () => {
    await withOwnRedis('drainMarks', async (redis, prefix) => {
      const streams = new HistoryStreams(redis, prefix);
      const event = { _id: 42, tag: '42' };
      const key = 'inv:{42}:42:history';
      const march = Date.UTC(2026, 2, 31, 23, 59, 59, 999);
      const april = march + 1;
      const entry = (time: number, label: string) => [String(time), label, 'booked', '1', '', '', 'API_CALL', '', ''].join(FIELD_SEPARATOR);
      // Two owners' marks (one bucket each), an unmarked release, labels outside ASCII, two
      // months; entries as the status function writes them (the field named by the mark) and
      // as older servers did (`c`, then the mark as a field `u`), in one batch.
      await redis.xadd(key, '0-*', '1:7:3', entry(march, 'Ä-1'));
      await redis.xadd(key, '0-*', 'c', entry(march, 'B-1'), 'u', '1:8:3');
      await redis.xadd(key, '0-*', 'c', [String(march), 'Ä-1', 'free', '1', '', '', 'API_CALL', '', ''].join(FIELD_SEPARATOR));
      await redis.xadd(key, '0-*', 'c', entry(april, '席-2'), 'u', '1:7:3');

      const batch = await streams.oldest(key, 10);
      expect(batch).toMatchObject({ first: 1, last: 4, marks: ['1:7:3', '1:8:3'] });
      expect(batch!.marked.length).toBe(4);
      expect(batch!.marked[2]).toBe('.');
      expect(batch!.marked[0]).toBe(batch!.marked[3]);
      expect(batch!.entries.split(ENTRY_SEPARATOR).map((c) => c.split(FIELD_SEPARATOR)[1])).toEqual(['Ä-1', 'B-1', 'Ä-1', '席-2']);
      expect((await streams.oldest(key, 10, 3))).toMatchObject({ first: 4, last: 4, marks: ['1:7:3'] });
      expect(await streams.oldest(key, 10, 4)).toBeNull();

      const used = new UsedObjects(redis, new Scripts(redis));
      await used.countDrained(event, batch!);
      // A month counts in the workspace of its first marked entry, each label once.
      expect((await used.usedObjects(event, '2026-03')).sort()).toEqual(['B-1', 'Ä-1'].sort());
      expect(await used.usedObjects(event, '2026-04')).toEqual(['席-2']);
      expect(await used.eventsInUse(7, '2026-03')).toEqual([42]);
      expect(await used.eventsInUse(7, '2026-04')).toEqual([42]);

      // The next batch of the event and month: counted, without writing the workspace's lists again.
      await redis.xadd(key, '0-*', '1:7:3', entry(april, 'C-3'));
      // Under this file's prefix: MONITOR shows the other files' commands too, and theirs name seats C-3 as well.
      const counting = (args: string[]) => args.includes('C-3') && args.some((arg) => arg.startsWith(prefix));
      const commands = await RedisMonitor.commandsWhile(async () => used.countDrained(event, (await streams.oldest(key, 10, 4))!), counting);
      // The count script's call (and its HSET of the label, which MONITOR shows too).
      expect(commands.filter((args) => counting(args) && args[0]?.toLowerCase() === 'evalsha')).toHaveLength(1);
      expect(commands.filter((args) => args[0]?.toLowerCase() === 'sadd' && args[1]!.startsWith(`${prefix}usage:`))).toEqual([]);
      expect((await used.usedObjects(event, '2026-04')).sort()).toEqual(['C-3', '席-2'].sort());
      // One mark over two months (a batch read across midnight UTC at a month's end): each month its own labels.
      const across = 'inv:{42}:42:history-across';
      await redis.xadd(across, '0-*', '1:7:3', entry(march, 'D-1'));
      await redis.xadd(across, '0-*', '1:7:3', [entry(march, 'D-2'), entry(april, 'D-3')].join(ENTRY_SEPARATOR));
      await used.countDrained(event, (await streams.oldest(across, 10))!);
      expect((await used.usedObjects(event, '2026-03')).sort()).toEqual(['B-1', 'D-1', 'D-2', 'Ä-1'].sort());
      expect((await used.usedObjects(event, '2026-04')).sort()).toEqual(['C-3', 'D-3', '席-2'].sort());
      // Another process (its own UsedObjects) writes them with its first batch.
      await redis.del('usage:{ws7}:2026-04');
      await new UsedObjects(redis, new Scripts(redis)).countDrained(event, (await streams.oldest(key, 10, 4))!);
      expect(await used.eventsInUse(7, '2026-04')).toEqual([42]);
    });
  });

  it('reads whole entries of one or more changes, old single-change entries among them, and stores every change under its own number', async () => {
    await withOwnRedis('drainEntries', async (redis, prefix) => {
      const streams = new HistoryStreams(redis, prefix);
      const key = 'inv:{43}:43:history';
      // Two entries as written before entries were shared, one of three changes (as the status
      // function writes it: numbered by its first, the stream moved past its last), one more.
      await redis.xadd(key, '0-*', 'c', historyEntry(1));
      await redis.xadd(key, '0-*', 'c', historyEntry(2));
      await redis.xadd(key, '0-*', 'c', [3, 4, 5].map((n) => historyEntry(n)).join(ENTRY_SEPARATOR), 'u', '1:7:3');
      await redis.xsetid(key, '0-5');
      await redis.xadd(key, '0-*', 'c', historyEntry(6));

      // At most `count` changes, in whole entries; one entry of more stands alone.
      const labels = (batch: { entries: string } | null) => batch!.entries.split(ENTRY_SEPARATOR).map((c) => c.split(FIELD_SEPARATOR)[1]);
      const first = await streams.oldest(key, 4);
      expect(first).toMatchObject({ first: 1, last: 2, marked: '..' });
      expect(labels(first)).toEqual(['A-1', 'A-2']);
      const second = await streams.oldest(key, 4, 2);
      expect(second).toMatchObject({ first: 3, last: 6, marks: ['1:7:3'] });
      expect(second!.marked).toBe(second!.marked[0]!.repeat(3) + '.');
      expect(labels(second)).toEqual(['A-3', 'A-4', 'A-5', 'A-6']);
      expect(await streams.oldest(key, 2, 2)).toMatchObject({ first: 3, last: 5 });
      expect(await streams.oldest(key, 4, 6)).toBeNull();

      // The live stream's range from the stream, from within an entry too.
      const range = historyRange(redis, new StatusChangeHistory(mongo.db(newDatabaseName())));
      expect((await range({ _id: 43, tag: '43' }, 3, 6))!.map((e) => [e.seq, (e.entry as { label: string }).label])).toEqual([
        [4, 'A-4'],
        [5, 'A-5'],
        [6, 'A-6'],
      ]);

      // Drained: every change once, numbered 1..6, the stream trimmed.
      const database = newDatabaseName();
      const drain = new HistoryDrain(streams, new StatusChangeHistory(mongo.db(database)), new UsedObjects(redis, new Scripts(redis)));
      streams.noteChanged([{ _id: 43, tag: '43' }]);
      await streams.flush();
      expect((await drain.run()).stored).toBe(6);
      expect((await stored(database, 43)).map((c) => [c.id, c.label])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, `A-${n}`]));
      expect(await redis.xlen(key)).toBe(0);
    });
  });
});

