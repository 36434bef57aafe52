import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { areaState } from '../../src/domain/objectStates.js';
import { startRedisSentinels, SENTINEL_NAME, type RedisSentinelSet } from '../../src/embedded/redisSentinel.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { generatedDrawing } from '../fixtures/drawings.js';
import { uploadDrawing } from './charts.js';
import { createEventRecord } from './events.js';
import { failoverServers } from './failoverServers.js';
import { call, createCompanyClients, eventually, startTestServer, testEnv, type CompanyClients } from './harness.js';

// What the failover tests share (test/integration/failover*.test.ts). High availability on real processes (docs/operations.md, "High availability"): a primary,
// a replica and three sentinels (down-after-milliseconds 2000) of this file's own; the
// primary is killed (SIGKILL) under a GA booking load and the sentinels promote the
// replica. The server follows through the sentinels, and its answers are compared with what
// the new primary holds. The killed primary comes back as a replica of the new one, as a
// supervisor would restart it: with REDIS_REPLICA_ACKS=1 sales resume once it has synced.

export const TIMEOUT_MS = 1_000;
export const OK = 204;
export const PLACES = 30_000;
/** How long the replica is cut off before the primary dies: past the WAIT's wait (REDIS_TIMEOUT_MS less a quarter), so clients are answered and send again meanwhile. */
export const STALL_MS = 1_200;
export const drawing = generatedDrawing({ sections: 0, rowsPerSection: 1, seatsPerRow: 1, generalAdmission: [{ label: 'GA', capacity: PLACES }] });

/** The running test's sentinel set and server (stopped after each test). */
export const live = failoverServers<RedisSentinelSet>('failover');

export interface Answer {
  status: number;
  code?: string;
  applied?: false | 'unknown';
  sentAt: number;
  answeredAt: number;
  /** GA places the request asked for. */
  quantity: number;
}

/** A server through the sentinels, a company, and an event on a chart of PLACES GA places. */
export async function setUp(env: Record<string, string>): Promise<{ clients: CompanyClients; eventKey: string; objectsKey: string; prefix: string }> {
  const redis = (live.redis = await startRedisSentinels({ dir: mkdtempSync(join(live.dir, 'set-')), replicas: 1, downAfterMs: 2_000 }));
  const serverEnv = testEnv({ REDIS_URL: '', REDIS_CLUSTER_NODES: '', REDIS_SENTINELS: redis.sentinelAddresses.join(','), REDIS_SENTINEL_NAME: SENTINEL_NAME, REDIS_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: process.env.FO_LOG ?? 'silent', ...env });
  const server = (live.server = await startTestServer(serverEnv));
  const clients = await createCompanyClients(server.url);
  const chartKey = (await uploadDrawing(clients.api, drawing)).key;
  const record = await createEventRecord(clients.api, chartKey);
  const doc = (await server.app.parts.repos.events.findByKey(clients.company.workspace.id, record.key))!;
  return { clients, eventKey: record.key, objectsKey: eventKeys(doc).objects, prefix: serverEnv.REDIS_KEY_PREFIX! };
}

/** GA places per booking request, until fewer are left (then one per request). */
export const PER_REQUEST = 10;

/**
 * 40 clients booking GA places (PER_REQUEST a request) until all PLACES are sold and `fault`
 * has run; `fault` starts once half of them are acknowledged, so the sale goes on through it.
 * A place lost by a failover is free again in the new primary and sold again.
 */
export async function sellOutUnderLoad(url: string, secretKey: string, eventKey: string, fault: (answers: Answer[]) => Promise<void>): Promise<Answer[]> {
  const answers: Answer[] = [];
  let quantity = PER_REQUEST;
  let acknowledged = 0;
  let faulted: Promise<void> | undefined;
  let faultOver = false;
  let soldOut = false;
  // A sale that does not end (the test failing) stops here, not with the next test file.
  const until = performance.now() + 50_000;
  const worker = async () => {
    while (!(soldOut && faultOver) && performance.now() < until) {
      const asked = quantity;
      const sentAt = performance.now();
      const response = await call(url, 'POST', `/events/${eventKey}/actions/book`, { key: secretKey, body: { objects: [{ objectId: 'GA', quantity: asked }] } }).catch(() => ({
        status: 0,
        body: undefined,
      }));
      const error = response.body?.errors?.[0];
      answers.push({ status: response.status, code: error?.code, applied: error?.data?.applied, sentAt, answeredAt: performance.now(), quantity: asked });
      if (response.status === OK) acknowledged += asked;
      if (!faulted && acknowledged >= PLACES / 2) faulted = fault(answers).finally(() => (faultOver = true));
      if (error?.code === 'NOT_ENOUGH_FREE_PLACES') {
        if (asked === 1) soldOut = true;
        else quantity = 1;
      } else if (response.status === OK) soldOut = false;
      // Sold out before the fault was over: places it loses come free again; ask now and then.
      if (soldOut) await new Promise((r) => setTimeout(r, 20));
    }
  };
  await Promise.all(Array.from({ length: 40 }, worker));
  await faulted;
  return answers;
}

