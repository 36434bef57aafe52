import { randomBytes } from 'node:crypto';
import type { RunningApp } from '../../src/app.js';

// Starting the app in this process for a test: its environment on the run's stores and the
// start itself. Apart from harness.ts, which re-exports it, because globalSetup.ts starts the
// shared server with it and may not import vitest's test API.

export const SYSTEM_SECRET = 'test-system-secret';

export function newDatabaseName(): string {
  return `t_${randomBytes(6).toString('hex')}`;
}

/** The stores of a test run (globalSetup.ts): one Redis or a cluster's masters, and MongoDB. */
export interface TestStores {
  redisUrl: string;
  /** `host:port,...` of a cluster's masters in the cluster project; '' otherwise. */
  redisClusterNodes: string;
  mongoUrl: string;
}

/** testEnv's environment on the given stores (globalSetup has no `inject`). */
export function serverEnv(stores: TestStores, overrides: Record<string, string> = {}): Record<string, string> {
  const database = overrides.MONGODB_DB ?? newDatabaseName();
  return {
    REDIS_URL: stores.redisUrl,
    // Set in the cluster project (vitest.config.ts): the servers then use the cluster, not REDIS_URL.
    REDIS_CLUSTER_NODES: stores.redisClusterNodes,
    MONGODB_URL: stores.mongoUrl,
    MONGODB_DB: database,
    // Test servers share one Redis; ids restart at 1 in each database, so keys are kept apart.
    REDIS_KEY_PREFIX: `${database}:`,
    HOST: '127.0.0.1',
    PORT: '0',
    SYSTEM_API_SECRET: SYSTEM_SECRET,
    LOG_LEVEL: 'silent',
    // Test files run several at once on few cores (vitest.config.ts): a reader thread at a lower
    // priority would wait behind the other files' servers, which is its job in production but
    // not what a test here looks at (the priority itself is tested in statusStream.test.ts).
    READER_THREAD_NICE: '0',
    ...overrides,
  };
}

export interface TestServer {
  url: string;
  app: RunningApp;
  stop(): Promise<void>;
}

/**
 * Starts the app in this process with `env`. Its modules are loaded here, when a server is
 * first started, not when this file is imported: a file on the shared server never loads them.
 */
export async function startServerWith(env: Record<string, string>): Promise<TestServer> {
  const [{ startApp }, { loadConfig }, { createLogger }] = await Promise.all([import('../../src/app.js'), import('../../src/config.js'), import('../../src/log.js')]);
  const config = loadConfig(env);
  const app = await startApp(config, createLogger(config.logLevel));
  const url = `http://127.0.0.1:${app.port}`;
  return { url, app, stop: async () => void (await app.shutdown(5_000)) };
}
