import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { areaState } from '../../src/domain/objectStates.js';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { freePort } from '../../src/embedded/freePort.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { generatedDrawing, rowLabel } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEventRecord } from '../support/events.js';
import { call, createCompanyClients, createTestCompany, eventually, mongoThroughProxy, spawnServer, startTestServer, testEnv, type CompanyClients, type TestServer } from '../support/harness.js';

// What an acknowledged booking survives and what a client sees while Redis is away
// (docs/faults.md), on real processes: a redis-server of this file's own (append-only file
// synced on every write), killed, frozen and cut off under booking load. Each case runs a
// few seconds of load and then compares every answer with what Redis holds.

const TIMEOUT_MS = 1_000;
/** What a timer may be late by while other test files share the cores (vitest.config.ts runs several at once). */
const SLACK_MS = 750;
/** What book answers without expand. */
const OK = 204;
const ROWS = 60;
const SEATS_PER_ROW = 100;
const LABELS = Array.from({ length: ROWS }, (_, r) => Array.from({ length: SEATS_PER_ROW }, (_, s) => `${rowLabel(r)}-${s + 1}`)).flat();
const drawing = generatedDrawing({ sections: 0, rowsPerSection: ROWS, seatsPerRow: SEATS_PER_ROW, generalAdmission: [{ label: 'GA', capacity: 1_000_000 }] });

let dir: string;
let redisPort: number;
let redis: ChildServer;
let admin: Redis;
let server: TestServer;
let clients: CompanyClients;
let chartKey: string;
let prefix: string;

const startRedis = () => startRedisServer({ dir, appendOnly: true, appendFsync: 'always', port: redisPort });
const signal = (name: NodeJS.Signals) => process.kill(redis.pid, name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seatsio-faults-'));
  redisPort = await freePort();
  redis = await startRedis();
  const env = testEnv({ REDIS_URL: redis.url, REDIS_TIMEOUT_MS: String(TIMEOUT_MS) });
  prefix = env.REDIS_KEY_PREFIX!;
  server = await startTestServer(env);
  admin = new Redis(redis.url, { keyPrefix: prefix, maxRetriesPerRequest: null, retryStrategy: () => 50 });
  admin.on('error', () => undefined);
  clients = await createCompanyClients(server.url);
  chartKey = (await uploadDrawing(clients.api, drawing)).key;
}, 60_000);

afterEach(() => {
  // A failed case must not leave Redis frozen for the next one.
  if (redis.pid) {
    try {
      signal('SIGCONT');
    } catch {
      // already gone
    }
  }
});