/** What a killed primary did to the sale: the 503s' window, and the places acknowledged against those the new primary holds. */
export async function killPrimaryUnderLoad(acks: number) {
  const { clients, eventKey, objectsKey, prefix } = await setUp({ REDIS_REPLICA_ACKS: String(acks) });
  const set = live.redis!;
  const oldPort = await set.primaryPort();
  let stalledAt = 0;
  let killedAt = 0;
  let promotedAfter = 0;
  const ready: { at: number; status: number }[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      ready.push({ at: performance.now(), status: (await call(live.server!.url, 'GET', '/ready')).status });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const answers = await sellOutUnderLoad(
    live.server!.url,
    clients.company.workspace.secretKey,
    eventKey,
    async (sofar) => {
      // The replica loses its link (frozen, so it cannot make it again, and cut off by the
      // primary) for STALL_MS, and the primary dies before it is back: what the primary applied
      // meanwhile reached no replica.
      process.kill(set.servers[1]!.pid, 'SIGSTOP');
      const primary = new Redis(set.servers[0]!.url);
      await primary.client('KILL', 'TYPE', 'replica');
      primary.disconnect();
      stalledAt = performance.now();
      await new Promise((r) => setTimeout(r, STALL_MS));
      process.kill(set.servers[0]!.pid, 'SIGKILL');
      killedAt = performance.now();
      process.kill(set.servers[1]!.pid, 'SIGCONT');
      promotedAfter = await eventually(async () => (await set.primaryPort()) !== oldPort, 15_000, 100);
      // Restarted, as a supervisor would, it comes back as a replica of the new primary.
      await set.restartAsReplica(0);
      // Sales resume: a request sent after the kill is acknowledged.
      await eventually(async () => sofar.some((a) => a.status === OK && a.sentAt > killedAt), 15_000, 50);
    },
  );
  probing = false;
  await probe;
  const primary = new Redis(await set.primaryPort(), '127.0.0.1', { keyPrefix: prefix });
  const stored = areaState(await primary.hget(objectsKey, 'GA')).nonFree;
  primary.disconnect();
  const places = (some: Answer[]) => some.reduce((sum, a) => sum + a.quantity, 0);
  const acknowledged = places(answers.filter((a) => a.status === OK));
  const unknown = places(answers.filter((a) => a.status === 503 && a.applied === 'unknown'));
  const afterKill = answers.filter((a) => a.answeredAt > killedAt);
  const stalled = answers.filter((a) => a.sentAt > stalledAt && a.sentAt < killedAt);
  const firstOkAfterKill = Math.min(...afterKill.filter((a) => a.status === OK && a.sentAt > killedAt).map((a) => a.answeredAt));
  const unavailable = afterKill.filter((a) => a.status === 503);
  const figures = {
    acks,
    answers: answers.length,
    // In places (a request books PER_REQUEST of them until fewer are left).
    acknowledged,
    stored,
    lost: Math.max(0, acknowledged - stored),
    unknown503: unknown,
    answered503: unavailable.length,
    promotedAfterMs: Math.round(promotedAfter),
    acknowledgedWhileReplicaStalled: places(stalled.filter((a) => a.status === OK)),
    refused: answers.filter((a) => a.status === 400).length,
    seconds: Math.round((Math.max(...answers.map((a) => a.answeredAt)) - Math.min(...answers.map((a) => a.sentAt))) / 100) / 10,
    slowestWhileReplicaStalledMs: Math.round(Math.max(...stalled.map((a) => a.answeredAt - a.sentAt))),
    slowestAnswerMs: Math.round(Math.max(...answers.map((a) => a.answeredAt - a.sentAt))),
    readyDownMs: Math.round((ready.find((r) => r.at > killedAt && r.status === 503)?.at ?? NaN) - killedAt),
    readyBackMs: Math.round((ready.find((r) => r.at > killedAt + 1_000 && r.status === 200)?.at ?? NaN) - killedAt),
    windowMs: Math.round(firstOkAfterKill - killedAt),
    last503AfterKillMs: Math.round(Math.max(0, ...unavailable.map((a) => a.answeredAt)) - killedAt),
  };
  console.log(`failover with REDIS_REPLICA_ACKS=${acks}: ${JSON.stringify(figures)}`);
  return { answers, figures, ready: ready.filter((r) => r.at > killedAt) };
}
