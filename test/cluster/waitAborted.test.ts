import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { areaState } from '../../src/domain/objectStates.js';
import type { RedisClusterNodes } from '../../src/embedded/redisCluster.js';
import { generatedDrawing } from '../fixtures/drawings.js';
import { eventOnCluster, slotNodes } from '../support/clusterEvent.js';
import { failoverServers } from '../support/failoverServers.js';
import { call, eventually } from '../support/harness.js';

// A Redis Cluster master killed (SIGKILL) while a booking's WAIT waits for its replica
// (docs/operations.md, "High availability"): 3 masters with one replica each
// (cluster-node-timeout 2000), a cluster of each test's own. A file apart from
// masterFailover.test.ts so that the two run side by side in the failover project.

const OK = 204;
const drawing = generatedDrawing({ sections: 0, rowsPerSection: 1, seatsPerRow: 1, generalAdmission: [{ label: 'GA', capacity: 100 }] });

/** The running test's cluster and server (stopped after each test). */
const live = failoverServers<RedisClusterNodes>('cluster-wait-aborted');

/** A cluster with one replica per master, a server on it, and an event whose slot's master and replicas are known. */
async function eventWithReplicas(acks: number, timeoutMs: number) {
  const { nodes, server, clients, eventKey, objectsKey, slot } = await eventOnCluster(live, { drawing, replicas: 1, acks, timeoutMs });
  // A replica is listed once it has joined its master.
  let { master, replicas } = await slotNodes(nodes, slot);
  await eventually(async () => ({ master, replicas } = await slotNodes(nodes, slot)).replicas.length > 0, 20_000, 100);
  const serverOf = (port: number) => nodes.servers.find((s) => new URL(s.url).port === String(port))!;
  const book = () => call(server.url, 'POST', `/events/${eventKey}/actions/book`, { key: clients.company.workspace.secretKey, body: { objects: [{ objectId: 'GA', quantity: 1 }] } });
  return { objectsKey, master: serverOf(master), replicas: replicas.map(serverOf), book };
}

describe('a Redis Cluster master killed while a booking waits for its WAIT', () => {
  // The booking ran on the master and its WAIT waits; the master dies: ioredis aborts the
  // pipeline's unanswered WAIT ("Command aborted due to connection close"). The call may have
  // run: it is sent again (src/inventory/atMostOnce.ts) with its record key.
  it('REDIS_REPLICA_ACKS=1, the replica frozen: 503 with applied "unknown" within the timeout', async () => {
    const { master, replicas, book } = await eventWithReplicas(1, 3_000);
    expect((await book()).status).toBe(OK);
    for (const replica of replicas) process.kill(replica.pid, 'SIGSTOP');
    try {
      const started = performance.now();
      const answer = book();
      // The call has run on the master and its WAIT waits.
      await new Promise((r) => setTimeout(r, 300));
      process.kill(master.pid, 'SIGKILL');
      const response = await answer;
      const ms = performance.now() - started;
      expect({ status: response.status, applied: response.body?.errors?.[0]?.data?.applied }).toEqual({ status: 503, applied: 'unknown' });
      expect(ms).toBeLessThan(3_000 + 1_000);
    } finally {
      for (const replica of replicas) process.kill(replica.pid, 'SIGCONT');
    }
  }, 60_000);

  it('REDIS_REPLICA_ACKS=2 with one replica (the WAIT never confirms), the replica promoted: 503 "unknown", the place booked once', async () => {
    // The change reached the replica before the master died; the call sent again must not book
    // a second place wherever it lands: its record answers it on the promoted replica, or it
    // reaches no master before its deadline (ioredis may keep it for the dead node that long).
    const { objectsKey, master, replicas, book } = await eventWithReplicas(2, 4_000);
    const replica = replicas[0]!;
    const answer = book();
    await new Promise((r) => setTimeout(r, 300));
    process.kill(master.pid, 'SIGKILL');
    const response = await answer;
    expect({ status: response.status, applied: response.body?.errors?.[0]?.data?.applied }).toEqual({ status: 503, applied: 'unknown' });
    const promoted = new Redis(replica.url);
    try {
      await eventually(async () => ((await promoted.call('ROLE')) as unknown[])[0] === 'master', 20_000, 100);
      // Past the call's deadline: nothing more can apply it.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(areaState(await promoted.hget(objectsKey, 'GA')).nonFree).toBe(1);
    } finally {
      promoted.disconnect();
    }
  }, 60_000);
});
