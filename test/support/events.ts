import { randomInt } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { useServerWithCompany, type Api, type Response, type ServerWithCompany } from './harness.js';

// Helpers for the priority-lane tests: a server whose events do not share Redis keys with
// other test files, creating events, reading object state, and the status-changing calls.

export type Info = Record<string, any>;

/**
 * A server with a test company whose event ids start at a random offset: every test server
 * shares one redis-server while each has its own database (and so its own id counter), and
 * inventory keys are named by event id, so without the offset event 1 of two test files
 * running at once would share its objects. ($inc, not $max: the embedded test server has no $max.)
 */
export function useStatusServer(): ServerWithCompany {
  const ctx = useServerWithCompany();
  beforeAll(async () => {
    const offset = 1_000_000 * randomInt(1, 1_000_000);
    await ctx.server.app.deps.db
      .collection<{ _id: string; value: number }>('counters')
      .updateOne({ _id: 'events' }, { $inc: { value: offset } }, { upsert: true });
  });
  return ctx;
}

export interface EventBody {
  eventKey?: string;
  tableBookingConfig?: { mode: string; tables?: Record<string, string> };
  channels?: { key: string; name: string; color?: string; index?: number; objects?: string[]; areaPlaces?: Record<string, number> }[];
  forSaleConfig?: { forSale: boolean; objects?: string[]; areaPlaces?: Record<string, number>; categories?: (string | number)[] };
  [field: string]: unknown;
}

/** `POST /events`; returns the new event's key. */
export async function createEvent(api: Api, chartKey: string, body: EventBody = {}): Promise<string> {
  const response = await api.post('/events', { chartKey, ...body });
  expect(response.status, response.text).toBeOneOf([200, 201]);
  return response.body.eventKey ?? response.body.key;
}

/** `GET /events/{key}/objects?label=...`: the objects' current state, keyed by label. */
export async function objectInfos(api: Api, eventKey: string, labels: string[]): Promise<Record<string, Info>> {
  const query = labels.map((l) => `label=${encodeURIComponent(l)}`).join('&');
  const response = await api.get(`/events/${encodeURIComponent(eventKey)}/objects?${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function objectInfo(api: Api, eventKey: string, label: string): Promise<Info> {
  return (await objectInfos(api, eventKey, [label]))[label]!;
}

/** Label -> status of the given objects. */
export async function statuses(api: Api, eventKey: string, labels: string[]): Promise<Record<string, string>> {
  const infos = await objectInfos(api, eventKey, labels);
  return Object.fromEntries(labels.map((l) => [l, infos[l]!.status as string]));
}

export type Action = 'book' | 'hold' | 'release' | 'change-object-status' | 'put-up-for-resale';

/** `POST /events/{key}/actions/{action}`, with `?expand=objects` when `expand` is true. */
export function action(api: Api, eventKey: string, name: Action, body: unknown, expand = false): Promise<Response> {
  return api.post(`/events/${encodeURIComponent(eventKey)}/actions/${name}${expand ? '?expand=objects' : ''}`, body);
}

/** An action that must succeed (204); fails the test with the response otherwise. */
export async function done(api: Api, eventKey: string, name: Action, body: Record<string, unknown>): Promise<void> {
  const response = await action(api, eventKey, name, body);
  expect(response.status, response.text).toBe(204);
}

export async function holdToken(api: Api, expiresInMinutes?: number): Promise<string> {
  const response = await api.post('/hold-tokens', expiresInMinutes === undefined ? {} : { expiresInMinutes });
  expect(response.status, response.text).toBe(200);
  return response.body.holdToken;
}

/** Sets a hold token's expiry (0 expires it now). */
export async function expireIn(api: Api, token: string, expiresInMinutes: number): Promise<void> {
  const response = await api.post(`/hold-tokens/${token}`, { expiresInMinutes });
  expect(response.status, response.text).toBe(200);
}

/** The codes of an error response's errors. */
export const codes = (response: Response): string[] => (response.body?.errors ?? []).map((e: { code: string }) => e.code);
