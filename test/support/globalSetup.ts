import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { startMongoServer } from '../../src/embedded/mongoServer.js';
import { startRedisCluster } from '../../src/embedded/redisCluster.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import { serverEnv, startServerWith, type TestServer } from './testServer.js';

// One private redis-server (from PATH, temp dir, free port) and one MongoDB wire server
// (or MONGODB_URL) for the whole run. Each test server uses its own MongoDB database, so
// test files do not see each other's metadata. We never touch a Redis we did not start.
// The `cluster` project (vitest.config.ts) gets a private 3-master Redis Cluster instead,
// and its test servers run with REDIS_CLUSTER_NODES (testEnv).
// The `redis` and `cluster` projects also get one server on those stores that the files
// which see a server only through its API share (harness.ts, useServerWithCompany('shared')),
// each file in companies of its own; it runs in vitest's main process. The `unit` project
// gets none of these.

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    /** `host:port,...` of the cluster's masters in the cluster project; '' otherwise. */
    redisClusterNodes: string;
    mongoUrl: string;
    /** The shared test server's URL; '' in a project without one. */
    sharedServerUrl: string;
  }
}

export default async function setup(project: TestProject) {
  // The unit tests use no store and no server.
  if (project.name === 'unit') return;
  const dir = mkdtempSync(join(tmpdir(), 'seatsio-test-redis-'));
  const inCluster = project.name === 'cluster';
  const cluster = inCluster ? await startRedisCluster({ dir }) : undefined;
  const redis = cluster ? undefined : await startRedisServer({ dir, appendOnly: false });
  let mongo: ChildServer | undefined;
  const mongoUrl = process.env.MONGODB_URL || (mongo = await startMongoServer()).url;
  // On the cluster, the first master's URL: tests that talk to Redis themselves use testRedis (harness.ts).
  const stores = { redisUrl: cluster ? cluster.servers[0]!.url : redis!.url, redisClusterNodes: cluster ? cluster.addresses.join(',') : '', mongoUrl };
  // The failover files start servers of their own around the faults they make.
  const shared: TestServer | undefined = project.name === 'failover' ? undefined : await startServerWith(serverEnv(stores));
  project.provide('redisUrl', stores.redisUrl);
  project.provide('redisClusterNodes', stores.redisClusterNodes);
  project.provide('mongoUrl', mongoUrl);
  project.provide('sharedServerUrl', shared?.url ?? '');
  return async () => {
    await shared?.stop();
    await Promise.allSettled([redis?.stop(), cluster?.stop(), mongo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
}
