import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Drawing } from '../../src/domain/drawing.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';
import { uploadDrawing } from './charts.js';
import type { EventRecord } from './eventAdmin.js';
import type { Api, Response } from './harness.js';

// Helpers for the tests of events and their objects: creating events, reading object state,
// and the status-changing calls. Admin-side record checks (stored event, Redis fields):
// eventAdmin.ts.

export type Info = Record<string, any>;

export interface EventBody {
  eventKey?: string;
  tableBookingConfig?: { mode: string; tables?: Record<string, string> };
  channels?: { key: string; name: string; color?: string; index?: number; objects?: string[]; areaPlaces?: Record<string, number> }[];
  forSaleConfig?: { forSale: boolean; objects?: string[]; areaPlaces?: Record<string, number>; categories?: (string | number)[] };
  [field: string]: unknown;
}

export const eventPath = (key: string, rest = '') => `/events/${encodeURIComponent(key)}${rest}`;

/** `POST /events` that must succeed (200); returns the event record. */
export async function createEventRecord(api: Api, chartKey: string, body: EventBody = {}): Promise<EventRecord> {
  const response = await api.post<EventRecord>('/events', { chartKey, ...body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** `POST /events`; returns the new event's key. */
export async function createEvent(api: Api, chartKey: string, body: EventBody = {}): Promise<string> {
  return (await createEventRecord(api, chartKey, body)).key;
}

export interface TestEvent {
  id: number;
  key: string;
  chartKey: string;
}

/** Uploads the drawing as a new chart and creates an event on it, with a random key unless `body` gives one. */
export async function newEvent(api: Api, drawing: Drawing, body: EventBody = {}): Promise<TestEvent> {
  const chart = await uploadDrawing(api, drawing);
  const { id, key } = await createEventRecord(api, chart.key, { eventKey: randomUUID(), ...body });
  return { id, key, chartKey: chart.key };
}

/** `GET /events/{key}/objects?label=...`: the objects' current state, keyed by label. */
export async function objectInfos(api: Api, eventKey: string, labels: string[]): Promise<Record<string, Info>> {
  const query = labels.map((l) => `label=${encodeURIComponent(l)}`).join('&');
  const response = await api.get(eventPath(eventKey, `/objects?${query}`));
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
  return api.post(eventPath(eventKey, `/actions/${name}${expand ? '?expand=objects' : ''}`), body);
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

/** The member of a GA hold in an event's gaHolds hash and gaHoldExpiry zset, as the scripts write it (docs/redis-layout.md). */
export const holdMemberOf = (label: string, token: string) => `${label}${FIELD_SEPARATOR}${token}`;

/**
 * Best-available answers (all 200, `sizes[i]` objects in answer i) that never give an object
 * twice, and an event whose booked objects are exactly those answered.
 */
export async function expectBookedAsAnswered(api: Api, eventKey: string, answers: Response[], sizes: number[]): Promise<string[]> {
  const given: string[] = [];
  answers.forEach((response, i) => {
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects).toHaveLength(sizes[i]!);
    given.push(...response.body.objects);
  });
  expect(new Set(given).size).toBe(given.length);
  const report = await api.get(`/reports/events/${encodeURIComponent(eventKey)}/byStatus/booked`);
  expect(new Set((report.body.booked as { label: string }[]).map((o) => o.label))).toEqual(new Set(given));
  return given;
}
