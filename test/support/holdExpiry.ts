import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, inject } from 'vitest';
import type { EventRef } from '../../src/inventory/eventKeys.js';
import type { RedisClient } from '../../src/inventory/redis.js';
import { HOLD_EXPIRY_QUEUE } from '../../src/jobs/jobQueues.js';
import { generatedDrawing, rowLabel } from '../fixtures/drawings.js';
import { uploadDrawing } from './charts.js';
import { retrieveEvent } from './eventAdmin.js';
import { createEvent } from './events.js';
import { createCompanyClients, startTestServer, testRedis, type CompanyClients, type TestServer } from './harness.js';
import { storedHistory } from './history.js';

// What the hold-expiry test files share (test/integration/holdExpiry*.test.ts): a 100 x 100
// seat chart, servers and Redis connections stopped after the file, a company with an event,
// hold tokens expiring in a given time, and their BullMQ jobs.

export const ROWS = 100;
export const SEATS = 100;
export const drawing = generatedDrawing({ sections: 0, rowsPerSection: ROWS, seatsPerRow: SEATS });
export const seat = (i: number) => `${rowLabel(Math.floor(i / SEATS))}-${(i % SEATS) + 1}`;

export interface Setup {
  clients: CompanyClients;
  eventKey: string;
  ref: EventRef;
}

/** Registers the file's hooks; what it returns starts servers and connections the hooks stop. */
export function holdExpiryHarness() {
  let mongo: MongoClient;
  const servers: TestServer[] = [];
  const connections: RedisClient[] = [];

  beforeAll(async () => {
    mongo = new MongoClient(inject('mongoUrl'));
    await mongo.connect();
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(connections.map((redis) => redis.quit()));
    await mongo.close();
  });

  return {
    async server(env: Record<string, string>): Promise<TestServer> {
      const started = await startTestServer(env);
      servers.push(started);
      return started;
    },
    /** A connection of the test's own to the server's Redis namespace (REDIS_KEY_PREFIX). */
    redisOf(env: Record<string, string>): RedisClient {
      const redis = testRedis(env.REDIS_KEY_PREFIX);
      connections.push(redis);
      return redis;
    },
    stored: (database: string, eventId: number) => storedHistory(mongo, database, eventId),
  };
}

export async function setUp(app: TestServer): Promise<Setup> {
  const clients = await createCompanyClients(app.url);
  const chart = (await uploadDrawing(clients.api, drawing)).key;
  const eventKey = await createEvent(clients.api, chart);
  const { id } = await retrieveEvent(clients.api, eventKey);
  // An event outside any season is tagged with its own id (docs/redis-layout.md).
  return { clients, eventKey, ref: { _id: id, tag: String(id) } };
}

/** A hold token of the workspace expiring `ms` from now (the API counts in whole minutes). */
export async function tokenExpiringIn(app: TestServer, setup: Setup, ms: number) {
  return app.app.parts.holdTokens.create(setup.clients.company.workspace.id, ms / 60_000, Date.now());
}

export const jobKey = (env: Record<string, string>, token: string) => `${env.REDIS_KEY_PREFIX}bull:${HOLD_EXPIRY_QUEUE}:${token}`;
export const jobExists = async (app: TestServer, env: Record<string, string>, token: string) => (await app.app.parts.jobsRedis.exists(jobKey(env, token))) === 1;
