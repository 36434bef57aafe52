import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { TestServer } from './harness.js';

// What a failover test file starts (test/support/failover.ts for Sentinel,
// test/cluster/masterFailover.test.ts for a cluster): a temporary folder for its Redis nodes,
// and per test a set of Redis nodes and a server on them, both stopped after the test,
// the server first, whatever the test did to the nodes.

export interface FailoverServers<Nodes> {
  /** The file's folder (made before its tests, removed after them). */
  dir: string;
  /** The running test's Redis nodes: a sentinel set, or a cluster. */
  redis?: Nodes;
  server?: TestServer;
}

/** Registers the file's hooks; the test fills in `redis` and `server`. */
export function failoverServers<Nodes extends { stop(): Promise<void> }>(name: string): FailoverServers<Nodes> {
  const live: FailoverServers<Nodes> = { dir: '' };
  beforeAll(() => {
    live.dir = mkdtempSync(join(tmpdir(), `seatsio-${name}-`));
  });
  afterEach(async () => {
    await live.server?.stop();
    await live.redis?.stop();
    live.server = undefined;
    live.redis = undefined;
  });
  afterAll(() => rmSync(live.dir, { recursive: true, force: true }));
  return live;
}
