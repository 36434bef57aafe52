import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { ReplicaAcks } from '../../src/inventory/replicaAcks.js';
import type { ApiError } from '../../src/domain/errors.js';
import { generatedDrawing } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEventRecord } from '../support/events.js';
import { call, createCompanyClients, eventually, startTestServer, testEnv, type CompanyClients, type TestServer } from '../support/harness.js';

// REDIS_REPLICA_ACKS=1 (docs/operations.md, "Acknowledged means replicated") on a primary and
// one replica of this file's own, no sentinels: nothing fails over here, the replica only
// follows, stops following (SIGSTOP) and comes back, or the primary wants more replicas than
// follow it (min-replicas-to-write). A status change and a hold token's
// creation or expiry change answer 2xx only once the replica has them.

const TIMEOUT_MS = 1_000;
/** What a timer may be late by while other test files share the cores (vitest.config.ts runs several at once). */
const SLACK_MS = 750;
const drawing = generatedDrawing({ sections: 0, rowsPerSection: 2, seatsPerRow: 20 });

let dir: string;
let primary: ChildServer;
let replica: ChildServer;
let onPrimary: Redis;
let onReplica: Redis;
let server: TestServer;
let clients: CompanyClients;
let prefix: string;
let eventKey: string;
let objectsKey: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seatsio-replica-acks-'));
  primary = await startRedisServer({ dir: join(dir, 'primary'), appendOnly: false });
  replica = await startRedisServer({ dir: join(dir, 'replica'), appendOnly: false, replicaOf: Number(new URL(primary.url).port) });
  const env = testEnv({ REDIS_URL: primary.url, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), REDIS_REPLICA_ACKS: '1' });
  prefix = env.REDIS_KEY_PREFIX!;
  server = await startTestServer(env);
  onPrimary = new Redis(primary.url);
  onReplica = new Redis(replica.url, { keyPrefix: prefix });
  clients = await createCompanyClients(server.url);
  const record = await createEventRecord(clients.api, (await uploadDrawing(clients.api, drawing)).key);
  eventKey = record.key;
  objectsKey = eventKeys((await server.app.parts.repos.events.findByKey(clients.company.workspace.id, eventKey))!).objects;
}, 60_000);

afterEach(() => {
  // A failed case must not leave the replica frozen for the next one.
  process.kill(replica.pid, 'SIGCONT');
});

afterAll(async () => {
  onPrimary?.disconnect();
  onReplica?.disconnect();
  await server?.stop();
  await replica?.stop();
  await primary?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) => call(server.url, method, path, { key: clients.company.workspace.secretKey, body });
const book = (label: string) => api('POST', `/events/${eventKey}/actions/book`, { objects: [label] });
const newToken = () => api('POST', '/hold-tokens', {});
/** The replica's copy of the token's record (docs/redis-layout.md, "Hold tokens"), found by the token in its key. */
const tokenOnReplica = async (token: string) => (await onReplica.keys(`*${token}*`)).length > 0;

describe('REDIS_REPLICA_ACKS=1 with a replica following', () => {
  it('a booking and a hold token answer 2xx, and the replica has each when they do', async () => {
    const booked = await book('A-1');
    expect(booked.status).toBe(204);
    expect(await onReplica.hget(objectsKey, 'A-1')).toBe('booked');
    const token = await newToken();
    expect(token.status).toBe(200);
    expect(await tokenOnReplica(token.body.holdToken)).toBe(true);
    const held = await api('POST', `/events/${eventKey}/actions/hold`, { objects: ['A-2'], holdToken: token.body.holdToken });
    expect(held.status).toBe(204);
    expect(await onReplica.hget(objectsKey, 'A-2')).toMatch(/^reservedByToken/);
    expect((await api('POST', `/hold-tokens/${token.body.holdToken}`, { expiresInMinutes: 5 })).status).toBe(200);
  });
});

describe('REDIS_REPLICA_ACKS=1 with the replica frozen', () => {
  it('every change answers 503 applied "unknown" within REDIS_TIMEOUT_MS; once it is back, 2xx again', async () => {
    const token = (await newToken()).body.holdToken as string;
    process.kill(replica.pid, 'SIGSTOP');
    for (const [what, send] of [
      ['booking', () => book('B-1')],
      ['hold token', () => newToken()],
      ['hold token expiry', () => api('POST', `/hold-tokens/${token}`, { expiresInMinutes: 7 })],
    ] as const) {
      const started = performance.now();
      const answer = await send();
      expect(answer.status, what).toBe(503);
      expect(answer.body.errors[0].code, what).toBe('SERVICE_UNAVAILABLE');
      expect(answer.body.errors[0].data, what).toEqual({ applied: 'unknown' });
      expect(performance.now() - started, what).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
    process.kill(replica.pid, 'SIGCONT');
    await eventually(async () => (await book('B-2')).status === 204, 10_000, 50);
    expect((await newToken()).status).toBe(200);
  });
});

describe('REDIS_REPLICA_ACKS=1 and a primary without the scripts (SCRIPT FLUSH, as a primary promoted by a failover)', () => {
  it("a hold token's call that had to load its script is confirmed by a WAIT sent after it ran", async () => {
    const monitor = await onPrimary.monitor();
    const seen: string[] = [];
    // The server's calls, not the commands its scripts run inside Redis.
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') seen.push(String(args[0]).toLowerCase());
    });
    try {
      await onPrimary.script('FLUSH');
      const token = await newToken();
      expect(token.status).toBe(200);
      expect(await tokenOnReplica(token.body.holdToken)).toBe(true);
      const calls = () => seen.filter((name) => name === 'eval' || name === 'evalsha' || name === 'wait');
      // MONITOR's lines may come a moment after the answer.
      await eventually(async () => calls().lastIndexOf('wait') > calls().lastIndexOf('eval'), 2_000, 20).catch(() => undefined);
      // EVALSHA answered NOSCRIPT, the WAIT behind it, the call again with the script's source: then a WAIT of its own.
      expect(calls().lastIndexOf('eval')).toBeGreaterThan(-1);
      expect(calls().lastIndexOf('wait')).toBeGreaterThan(calls().lastIndexOf('eval'));
    } finally {
      monitor.disconnect();
    }
  });
});

