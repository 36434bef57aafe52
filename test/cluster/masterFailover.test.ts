import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { areaState } from '../../src/domain/objectStates.js';
import type { RedisClusterNodes } from '../../src/embedded/redisCluster.js';
import { generatedDrawing } from '../fixtures/drawings.js';
import { eventOnCluster, slotNodes } from '../support/clusterEvent.js';
import { failoverServers } from '../support/failoverServers.js';
import { call, eventually } from '../support/harness.js';

// A Redis Cluster master killed (SIGKILL) under a GA booking load (docs/operations.md, "High
// availability"): 3 masters with one replica each, or two (cluster-node-timeout 2000), a
// cluster of this file's own. The master of the event's slot dies, a replica takes over, and
// the killed node comes back (as a supervisor would restart it) as the new master's replica.
// The places acknowledged are compared with those the new master holds.

const TIMEOUT_MS = 1_000;
const OK = 204;
const PLACES = 30_000;
const drawing = generatedDrawing({ sections: 0, rowsPerSection: 1, seatsPerRow: 1, generalAdmission: [{ label: 'GA', capacity: PLACES }] });

/** The running test's cluster and server (stopped after each test). */
const live = failoverServers<RedisClusterNodes>('cluster-failover');

interface Answer {
  status: number;
  applied?: false | 'unknown';
  /** An error's message (shown when a test fails on it). */
  message?: string;
  sentAt: number;
  answeredAt: number;
}

async function killMasterUnderLoad(acks: number, replicas: number) {
  const { nodes, server, clients, eventKey, objectsKey, slot } = await eventOnCluster(live, { drawing, replicas, acks, timeoutMs: TIMEOUT_MS });
  const masterPort = (await slotNodes(nodes, slot)).master;
  const masterIndex = nodes.servers.findIndex((s) => new URL(s.url).port === String(masterPort));

  const answers: Answer[] = [];
  let stop = false;
  let killedAt = 0;
  const worker = async () => {
    while (!stop) {
      const sentAt = performance.now();
      const response = await call(server.url, 'POST', `/events/${eventKey}/actions/book`, { key: clients.company.workspace.secretKey, body: { objects: [{ objectId: 'GA', quantity: 1 }] } }).catch(() => ({ status: 0, body: undefined }));
      const error = response.body?.errors?.[0];
      answers.push({ status: response.status, applied: error?.data?.applied, message: error?.message, sentAt, answeredAt: performance.now() });
    }
  };
  const workers = Array.from({ length: 40 }, worker);
  let promotedAfter: number;
  try {
    await new Promise((r) => setTimeout(r, 1_500));
    process.kill(nodes.servers[masterIndex]!.pid, 'SIGKILL');
    killedAt = performance.now();
    // Generous bounds: beside other test files on few cores a promotion takes longer than the ~4 s it takes alone.
    promotedAfter = await eventually(async () => (await slotNodes(nodes, slot)).master !== masterPort, 40_000, 100);
    await nodes.restart(masterIndex);
    await eventually(async () => answers.some((a) => a.status === OK && a.sentAt > killedAt), 40_000, 50);
    await new Promise((r) => setTimeout(r, 1_000));
  } finally {
    // The clients stop whatever happened, so none outlives its test.
    stop = true;
    await Promise.all(workers);
  }

  const reader = new Cluster(nodes.addresses.map((address) => ({ host: address.split(':')[0]!, port: Number(address.split(':')[1]) })));
  const stored = areaState(await reader.hget(objectsKey, 'GA')).nonFree;
  reader.disconnect();
  const acknowledged = answers.filter((a) => a.status === OK).length;
  const figures = {
    acks,
    replicas,
    answers: answers.length,
    acknowledged,
    stored,
    lost: Math.max(0, acknowledged - stored),
    unknown503: answers.filter((a) => a.status === 503 && a.applied === 'unknown').length,
    promotedAfterMs: promotedAfter,
    windowMs: Math.round(Math.min(...answers.filter((a) => a.status === OK && a.sentAt > killedAt).map((a) => a.answeredAt)) - killedAt),
  };
  console.log(`cluster master failover with REDIS_REPLICA_ACKS=${acks}: ${JSON.stringify(figures)}`);
  return { answers, figures };
}

describe('a Redis Cluster master killed under booking load; its replica takes over', () => {
  // With REDIS_REPLICA_ACKS=1 and one replica, sales resume once the killed master is back as
  // the new master's replica; with two, the replica left confirms at once.
  for (const [acks, replicas] of [
    [0, 1],
    [1, 1],
    [1, 2],
  ] as const) {
    it(`REDIS_REPLICA_ACKS=${acks}, ${replicas} replica(s) a master: the places acknowledged are in the new master, none twice; only 2xx, 503 and 400`, async () => {
      const { answers, figures } = await killMasterUnderLoad(acks, replicas);
      expect(answers.filter((a) => a.status !== OK && a.status !== 503 && a.status !== 400)).toEqual([]);
      expect(figures.acknowledged).toBeGreaterThan(300);
      if (acks > 0) expect(figures.stored).toBeGreaterThanOrEqual(figures.acknowledged);
      expect(figures.stored).toBeLessThanOrEqual(figures.acknowledged + figures.unknown503);
      // The window is reported above (about 4 s without acks or with two replicas, 8 to 10 s
      // with one ack and one replica, alone); bounded here loosely for runs beside other files.
      expect(figures.windowMs).toBeLessThan(40_000);
    }, 120_000);
  }
});
