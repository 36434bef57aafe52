import { expect } from 'vitest';
import { client, type Api, type ServerWithCompany, type TestServer } from './harness.js';

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

/**
 * Waits until the history drain has counted every change made so far: used objects are
 * counted by the drain from the history, so they show up one drain later (docs/history.md,
 * "Used objects"). Runs the drain itself rather than waiting for its next turn; a stream
 * the background drain has at that moment is tried again until none is left.
 */
export async function usageCounted(server: TestServer): Promise<void> {
  const { historyStreams, historyDrain } = server.app.parts;
  for (let attempt = 0; attempt < 200; attempt++) {
    await historyStreams.flush();
    const run = await historyDrain.run();
    if (run.busy === 0 && run.unfinished === 0 && (await historyStreams.progress()).pendingStreams === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the history drain did not catch up within 4 s');
}
