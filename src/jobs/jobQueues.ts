import { Cluster } from 'ioredis';
import type { ConnectionOptions } from 'bullmq';
import { sentinelOptions, type RedisTarget } from '../inventory/redis.js';

// Where BullMQ keeps the background jobs' queues (docs/redis-layout.md, "Background jobs").
// A queue's name carries a hash tag: BullMQ's scripts touch several keys of a queue at once,
// which on Redis Cluster must share a slot; one tag per queue spreads the queues over the masters.

/** The history drain's and sweep's jobs (src/jobs/backgroundJobs.ts). */
export const HISTORY_QUEUE = '{history}';
/** One delayed job per hold token (src/jobs/holdExpiry.ts). */
export const HOLD_EXPIRY_QUEUE = '{holdExpiry}';

/** The deployment's REDIS_KEY_PREFIX goes in front of BullMQ's keys too. */
export const jobsPrefix = (keyPrefix: string) => `${keyPrefix}bull`;

const retryStrategy = (attempt: number) => Math.min(attempt * 50, 500);

/**
 * The connection BullMQ's workers make theirs from. A worker blocks waiting for jobs, so
 * commands never give up (`maxRetriesPerRequest: null`, which BullMQ requires); and no
 * ioredis key prefix, since BullMQ puts its own. `close` ends a cluster connection made
 * here (BullMQ closes the connections it opens from options itself).
 */
export function workerConnection(target: RedisTarget): { connection: ConnectionOptions; close: () => Promise<void> } {
  if ('url' in target) return { connection: { url: target.url, maxRetriesPerRequest: null, retryStrategy }, close: async () => undefined };
  // Through the sentinels, as the server's own connections: a failover moves the workers too.
  if ('sentinels' in target) return { connection: { ...sentinelOptions(target), maxRetriesPerRequest: null, retryStrategy }, close: async () => undefined };
  const cluster = new Cluster(target.clusterNodes, {
    clusterRetryStrategy: retryStrategy,
    redisOptions: { maxRetriesPerRequest: null, username: target.username, password: target.password },
  });
  cluster.on('error', () => undefined); // the workers report their own errors
  return {
    connection: cluster,
    close: async () => {
      await cluster.quit().catch(() => cluster.disconnect());
    },
  };
}
