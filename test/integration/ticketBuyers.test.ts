import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, client, expectError, useServerWithCompany, type Api } from '../support/harness.js';

// Ticket buyer ids (docs/seatsio-behaviour.md, "Ticket buyers"): added, removed and listed
// per workspace, each id once however many calls name it at the same time.

const ctx = useServerWithCompany('shared');

const ids = (n: number) => Array.from({ length: n }, () => randomUUID());

/** Every id of the workspace, following the pages to the end. */
async function listAll(api: Api, limit = 1000): Promise<string[]> {
  const all: string[] = [];
  let path = `/ticket-buyers?limit=${limit}`;
  for (;;) {
    const page = await api.get(path);
    expect(page.status, page.text).toBe(200);
    all.push(...page.body.items);
    if (page.body.next_page_starts_after === undefined) return all;
    path = `/ticket-buyers?limit=${limit}&start_after_id=${page.body.next_page_starts_after}`;
  }
}

describe('ticket buyers', () => {
  it('adds ids once each: repeats within a call count once, nulls are ignored, ids already there say so', async () => {
    const { api } = await ctx.freshCompany();
    const [a, b, c] = ids(3);
    const first = await api.post('/ticket-buyers', { ids: [a, a, null, b, a, b] });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ added: [a, b], alreadyPresent: [] });

    const second = await api.post('/ticket-buyers', { ids: [c, a] });
    expect(second.body).toEqual({ added: [c], alreadyPresent: [a] });
    expect((await api.post('/ticket-buyers', { ids: [] })).body).toEqual({ added: [], alreadyPresent: [] });
    // Newest first.
    expect(await listAll(api)).toEqual([c, b, a]);
  });

  it('removes ids: those there are removed, the others are not present; nulls and repeats as for adding', async () => {
    const { api } = await ctx.freshCompany();
    const [a, b, c, d] = ids(4);
    await api.post('/ticket-buyers', { ids: [a, b, c] });
    const removed = await api.delete('/ticket-buyers', { ids: [a, null, d, a, c] });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toEqual({ removed: [a, c], notPresent: [d] });
    expect(await listAll(api)).toEqual([b]);
    expect((await api.delete('/ticket-buyers', { ids: [a] })).body).toEqual({ removed: [], notPresent: [a] });
    // Added again after its removal: a new id at the top of the list.
    expect((await api.post('/ticket-buyers', { ids: [a] })).body).toEqual({ added: [a], alreadyPresent: [] });
    expect(await listAll(api)).toEqual([a, b]);
  });

  it('pages the list like every list: newest first, cursors forward and back', async () => {
    const { api } = await ctx.freshCompany();
    const added = ids(5);
    await api.post('/ticket-buyers', { ids: added });
    const newestFirst = [...added].reverse();

    const forward: any[] = [];
    let path = '/ticket-buyers?limit=2';
    for (;;) {
      const page = (await api.get(path)).body;
      forward.push(page);
      if (page.next_page_starts_after === undefined) break;
      expect(typeof page.next_page_starts_after).toBe('string');
      path = `/ticket-buyers?limit=2&start_after_id=${page.next_page_starts_after}`;
    }
    expect(forward.map((page) => page.items)).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    expect(forward[0]).not.toHaveProperty('previous_page_ends_before');
    // Back from the last page: the same pages again.
    const middle = (await api.get(`/ticket-buyers?limit=2&end_before_id=${forward[2].previous_page_ends_before}`)).body;
    expect(middle).toEqual(forward[1]);
    expect((await api.get(`/ticket-buyers?limit=2&end_before_id=${middle.previous_page_ends_before}`)).body).toEqual(forward[0]);

    expectError(await api.get('/ticket-buyers?limit=1001'), 400, 'GENERAL_ERROR');
    expectError(await api.get('/ticket-buyers?start_after_id=x'), 400, 'GENERAL_ERROR');
  });

  it("keeps each workspace's ids to itself; the admin key acts on the default workspace or the one named", async () => {
    const mine = await ctx.freshCompany();
    const [a, b] = ids(2);
    await mine.api.post('/ticket-buyers', { ids: [a] });
    // The admin key without X-Workspace-Key: the default workspace, the same list.
    expect(await listAll(mine.admin)).toEqual([a]);

    const created = await mine.admin.post('/workspaces', { name: 'Second' });
    expect(created.status, created.text).toBe(200);
    const second = client(ctx.server.url, created.body.secretKey);
    const secondByAdmin = client(ctx.server.url, mine.company.adminKey, { 'x-workspace-key': created.body.key });
    expect(await listAll(second)).toEqual([]);
    // The same id in another workspace is another workspace's: added there, removed there only.
    expect((await secondByAdmin.post('/ticket-buyers', { ids: [a, b] })).body).toEqual({ added: [a, b], alreadyPresent: [] });
    expect((await second.delete('/ticket-buyers', { ids: [a] })).body).toEqual({ removed: [a], notPresent: [] });
    expect(await listAll(second)).toEqual([b]);
    expect(await listAll(mine.api)).toEqual([a]);

    // Another company's workspace, named by its key: refused, nothing changed anywhere.
    const other = await ctx.freshCompany();
    const foreign = client(ctx.server.url, other.company.adminKey, { 'x-workspace-key': mine.company.workspace.key });
    for (const response of [await foreign.post('/ticket-buyers', { ids: [b] }), await foreign.delete('/ticket-buyers', { ids: [a] }), await foreign.get('/ticket-buyers')]) {
      expectError(response, 403, 'WORKSPACE_NOT_FOUND');
    }
    expect(await listAll(mine.api)).toEqual([a]);
    expect(await listAll(other.api)).toEqual([]);
  });

  it.each(['POST', 'DELETE'])('%s refuses bad bodies with 400 naming the field, and changes nothing', async (method) => {
    const { api, company } = await ctx.freshCompany();
    const [a] = ids(1);
    await api.post('/ticket-buyers', { ids: [a] });
    const bodies: [unknown, string][] = [
      [{}, '#: required key [ids] not found'],
      [{ ids: a }, '#/ids: expected type: JSONArray, found: String'],
      [{ ids: [a, 5] }, '#/ids/1: expected type: one of [String, Null], found: Integer'],
      [{ ids: [{ id: a }] }, '#/ids/0: expected type: one of [String, Null], found: JSONObject'],
      [{ ids: [''] }, '#/ids/0: expected minLength: 1, actual: 0'],
      [{ ids: ['x'.repeat(101)] }, '#/ids/0: expected maxLength: 100, actual: 101'],
      [{ ids: Array.from({ length: 1001 }, () => a) }, '#/ids: expected maximum item count: 1000, found: 1001'],
      [{ ids: [a], extra: true }, '#: extraneous key [extra] is not permitted'],
      [[a], '#: expected type: JSONObject, found: JSONArray'],
    ];
    for (const [body, message] of bodies) {
      const response = await call(ctx.server.url, method, '/ticket-buyers', { key: company.workspace.secretKey, body });
      expectError(response, 400, 'GENERAL_ERROR');
      expect(response.body.messages, JSON.stringify(body).slice(0, 80)).toContain(message);
    }
    const broken = await call(ctx.server.url, method, '/ticket-buyers', { key: company.workspace.secretKey, raw: '{"ids": [', headers: { 'content-type': 'application/json' } });
    expectError(broken, 400, 'GENERAL_ERROR');
    expect(await listAll(api)).toEqual([a]);
  });

  it('takes the most ids a call may name, and lists them in one page by default', async () => {
    const { api } = await ctx.freshCompany();
    const many = ids(1000);
    const response = await api.post('/ticket-buyers', { ids: many });
    expect(response.status, response.text).toBe(200);
    expect(response.body.added).toEqual(many);
    const page = (await api.get('/ticket-buyers')).body;
    expect(page.items).toEqual([...many].reverse());
    expect(page).not.toHaveProperty('next_page_starts_after');
    expect((await api.delete('/ticket-buyers', { ids: many })).body.removed).toEqual(many);
  });

  it('adds and removes each id exactly once under concurrent calls naming the same ids', async () => {
    const { api } = await ctx.freshCompany();
    const shared = ids(30);
    // Ten calls at once, each naming all the ids in its own order.
    const adds = await Promise.all(Array.from({ length: 10 }, (_, i) => api.post('/ticket-buyers', { ids: [...shared.slice(i * 3), ...shared.slice(0, i * 3)] })));
    for (const response of adds) expect(response.status, response.text).toBe(200);
    const added = adds.flatMap((response) => response.body.added as string[]);
    expect([...added].sort()).toEqual([...shared].sort());
    for (const response of adds) expect([...response.body.added, ...response.body.alreadyPresent].sort()).toEqual([...shared].sort());
    expect((await listAll(api, 7)).sort()).toEqual([...shared].sort());

    const removes = await Promise.all(Array.from({ length: 10 }, () => api.delete('/ticket-buyers', { ids: shared })));
    const removed = removes.flatMap((response) => response.body.removed as string[]);
    expect([...removed].sort()).toEqual([...shared].sort());
    expect(await listAll(api)).toEqual([]);
  });
});
