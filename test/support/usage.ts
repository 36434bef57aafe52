import { expect } from 'vitest';
import { client, type Api, type ServerWithCompany } from './harness.js';

// Helpers for the usage tests: a second workspace whose usage counts apart, and the month
// the reports are read for.

/** A client for a second workspace of the company (created with the admin key). */
export async function secondWorkspace(ctx: ServerWithCompany, name = 'Second workspace'): Promise<{ id: number; api: Api }> {
  const response = await ctx.admin.post('/workspaces', { name });
  expect(response.status, response.text).toBe(200);
  return { id: response.body.id, api: client(ctx.server.url, response.body.secretKey) };
}

/** The current UTC month, `YYYY-MM`, as usage reports name it. */
export const thisMonth = () => new Date().toISOString().slice(0, 7);
