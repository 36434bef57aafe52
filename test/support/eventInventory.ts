import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Drawing } from '../../src/domain/drawing.js';
import { uploadDrawing } from './charts.js';
import { client, type Api, type ServerWithCompany } from './harness.js';

// Helpers for the tests that read an event's inventory (object info, extra data, orders,
// by-status report, usage).

export interface TestEvent {
  id: number;
  key: string;
  chartKey: string;
}

/** Uploads the drawing as a new chart and creates an event on it with `POST /events`. */
export async function newEvent(api: Api, drawing: Drawing, body: Record<string, unknown> = {}): Promise<TestEvent> {
  const chart = await uploadDrawing(api, drawing);
  const response = await api.post('/events', { chartKey: chart.key, eventKey: randomUUID(), ...body });
  expect(response.status, response.text).toBe(200);
  return { id: response.body.id, key: response.body.key, chartKey: chart.key };
}

export const ev = (key: string, rest = '') => `/events/${encodeURIComponent(key)}${rest}`;

/** A status-changing call that must succeed (204). */
export async function change(api: Api, key: string, action: 'book' | 'hold' | 'release' | 'change-object-status', body: Record<string, unknown>): Promise<void> {
  const response = await api.post(ev(key, `/actions/${action}`), body);
  expect(response.status, response.text).toBe(204);
}

export async function holdToken(api: Api): Promise<string> {
  const response = await api.post('/hold-tokens', {});
  expect(response.status, response.text).toBe(200);
  return response.body.holdToken;
}

/** `GET /events/{key}/objects?label=..&label=..` that must succeed. */
export async function objectInfos(api: Api, key: string, labels: string[]): Promise<Record<string, any>> {
  const query = labels.map((label) => `label=${encodeURIComponent(label)}`).join('&');
  const response = await api.get(ev(key, `/objects?${query}`));
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function objectInfo(api: Api, key: string, label: string): Promise<Record<string, any>> {
  return (await objectInfos(api, key, [label]))[label];
}

/** A client for a second workspace of the company (created with the admin key). */
export async function secondWorkspace(ctx: ServerWithCompany, name = 'Second workspace'): Promise<{ id: number; api: Api }> {
  const response = await ctx.admin.post('/workspaces', { name });
  expect(response.status, response.text).toBe(200);
  return { id: response.body.id, api: client(ctx.server.url, response.body.secretKey) };
}

/** The current UTC month, `YYYY-MM`, as usage reports name it. */
export const thisMonth = () => new Date().toISOString().slice(0, 7);
