import { expect } from 'vitest';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { scanKeys } from '../../src/inventory/redis.js';
import type { Channel, EventDoc, ForSaleConfig } from '../../src/domain/event.js';
import { eventPath } from './events.js';
import type { Api, TestServer } from './harness.js';

// The event record as the admin endpoints return it, and what the server stores for an
// event (its document, its Redis keys). Creating events and reading objects: events.ts.

export interface EventRecord {
  id: number;
  key: string;
  eventKey?: string;
  chartKey: string;
  name: string | null;
  date: string | null;
  tableBookingConfig: { mode: string; tables?: Record<string, string> };
  supportsBestAvailable: boolean;
  forSaleConfig: ForSaleConfig | null;
  channels: Channel[];
  objectCategories?: Record<string, string | number>;
  categories: { key: string | number; label: string; color: string; accessible: boolean }[];
  createdOn: string;
  updatedOn: string | null;
  isSeason: boolean;
  isTopLevelSeason: boolean;
  isPartialSeason: boolean;
  isEventInSeason: boolean;
  isInThePast: boolean;
  bookWholeTables: boolean;
}

export async function retrieveEvent(api: Api, key: string): Promise<EventRecord> {
  const response = await api.get<EventRecord>(eventPath(key));
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The stored event, for the hash tag its inventory keys carry. */
export async function storedEvent(server: TestServer, workspaceId: number, key: string): Promise<EventDoc> {
  const doc = await server.app.parts.repos.events.findByKey(workspaceId, key);
  if (!doc) throw new Error(`event ${key} is not stored`);
  return doc;
}

/** The channel and for-sale fields the sales flow reads for the event (saleConfigFields). */
export async function saleConfigOf(server: TestServer, workspaceId: number, key: string): Promise<Record<string, string>> {
  return server.app.parts.redis.hgetall(eventKeys(await storedEvent(server, workspaceId, key)).saleConfig);
}

/** Every Redis key of the event's hash tag (SCAN, so a big keyspace is not blocked; every master of a cluster). */
export async function redisKeysOf(server: TestServer, event: Pick<EventDoc, 'tag'>): Promise<string[]> {
  const found: string[] = [];
  // SCAN patterns are not prefixed by ioredis (REDIS_KEY_PREFIX), the returned keys are.
  const prefix = server.app.parts.redis.options.keyPrefix ?? '';
  for await (const keys of scanKeys(server.app.parts.redis, `${prefix}inv:{${event.tag}}*`)) found.push(...keys);
  return found;
}