afterAll(async () => {
  admin?.disconnect();
  await server?.stop();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  label: string;
  status: number;
  code?: string;
  /** What a 503 says became of the change: false (nothing) or 'unknown'. */
  applied?: false | 'unknown';
  /** When the request was sent (performance.now()) and how long its answer took. */
  sentAt: number;
  ms: number;
}

/**
 * `workers` clients booking one object each per request, taking labels from `labels` (one
 * label may be booked once), until `fault` has run and `after` ms more have passed.
 */
async function bookUnderLoad(url: string, eventKey: string, objectOf: (label: string) => unknown, labels: string[], fault: (answers: Answer[]) => Promise<void>, after = 300): Promise<Answer[]> {
  const answers: Answer[] = [];
  const queue = [...labels];
  let stop = false;
  const worker = async () => {
    while (!stop && queue.length > 0) {
      const label = queue.shift()!;
      const started = performance.now();
      const response = await call(url, 'POST', `/events/${eventKey}/actions/book`, { key: clients.company.workspace.secretKey, body: { objects: [objectOf(label)] } }).catch(
        () => ({ status: 0, body: undefined }),
      );
      const error = response.body?.errors?.[0];
      answers.push({ label, status: response.status, code: error?.code, applied: error?.data?.applied, sentAt: started, ms: performance.now() - started });
    }
  };
  const workers = Array.from({ length: 40 }, worker);
  await new Promise((r) => setTimeout(r, 200));
  await fault(answers);
  await new Promise((r) => setTimeout(r, after));
  stop = true;
  await Promise.all(workers);
  return answers;
}

async function newEventKey(): Promise<{ key: string; objectsKey: string }> {
  const record = await createEventRecord(clients.api, chartKey);
  const doc = (await server.app.parts.repos.events.findByKey(clients.company.workspace.id, record.key))!;
  return { key: record.key, objectsKey: eventKeys(doc).objects };
}

const seat = (label: string) => label;
const gaPlace = () => ({ objectId: 'GA', quantity: 1 });
const booked = async (objectsKey: string) => new Set(Object.keys(await admin.hgetall(objectsKey)));
const gaBooked = async (objectsKey: string) => areaState(await admin.hget(objectsKey, 'GA')).nonFree;
const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

/** Drops the server's Redis connections (both command connections) `times` times. */
async function dropConnections(times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const clientList = await admin.client('LIST');
    const ids = String(clientList)
      .split('\n')
      .filter((line) => / name=seatsio-(status-changes|commands) /.test(line))
      .map((line) => /id=(\d+)/.exec(line)![1]!);
    for (const id of ids) await admin.client('KILL', 'ID', id);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('connection drops under booking load (CLIENT KILL)', () => {
  it('seats: every seat acknowledged is booked, and every booked seat was acknowledged', async () => {
    const event = await newEventKey();
    const answers = await bookUnderLoad(server.url, event.key, seat, LABELS, () => dropConnections(5));
    const acknowledged = new Set(answers.filter((a) => a.status === OK).map((a) => a.label));
    expect(acknowledged.size).toBeGreaterThan(200);
    expect(answers.filter((a) => a.status !== OK && a.status !== 503)).toEqual([]);
    expect([...(await booked(event.objectsKey))].sort()).toEqual([...acknowledged].sort());
  }, 30_000);

  it('GA: the places booked are exactly the places acknowledged', async () => {
    const event = await newEventKey();
    const answers = await bookUnderLoad(server.url, event.key, gaPlace, LABELS, () => dropConnections(5));
    expect(answers.filter((a) => a.status !== OK && a.status !== 503)).toEqual([]);
    expect(count(answers, OK)).toBeGreaterThan(200);
    expect(await gaBooked(event.objectsKey)).toBe(count(answers, OK));
  }, 30_000);
});

describe('Redis frozen (SIGSTOP) under booking load, then resumed', () => {
  it('answers within the timeout, and no request answered with an error is applied later', async () => {
    const event = await newEventKey();
    let frozenAt = 0;
    let readyDown = -1;
    let readyBack = -1;
    const answers = await bookUnderLoad(server.url, event.key, seat, LABELS, async () => {
      signal('SIGSTOP');
      frozenAt = performance.now();
      const ready = await call(server.url, 'GET', '/ready');
      expect(ready.status).toBe(503);
      readyDown = performance.now() - frozenAt;
      // Long enough that requests sent after the freeze, when those in flight failed at their
      // deadline, reach theirs too before Redis resumes, however late the timers run.
      await new Promise((r) => setTimeout(r, 2 * TIMEOUT_MS + SLACK_MS - readyDown));
      signal('SIGCONT');
      const resumedAt = performance.now();
      while ((await call(server.url, 'GET', '/ready')).status !== 200) await new Promise((r) => setTimeout(r, 20));
      readyBack = performance.now() - resumedAt;
    });
    const failed = answers.filter((a) => a.status !== OK);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((a) => a.status !== 503 || a.code !== 'SERVICE_UNAVAILABLE')).toEqual([]);
    // Bounded waits: nobody waited much past the timeout. The slack is for the other test files
    // sharing the cores (vitest.config.ts), which can delay a timer by some hundreds of ms.
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(readyDown).toBeLessThan(1_000 + SLACK_MS);
    expect(readyBack).toBeLessThan(1_000 + SLACK_MS);
    // Let Redis run whatever was still queued for it, then compare.
    await new Promise((r) => setTimeout(r, 500));
    const stored = await booked(event.objectsKey);
    const acknowledged = answers.filter((a) => a.status === OK).map((a) => a.label);
    expect(acknowledged.filter((label) => !stored.has(label))).toEqual([]);
    // Every request sent while Redis was frozen reached it only after its deadline: none
    // was applied, though Redis ran each of them on resuming.
    const sentWhileFrozen = failed.filter((a) => a.sentAt > frozenAt);
    expect(sentWhileFrozen.length).toBeGreaterThan(0);
    expect(sentWhileFrozen.filter((a) => stored.has(a.label))).toEqual([]);
    // A request Redis had already run when it froze may be stored: its answer says the
    // outcome is unknown, never that nothing was changed.
    expect(failed.filter((a) => stored.has(a.label) && a.applied !== 'unknown')).toEqual([]);
  }, 30_000);
});

describe('the queue of status changes waiting for Redis is bounded', () => {
  it('beyond MAX_PENDING_STATUS_CHANGES a request is refused at once, applied: false', async () => {
    const event = await newEventKey();
    const bounded = await startTestServer(
      testEnv({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, MONGODB_DB: server.app.parts.db.databaseName, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), MAX_PENDING_STATUS_CHANGES: '5' }),
    );
    try {
      // Warm the event into the server's cache while Redis answers.
      expect((await call(bounded.url, 'POST', `/events/${event.key}/actions/book`, { key: clients.company.workspace.secretKey, body: { objects: [LABELS[0]] } })).status).toBe(OK);
      signal('SIGSTOP');
      const answers = await Promise.all(
        LABELS.slice(1, 21).map(async (label) => {
          const started = performance.now();
          const response = await call(bounded.url, 'POST', `/events/${event.key}/actions/book`, { key: clients.company.workspace.secretKey, body: { objects: [label] } });
          return { label, status: response.status, applied: response.body?.errors?.[0]?.data?.applied, ms: performance.now() - started };
        }),
      );
      signal('SIGCONT');
      const refusedAtOnce = answers.filter((a) => a.status === 503 && a.applied === false && a.ms < TIMEOUT_MS / 2);
      expect(refusedAtOnce.length).toBeGreaterThanOrEqual(15);
      expect(answers.every((a) => a.status === 503)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      const stored = await booked(event.objectsKey);
      expect(answers.filter((a) => stored.has(a.label))).toEqual([]);
    } finally {
      signal('SIGCONT');
      await bounded.stop();
    }
  }, 30_000);
});

describe('Redis killed (kill -9) under booking load and restarted, append-only file synced always', () => {
  it('every acknowledged booking is there after the restart; /ready follows Redis within a second', async () => {
    const event = await newEventKey();
    let readyDown = -1;
    let readyBack = -1;
    let killedAt = 0;
    let readyAt = 0;
    const answers = await bookUnderLoad(server.url, event.key, seat, LABELS, async (sofar) => {
      signal('SIGKILL');
      killedAt = performance.now();
      while ((await call(server.url, 'GET', '/ready')).status !== 503) await new Promise((r) => setTimeout(r, 20));
      readyDown = performance.now() - killedAt;
      await new Promise((r) => setTimeout(r, 1_000));
      redis = await startRedis();
      // Measured from when Redis answers (its append-only file loaded), not from its start:
      // loading takes what the machine gives it, and /ready cannot be up before Redis is.
      await eventually(async () => (await admin.ping().catch(() => '')) === 'PONG', 10_000, 10);
      const restartedAt = performance.now();
      while ((await call(server.url, 'GET', '/ready')).status !== 200) await new Promise((r) => setTimeout(r, 20));
      readyAt = performance.now();
      readyBack = readyAt - restartedAt;
      // The load goes on until a booking sent after /ready came back is acknowledged: on a
      // loaded machine the first round after the restart can take longer than a fixed wait.
      await eventually(async () => sofar.some((a) => a.status === OK && a.sentAt >= readyAt), 10_000);
    }, 100);
    expect(answers.filter((a) => ![OK, 503].includes(a.status))).toEqual([]);
    expect(count(answers, 503)).toBeGreaterThan(0);
    // Bookings were acknowledged before the kill and again once /ready was back: how many
    // depends on the machine's speed, that there are some does not.
    expect(answers.filter((a) => a.status === OK && a.sentAt + a.ms < killedAt).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status === OK && a.sentAt >= readyAt).length).toBeGreaterThan(0);
    expect(readyDown).toBeLessThan(1_000 + SLACK_MS);
    expect(readyBack).toBeLessThan(1_000 + SLACK_MS);
    const stored = await booked(event.objectsKey);
    const acknowledged = answers.filter((a) => a.status === OK).map((a) => a.label);
    expect(acknowledged.filter((label) => !stored.has(label))).toEqual([]);
  }, 30_000);
});

