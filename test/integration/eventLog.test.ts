import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, eventPath } from '../support/events.js';
import { client, expectError, useServerWithCompany } from '../support/harness.js';
import { expectCursorWalk } from '../support/pagination.js';

// The event log (docs/seatsio-behaviour.md, "Event log"): what admins changed in a
// workspace, oldest first, paged like every list.

const ctx = useServerWithCompany('shared');

describe('event log', () => {
  it('lists chart and event changes of the workspace oldest first, with the keys they were about', async () => {
    const { api, company } = await ctx.freshCompany();
    const chart = await uploadDrawing(api, rowsWithoutSections);
    const event = await createEvent(api, chart.key);
    expect((await api.post(eventPath(event), { name: 'Renamed' })).status).toBe(200);
    // A chart in use gets a draft on update; publishing it is logged, the update is not.
    expect((await api.post(`/charts/${chart.key}`, { name: 'Draft' })).status).toBe(204);
    expect((await api.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);
    expect((await api.delete(eventPath(event))).status).toBe(204);

    const response = await api.get('/event-log');
    expect(response.status, response.text).toBe(200);
    const items = response.body.items as { id: number; type: string; timestamp: string; data: Record<string, string> }[];
    expect(items.map((i) => [i.type, i.data.key])).toEqual([
      ['chart.created', chart.key],
      ['event.created', event],
      ['event.updated', event],
      ['chart.published', chart.key],
      ['event.deleted', event],
    ]);
    for (const item of items) {
      expect(item.data.workspaceKey).toBe(company.workspace.key);
      expect(Date.parse(item.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    }
    const ids = items.map((i) => i.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const page = async (path: string) => {
      const answer = await api.get(path);
      expect(answer.status, answer.text).toBe(200);
      return answer.body;
    };
    await expectCursorWalk(page, '/event-log', ids, 2);
  });

  it('logs an edit made in place on a chart no event uses as a publication: created, then published', async () => {
    const { api } = await ctx.freshCompany();
    const chart = await uploadDrawing(api, rowsWithoutSections);
    expect((await api.post(`/charts/${chart.key}`, { name: 'Renamed' })).status).toBe(204);
    const types = async () => ((await api.get('/event-log')).body.items as { type: string; data: { key: string } }[]).map((i) => [i.type, i.data.key]);
    expect(await types()).toEqual([
      ['chart.created', chart.key],
      ['chart.published', chart.key],
    ]);
    // Once an event uses it, an edit makes a draft: not logged until it is published.
    const event = await createEvent(api, chart.key);
    expect((await api.post(`/charts/${chart.key}`, { name: 'Draft' })).status).toBe(204);
    expect(await types()).toEqual([
      ['chart.created', chart.key],
      ['chart.published', chart.key],
      ['event.created', event],
    ]);
  });

  it('keeps each workspace to its own log; a new workspace starts with its creation', async () => {
    const mine = await ctx.freshCompany();
    await uploadDrawing(mine.api, rowsWithoutSections);
    const created = await mine.admin.post('/workspaces', { name: 'Second' });
    expect(created.status, created.text).toBe(200);
    const second = client(ctx.server.url, created.body.secretKey);
    expect((await second.get('/event-log')).body.items.map((i: { type: string; data: unknown }) => [i.type, i.data])).toEqual([
      ['workspace.created', { workspaceKey: created.body.key }],
    ]);
    expect((await mine.api.get('/event-log')).body.items.map((i: { type: string }) => i.type)).toEqual(['chart.created']);
    const other = await ctx.freshCompany();
    expect((await other.api.get('/event-log')).body.items).toEqual([]);
  });

  it('refuses bad page requests with 400', async () => {
    for (const query of ['limit=0', 'limit=1001', 'start_after_id=x', 'start_after_id=1&end_before_id=2']) {
      expectError(await ctx.api.get(`/event-log?${query}`), 400, 'GENERAL_ERROR');
    }
  });
});
