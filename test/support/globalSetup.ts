import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { startMongoServer } from '../../src/embedded/mongoServer.js';
import { startRedisCluster } from '../../src/embedded/redisCluster.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';

// One private redis-server (from PATH, temp dir, free port) and one MongoDB wire server
// (or MONGODB_URL) for the whole run. Each test server uses its own MongoDB database, so
// test files do not see each other's metadata. We never touch a Redis we did not start.
// The `cluster` project (vitest.config.ts) gets a private 3-master Redis Cluster instead,
// and its test servers run with REDIS_CLUSTER_NODES (testEnv).

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** `host:port,...` of the cluster's masters in the cluster project; '' otherwise. */
    redisClusterNodes: string;
    mongoUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'seatsio-test-redis-'));
  const inCluster = project.name === 'cluster';
  const cluster = inCluster ? await startRedisCluster({ dir }) : undefined;
  const redis = cluster ? undefined : await startRedisServer({ dir, appendOnly: false });
  let mongo: ChildServer | undefined;
  const mongoUrl = process.env.MONGODB_URL || (mongo = await startMongoServer()).url;
  // On the cluster, the first master's URL: tests that talk to Redis themselves use testRedis (harness.ts).
  project.provide('redisUrl', cluster ? cluster.servers[0]!.url : redis!.url);
  project.provide('redisClusterNodes', cluster ? cluster.addresses.join(',') : '');
  project.provide('mongoUrl', mongoUrl);
  return async () => {
    await Promise.allSettled([redis?.stop(), cluster?.stop(), mongo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
}
