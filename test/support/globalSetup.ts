import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { startMongoServer } from '../../src/embedded/mongoServer.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';

// One private redis-server (from PATH, temp dir, free port) and one MongoDB wire server
// (or MONGODB_URL) for the whole run. Each test server uses its own MongoDB database, so
// test files do not see each other's metadata. We never touch a Redis we did not start.

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
    mongoUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'seatsio-test-redis-'));
  const redis = await startRedisServer({ dir, appendOnly: false });
  let mongo: ChildServer | undefined;
  const mongoUrl = process.env.MONGODB_URL || (mongo = await startMongoServer()).url;
  project.provide('redisUrl', redis.url);
  project.provide('mongoUrl', mongoUrl);
  return async () => {
    await Promise.allSettled([redis.stop(), mongo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  };
}
