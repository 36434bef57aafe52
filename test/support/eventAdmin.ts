import { randomInt } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import type { EventDoc } from '../../src/metadata/events.js';
import { useServerWithCompany, type Api, type ServerWithCompany, type TestServer } from './harness.js';

// Helpers shared by the event integration tests (events, channels, for sale).

export interface EventRecord {
  id: number;
  key: string;
  eventKey?: string;
  chartKey: string;
  name: string | null;
  date: string | null;
  tableBookingConfig: { mode: string; tables?: Record<string, string> };
  supportsBestAvailable: boolean;
  forSaleConfig: { forSale: boolean; objects: string[]; areaPlaces: Record<string, number>; categories: (string | number)[] } | null;
  channels: {
    id: string;
    key: string;
    name: string;
    color: string | null;
    index: number | null;
    objects: string[];
    areaPlaces: Record<string, number>;
  }[];
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

/**
 * A server with a test company whose event ids start at a random offset. Every test server
 * shares one redis-server while each has its own database (and so its own id counter), and
 * inventory keys are named by event id: without the offset, event 1 of two test files
 * running at once would share Redis keys (sale config, the daily for-sale counter).
 */
export function useEventServer(): ServerWithCompany {
  const ctx = useServerWithCompany();
  beforeAll(async () => {
    const offset = 1_000_000 * randomInt(1, 1_000_000);
    await ctx.server.app.deps.db
      .collection<{ _id: string; value: number }>('counters')
      // $inc: the embedded MongoDB wire server has no $max.
      .updateOne({ _id: 'events' }, { $inc: { value: offset } }, { upsert: true });
  });
  return ctx;
}

export async function createEvent(api: Api, body: Record<string, unknown>): Promise<EventRecord> {
  const response = await api.post<EventRecord>('/events', body);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function retrieveEvent(api: Api, key: string): Promise<EventRecord> {
  const response = await api.get<EventRecord>(`/events/${encodeURIComponent(key)}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export const eventPath = (key: string, rest = '') => `/events/${encodeURIComponent(key)}${rest}`;

/** The stored event, for the hash tag its inventory keys carry. */
export async function storedEvent(server: TestServer, workspaceId: number, key: string): Promise<EventDoc> {
  const doc = await server.app.deps.repos.events.findByKey(workspaceId, key);
  if (!doc) throw new Error(`event ${key} is not stored`);
  return doc;
}

/** The channel and for-sale fields the sales flow reads for the event (saleConfigFields). */
export async function saleConfigOf(server: TestServer, workspaceId: number, key: string): Promise<Record<string, string>> {
  return server.app.deps.redis.hgetall(eventKeys(await storedEvent(server, workspaceId, key)).saleConfig);
}

/** Every Redis key of the event's hash tag (SCAN, so a big keyspace is not blocked). */
export async function redisKeysOf(server: TestServer, event: Pick<EventDoc, 'tag'>): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    // SCAN patterns are not prefixed by ioredis (REDIS_KEY_PREFIX), the returned keys are.
    const prefix = server.app.deps.redis.options.keyPrefix ?? '';
    const [next, keys] = await server.app.deps.redis.scan(cursor, 'MATCH', `${prefix}inv:{${event.tag}}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}
