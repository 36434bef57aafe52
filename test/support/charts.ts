import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Drawing } from '../../src/domain/drawing.js';
import { basic, type Api, type TestServer } from './harness.js';
import { newEventFields } from './eventDocs.js';

// Helpers shared by the chart integration tests (charts, chart versions, chart categories).

export interface ChartRecord {
  id: number;
  key: string;
  name: string;
  status: 'NOT_USED' | 'PUBLISHED' | 'PUBLISHED_WITH_DRAFT';
  tags: string[];
  archived: boolean;
  publishedVersionThumbnailUrl: string;
  draftVersionThumbnailUrl: string | null;
  events?: { id: number | string; key: string; [field: string]: unknown }[];
  validation?: { errors: string[]; warnings: string[] };
  venueType?: string;
  zones?: { key: string; label: string }[];
}

export interface ChartPage {
  items: ChartRecord[];
  next_page_starts_after?: string;
  previous_page_ends_before?: string;
}

export const VALIDATORS = [
  'VALIDATE_DUPLICATE_LABELS',
  'VALIDATE_OBJECTS_WITHOUT_CATEGORIES',
  'VALIDATE_UNLABELED_OBJECTS',
  'VALIDATE_FOCAL_POINT',
  'VALIDATE_OBJECT_TYPES_PER_CATEGORY',
] as const;

/** `POST /charts`; creations answer 200 or 201 with the chart record (docs/seatsio-behaviour.md, "Conventions"). */
export async function createChart(api: Api, body?: unknown): Promise<ChartRecord> {
  const response = await api.post<ChartRecord>('/charts', body);
  expect(response.status, response.text).toBeOneOf([200, 201]);
  return response.body;
}

/** `POST /system/public/charts/{key}` with the drawing as JSON text; answers 201. */
export async function uploadDrawing(api: Api, drawing: unknown, key: string = randomUUID()): Promise<ChartRecord> {
  const response = await api.post<ChartRecord>(`/system/public/charts/${key}`, undefined, {
    raw: JSON.stringify(drawing),
    headers: { 'content-type': 'application/json' },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

export async function retrieveChart(api: Api, key: string, query = ''): Promise<ChartRecord> {
  const response = await api.get<ChartRecord>(`/charts/${encodeURIComponent(key)}${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function drawingOf(api: Api, key: string, version: 'published' | 'draft' = 'published'): Promise<Drawing> {
  const response = await api.get<Drawing>(`/charts/${encodeURIComponent(key)}/version/${version}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function listCharts(api: Api, path = '/charts'): Promise<ChartPage> {
  const response = await api.get<ChartPage>(path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

export async function setValidatorLevel(admin: Api, validator: string, level: 'OFF' | 'WARNING' | 'ERROR'): Promise<void> {
  const response = await admin.post('/accounts/me/settings', { key: validator, value: level });
  expect(response.status, response.text).toBe(204);
}

/**
 * Links an event to the chart through the repositories (status NOT_USED → PUBLISHED),
 * skipping POST /events on purpose: chart tests put charts in use whatever their
 * validation findings, which POST /events would refuse. Returns the event's key.
 */
export async function putInUse(server: TestServer, workspaceId: number, chart: ChartRecord, key: string = randomUUID()): Promise<string> {
  await server.app.parts.repos.events.create(newEventFields({ workspaceId, chartId: chart.id, chartKey: chart.key, key }));
  await server.app.parts.repos.charts.markUsed(chart.id);
  return key;
}

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A GET whose body is kept as bytes (the harness client reads text). */
export async function getBytes(
  url: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { headers: { authorization: basic(key), ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

export const clone = <T>(value: T): T => structuredClone(value);

/** A drawing with a name of its own, cloned so the fixture stays untouched. */
export function named<T extends Drawing>(drawing: T, name: string): T {
  return { ...clone(drawing), name };
}
