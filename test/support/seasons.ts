import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Api } from './harness.js';

/** `POST /seasons` with a random key unless `body` gives one; returns the season record. */
export async function createSeason(api: Api, chartKey: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await api.post('/seasons', { chartKey, key: randomUUID(), ...body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The keys of a season record's events, in creation order. */
export const eventKeysOf = (season: Record<string, any>): string[] => season.events.map((e: { key: string }) => e.key);
