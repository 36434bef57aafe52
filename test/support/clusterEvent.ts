import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { startRedisCluster, type RedisClusterNodes } from '../../src/embedded/redisCluster.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { uploadDrawing } from './charts.js';
import { createEventRecord } from './events.js';
import type { FailoverServers } from './failoverServers.js';
import { createCompanyClients, startTestServer, testEnv } from './harness.js';

// What the cluster failover tests (test/cluster/masterFailover.test.ts, waitAborted.test.ts)
// start: a cluster of their own with replicas, a server on it, and an event; and where the
// event's slot lives.

/** The ports of the master that serves `slot` now and of its replicas (those that have joined it), from the first node that answers. */
export async function slotNodes(nodes: RedisClusterNodes, slot: number): Promise<{ master: number; replicas: number[] }> {
  for (const server of nodes.servers) {
    const node = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    node.on('error', () => undefined);
    try {
      const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, ...[string, number][]][];
      const range = ranges.find(([from, to]) => from <= slot && slot <= to);
      if (range) return { master: range[2]![1], replicas: range.slice(3).map((r) => (r as [string, number])[1]) };
    } catch {
      // a node that is down: the next one
    } finally {
      node.disconnect();
    }
  }
  throw new Error('no node answered CLUSTER SLOTS');
}

/** 3 masters with `replicas` each, a server on them, a company and an event of `drawing`: `live` stops them after the test. */
export async function eventOnCluster(live: FailoverServers<RedisClusterNodes>, options: { drawing: unknown; replicas: number; acks: number; timeoutMs: number }) {
  const nodes = (live.redis = await startRedisCluster({ dir: mkdtempSync(join(live.dir, 'set-')), masters: 3, replicas: options.replicas }));
  const env = testEnv({ REDIS_CLUSTER_NODES: nodes.addresses.join(','), REDIS_TIMEOUT_MS: String(options.timeoutMs), REDIS_REPLICA_ACKS: String(options.acks), LOG_LEVEL: process.env.FO_LOG ?? 'silent' });
  const server = (live.server = await startTestServer(env));
  const clients = await createCompanyClients(server.url);
  const record = await createEventRecord(clients.api, (await uploadDrawing(clients.api, options.drawing)).key);
  const doc = (await server.app.parts.repos.events.findByKey(clients.company.workspace.id, record.key))!;
  const objectsKey = `${env.REDIS_KEY_PREFIX}${eventKeys(doc).objects}`;
  return { nodes, server, clients, eventKey: record.key, objectsKey, slot: calculateSlot(objectsKey) };
}