describe('REDIS_REPLICA_ACKS=1 and a WAIT that Redis refuses (a node that is a replica now)', () => {
  it('the calls it was to confirm answer 503 applied "unknown", not 500', async () => {
    // A replica refuses WAIT, as a demoted primary or a cluster's old master, back before it
    // learned that it is a replica now, does after running a call it took for its own.
    const acks = new ReplicaAcks((n, ms) => onReplica.call('WAIT', n, ms) as Promise<number>, 1, 200);
    const outcome = new Promise<unknown>((resolve) => {
      const receiver = acks.hold({ answer: (reply) => resolve({ answered: reply }), fail: (error) => resolve(error) });
      acks.written(receiver);
      receiver.answer('applied');
    });
    acks.follow();
    const error = (await outcome) as ApiError;
    expect(error.status).toBe(503);
    expect(error.errors[0]).toMatchObject({ code: 'SERVICE_UNAVAILABLE', data: { applied: 'unknown' } });
    expect(error.message).toMatch(/WAIT cannot be used with replica/);
  });
});

describe('a primary that refuses writes while too few replicas follow it (min-replicas-to-write)', () => {
  it('every change answers 503 applied false at once and changes nothing; once enough follow, 2xx again', async () => {
    const token = (await newToken()).body.holdToken as string;
    // One replica follows; the primary is told to want two.
    await onPrimary.config('SET', 'min-replicas-to-write', '2');
    try {
      for (const [what, send] of [
        ['booking', () => book('B-11')],
        ['hold', () => api('POST', `/events/${eventKey}/actions/hold`, { objects: ['B-12'], holdToken: token })],
        ['hold token', () => newToken()],
        ['hold token expiry', () => api('POST', `/hold-tokens/${token}`, { expiresInMinutes: 7 })],
        ['not for sale', () => api('POST', `/events/${eventKey}/actions/mark-as-not-for-sale`, { objects: ['B-13'] })],
      ] as const) {
        const started = performance.now();
        const answer = await send();
        expect(answer.status, what).toBe(503);
        expect(answer.body.errors[0].code, what).toBe('SERVICE_UNAVAILABLE');
        if (what !== 'not for sale') expect(answer.body.errors[0].data, what).toEqual({ applied: false });
        expect(answer.body.errors[0].message, what).toMatch(/replicas/);
        // Refused by Redis before it ran anything: no wait for the request's timeout.
        expect(performance.now() - started, what).toBeLessThan(TIMEOUT_MS / 2);
      }
      // Requests of one turn go to Redis as one batched call: each refused on its own.
      const burst = await Promise.all(['B-14', 'B-15', 'B-16', 'B-17', 'B-18'].map(book));
      expect(burst.map((answer) => [answer.status, answer.body.errors?.[0]?.data])).toEqual(Array(5).fill([503, { applied: false }]));
      const booked = Object.keys(await onPrimary.hgetall(prefix + objectsKey));
      for (const label of ['B-11', 'B-12', 'B-14', 'B-15', 'B-16', 'B-17', 'B-18']) expect(booked).not.toContain(label);
      expect((await api('GET', `/events/${eventKey}/objects/B-13`)).body).toMatchObject({ status: 'free', forSale: true });
    } finally {
      await onPrimary.config('SET', 'min-replicas-to-write', '0');
    }
    expect((await book('B-11')).status).toBe(204);
    // The key the refused ones were looked for in is the one a booking lands in.
    expect(await onPrimary.hget(prefix + objectsKey, 'B-11')).toBe('booked');
  });
});