describe('the server killed (kill -9) under booking load', () => {
  it('every booking it acknowledged is stored', async () => {
    const event = await newEventKey();
    // The built server in its own process, on the same Redis and database.
    const child = await spawnServer(testEnv({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, MONGODB_DB: server.app.parts.db.databaseName }));
    try {
      const answers = await bookUnderLoad(child.url, event.key, seat, LABELS, async (sofar) => {
        // Killed once it has acknowledged some bookings (a loaded machine may take a while).
        await eventually(async () => sofar.filter((a) => a.status === OK).length >= 20, 10_000);
        child.child.kill('SIGKILL');
        await child.exited;
      }, 100);
      const acknowledged = answers.filter((a) => a.status === OK).map((a) => a.label);
      expect(acknowledged.length).toBeGreaterThan(10);
      // The requests cut by the kill got no answer at all.
      expect(answers.filter((a) => a.status === 0).length).toBeGreaterThan(0);
      const stored = await booked(event.objectsKey);
      expect(acknowledged.filter((label) => !stored.has(label))).toEqual([]);
    } finally {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    }
  }, 30_000);
});

describe('MongoDB unreachable', () => {
  it('a request that has to read metadata answers 503 SERVICE_UNAVAILABLE with Retry-After, what is loaded goes on, and all is answered again once MongoDB is back', async () => {
    const { proxy, url } = await mongoThroughProxy();
    const app = await startTestServer({ MONGODB_URL: url });
    try {
      const [loaded, notLoaded] = [await createTestCompany(app.url), await createTestCompany(app.url)];
      const holdToken = (key: string) => call(app.url, 'POST', '/hold-tokens', { key, body: {} });
      expect((await holdToken(loaded.workspace.secretKey)).status).toBe(200);
      // A company is loaded when one of its keys is first used; the other's never was.
      proxy.cut();
      expect((await holdToken(loaded.workspace.secretKey)).status).toBe(200);
      const refused = await holdToken(notLoaded.workspace.secretKey);
      expect(refused.status, refused.text).toBe(503);
      expect(refused.body.errors[0].code).toBe('SERVICE_UNAVAILABLE');
      expect(refused.body.errors[0].message).toMatch(/^The metadata store is unavailable/);
      expect(refused.headers.get('retry-after')).toBe('1');
      proxy.restore();
      await eventually(async () => (await holdToken(notLoaded.workspace.secretKey)).status === 200, 15_000, 100);
    } finally {
      proxy.restore();
      await app.stop();
      await proxy.close();
    }
  }, 30_000);
});
