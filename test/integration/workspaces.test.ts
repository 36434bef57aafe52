import { describe, expect, it } from 'vitest';
import type { WorkspaceRecord } from '../../src/routes/accountRecords.js';
import { basic, client, expectError as expectErrorBody, SYSTEM_SECRET, useServerWithCompany, type Api, type Response } from '../support/harness.js';
import { expectCursorWalk, expectPageEndingBefore } from '../support/pagination.js';

// Workspace management (docs/seatsio-behaviour.md, "Workspaces", "Conventions", "Pagination")
// against a real server, Redis and MongoDB wire server.

interface WorkspacePage {
  items: WorkspaceRecord[];
  next_page_starts_after?: string;
  previous_page_ends_before?: string;
}

/** The error body (harness expectError); workspace routes answer no warnings. */
function expectError(response: Response, status: number, code: string): void {
  expectErrorBody(response, status, code);
  expect(response.body.warnings).toEqual([]);
}

describe('workspaces', () => {
  const ctx = useServerWithCompany('shared');

  async function createWorkspace(name: string, api: Api = ctx.admin, isTest?: boolean): Promise<WorkspaceRecord> {
    const response = await api.post<WorkspaceRecord>('/workspaces', isTest === undefined ? { name } : { name, isTest });
    expect(response.status, response.text).toBe(200);
    return response.body;
  }

  async function retrieve(key: string, api: Api = ctx.admin): Promise<WorkspaceRecord> {
    const response = await api.get<WorkspaceRecord>(`/workspaces/${key}`);
    expect(response.status, response.text).toBe(200);
    return response.body;
  }

  async function list(path: string, api: Api = ctx.admin): Promise<WorkspacePage> {
    const response = await api.get<WorkspacePage>(path);
    expect(response.status, response.text).toBe(200);
    return response.body;
  }

  const ids = (page: WorkspacePage) => page.items.map((w) => w.id);

  /** A workspace-level call: creates a hold token with the given key (and headers). */
  const holdToken = (key: string, headers: Record<string, string> = {}) => client(ctx.server.url, key, headers).post('/hold-tokens', {});

  async function expectWorksIn(key: string, workspaceKey: string, headers: Record<string, string> = {}): Promise<void> {
    const response = await holdToken(key, headers);
    expect(response.status, response.text).toBe(200);
    expect(response.body.workspaceKey).toBe(workspaceKey);
  }

  describe('authentication', () => {
    it('needs the company admin key: a workspace secret key gets 403 FORBIDDEN and changes nothing', async () => {
      const { company: own, admin: ownAdmin, api: workspaceKeyClient } = await ctx.freshCompany();
      expectError(await workspaceKeyClient.get('/workspaces'), 403, 'FORBIDDEN');
      expectError(await workspaceKeyClient.get('/workspaces/active'), 403, 'FORBIDDEN');
      expectError(await workspaceKeyClient.get(`/workspaces/${own.workspace.key}`), 403, 'FORBIDDEN');
      expectError(await workspaceKeyClient.post('/workspaces', { name: 'sneaky' }), 403, 'FORBIDDEN');
      expectError(await workspaceKeyClient.post(`/workspaces/${own.workspace.key}/actions/add-secret-key`), 403, 'FORBIDDEN');
      expectError(await workspaceKeyClient.post(`/workspaces/${own.workspace.key}/actions/regenerate-secret-key`), 403, 'FORBIDDEN');

      const all = await list('/workspaces', ownAdmin);
      expect(all.items.map((w) => w.name)).toEqual(['Production workspace']);
      expect(all.items[0]!.secretKey).toBe(own.workspace.secretKey);
      await expectWorksIn(own.workspace.secretKey, own.workspace.key);
    });

    it('answers 401 UNAUTHORIZED for an unknown key or no key', async () => {
      expectError(await client(ctx.server.url, 'not-a-real-key').get('/workspaces'), 401, 'UNAUTHORIZED');
      expectError(await client(ctx.server.url).get('/workspaces'), 401, 'UNAUTHORIZED');
      expectError(await holdToken('not-a-real-key'), 401, 'UNAUTHORIZED');
      expectError(await client(ctx.server.url).post('/hold-tokens', {}), 401, 'UNAUTHORIZED');
    });
  });

  describe('create, retrieve, update', () => {
    it('has the default workspace of a fresh test company', async () => {
      const record = await retrieve(ctx.company.workspace.key);
      expect(record).toMatchObject({
        id: ctx.company.workspace.id,
        name: 'Production workspace',
        key: ctx.company.workspace.key,
        secretKey: ctx.company.workspace.secretKey,
        isDefault: true,
        isTest: false,
        isActive: true,
      });
    });

    it('creates a workspace and retrieves the same record', async () => {
      const created = await createWorkspace('Box office');
      expect(created).toEqual({
        id: expect.any(Number),
        name: 'Box office',
        key: expect.any(String),
        secretKey: expect.any(String),
        isDefault: false,
        isTest: false,
        isActive: true,
        settings: expect.any(Object),
      });
      expect(Object.keys(created.settings).length).toBeGreaterThan(0);
      expect(created.key).not.toBe(created.secretKey);
      expect(created.id).not.toBe(ctx.company.workspace.id);
      expect(await retrieve(created.key)).toEqual(created);

      // The new workspace's secret key works at once and acts in that workspace.
      await expectWorksIn(created.secretKey, created.key);
    });

    it('creates test workspaces and keeps names with special characters', async () => {
      const test = await createWorkspace('Staging', ctx.admin, true);
      expect(test.isTest).toBe(true);
      expect((await retrieve(test.key)).isTest).toBe(true);

      const name = 'Zaal 1 / "Ünïcode" & <tags> %20 ' + '✓';
      const special = await createWorkspace(name);
      expect((await retrieve(special.key)).name).toBe(name);
      const longest = await createWorkspace('n'.repeat(200));
      expect((await retrieve(longest.key)).name).toHaveLength(200);
    });

    it('renames a workspace with 204 and leaves the rest of the record as it was', async () => {
      const created = await createWorkspace('Old name');
      const renamed = await ctx.admin.post(`/workspaces/${created.key}`, { name: 'New name' });
      expect(renamed.status, renamed.text).toBe(204);
      expect(renamed.text).toBe('');
      expect(await retrieve(created.key)).toEqual({ ...created, name: 'New name' });
    });

    it('answers 404 WORKSPACE_NOT_FOUND for unknown keys and for workspaces of another company', async () => {
      expectError(await ctx.admin.get('/workspaces/no-such-workspace'), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ctx.admin.post('/workspaces/no-such-workspace', { name: 'x' }), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ctx.admin.post('/workspaces/no-such-workspace/actions/add-secret-key'), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ctx.admin.post('/workspaces/no-such-workspace/actions/deactivate'), 404, 'WORKSPACE_NOT_FOUND');

      const { company: other, admin: otherAdmin } = await ctx.freshCompany();
      const foreign = await createWorkspace('Foreign', otherAdmin);
      expectError(await ctx.admin.get(`/workspaces/${foreign.key}`), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ctx.admin.get(`/workspaces/${other.workspace.key}`), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ctx.admin.post(`/workspaces/${foreign.key}`, { name: 'hijacked' }), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ctx.admin.post(`/workspaces/${foreign.key}/actions/regenerate-secret-key`), 404, 'WORKSPACE_NOT_FOUND');
      expect((await retrieve(foreign.key, otherAdmin)).name).toBe('Foreign');
      await expectWorksIn(foreign.secretKey, foreign.key);
    });

    it('rejects a missing or ill-typed name on create, creating nothing', async () => {
      const { admin: ownAdmin } = await ctx.freshCompany();
      const attempts: { body?: unknown; raw?: string }[] = [
        {},
        { body: {} },
        { body: { name: 5 } },
        { body: { name: '' } },
        { body: { name: null } },
        { body: { name: 'n'.repeat(201) } },
        { body: { name: 'ok', isTest: 'yes' } },
        { body: ['name'] },
        { raw: '{"name": "unterminated' },
      ];
      for (const attempt of attempts) {
        const response = attempt.raw
          ? await ownAdmin.post('/workspaces', undefined, { raw: attempt.raw, headers: { 'content-type': 'application/json' } })
          : await ownAdmin.post('/workspaces', attempt.body);
        expectError(response, 400, 'GENERAL_ERROR');
      }
      expect((await list('/workspaces', ownAdmin)).items.map((w) => w.name)).toEqual(['Production workspace']);
    });

    it('rejects ill-typed update and key bodies, changing nothing', async () => {
      const created = await createWorkspace('Unchanged');
      for (const body of [{}, { name: 5 }, { name: '' }, { name: ['x'] }, { name: 'n'.repeat(201) }]) {
        expectError(await ctx.admin.post(`/workspaces/${created.key}`, body), 400, 'GENERAL_ERROR');
      }
      for (const body of [undefined, {}, { secretKey: 5 }, { secretKey: '' }, { secretKey: [created.secretKey] }]) {
        expectError(await ctx.admin.post(`/workspaces/${created.key}/actions/remove-secret-key`, body), 400, 'GENERAL_ERROR');
      }
      expect(await retrieve(created.key)).toEqual(created);
      await expectWorksIn(created.secretKey, created.key);
    });
  });

  describe('listing', () => {
    it('lists a fresh company with only its default workspace, then newest first', async () => {
      const { company: own, admin: ownAdmin } = await ctx.freshCompany();
      const first = await list('/workspaces', ownAdmin);
      expect(first.items).toHaveLength(1);
      expect(first.items[0]).toMatchObject({ id: own.workspace.id, name: 'Production workspace', isDefault: true });
      expect(first).not.toHaveProperty('next_page_starts_after');
      expect(first).not.toHaveProperty('previous_page_ends_before');

      const a = await createWorkspace('a', ownAdmin);
      const b = await createWorkspace('b', ownAdmin);
      const c = await createWorkspace('c', ownAdmin);
      const all = await list('/workspaces', ownAdmin);
      expect(ids(all)).toEqual([c.id, b.id, a.id, own.workspace.id]);
      expect(all.items[0]).toEqual(c);
      expect(all.items.filter((w) => w.isDefault).map((w) => w.id)).toEqual([own.workspace.id]);
      expect(all).not.toHaveProperty('next_page_starts_after');
      expect(all).not.toHaveProperty('previous_page_ends_before');
    });

    it('filters by a case-insensitive substring of the name or the public key', async () => {
      const { admin: ownAdmin } = await ctx.freshCompany();
      const foo1 = await createWorkspace('Foo one', ownAdmin);
      const foo2 = await createWorkspace('foo two', ownAdmin);
      const bar = await createWorkspace('Bar', ownAdmin);

      expect(ids(await list('/workspaces?filter=fo', ownAdmin))).toEqual([foo2.id, foo1.id]);
      expect(ids(await list('/workspaces?filter=FOO', ownAdmin))).toEqual([foo2.id, foo1.id]);
      expect(ids(await list('/workspaces?filter=o%20t', ownAdmin))).toEqual([foo2.id]);
      expect(ids(await list(`/workspaces?filter=${bar.key.slice(9, 23).toUpperCase()}`, ownAdmin))).toEqual([bar.id]);
      // The text is matched literally, not as a pattern.
      expect((await list('/workspaces?filter=.*', ownAdmin)).items).toEqual([]);
      const none = await list('/workspaces?filter=zzz', ownAdmin);
      expect(none.items).toEqual([]);
      expect(none).not.toHaveProperty('next_page_starts_after');

      // The filter pages like the unfiltered list.
      const page = await list('/workspaces?filter=foo&limit=1', ownAdmin);
      expect(ids(page)).toEqual([foo2.id]);
      expect(page.next_page_starts_after).toBe(String(foo2.id));
      const next = await list(`/workspaces?filter=foo&limit=1&start_after_id=${page.next_page_starts_after}`, ownAdmin);
      expect(ids(next)).toEqual([foo1.id]);
      expect(next).not.toHaveProperty('next_page_starts_after');
      expect(next.previous_page_ends_before).toBe(String(foo1.id));

      // And combines with the active/inactive lists.
      expect((await ownAdmin.post(`/workspaces/${foo1.key}/actions/deactivate`)).status).toBe(204);
      expect(ids(await list('/workspaces/active?filter=foo', ownAdmin))).toEqual([foo2.id]);
      expect(ids(await list('/workspaces/inactive?filter=foo', ownAdmin))).toEqual([foo1.id]);
      expect(ids(await list('/workspaces/inactive?filter=bar', ownAdmin))).toEqual([]);
    });

    it('pages forward with start_after_id and back with end_before_id', async () => {
      const { company: own, admin: ownAdmin } = await ctx.freshCompany();
      for (let i = 1; i <= 6; i++) await createWorkspace(`page ${i}`, ownAdmin);
      const all = ids(await list('/workspaces', ownAdmin));
      expect(all).toHaveLength(7);
      expect(all[6]).toBe(own.workspace.id);
      expect([...all].sort((x, y) => y - x)).toEqual(all);

      // Forward: pages of 3, 3 and 1; then backward from the last page.
      const listOwn = (path: string) => list(path, ownAdmin);
      await expectCursorWalk(listOwn, '/workspaces', all, 3);

      // end_before_id=X: the `limit` items above X closest to it, newest first; at the top, no previous cursor.
      await expectPageEndingBefore(listOwn, '/workspaces', all, 5, 2);
      await expectPageEndingBefore(listOwn, '/workspaces', all, 3, 5);

      // Past either end: an empty page without cursors.
      for (const beyond of [`start_after_id=${all[6]}`, `end_before_id=${all[0]}`]) {
        const empty = await list(`/workspaces?limit=3&${beyond}`, ownAdmin);
        expect(empty).toEqual({ items: [] });
      }
      // A page as big as the list needs no cursors.
      expect(await list('/workspaces?limit=7', ownAdmin)).toEqual({ items: (await list('/workspaces', ownAdmin)).items });
    });

    // What the SDKs' own tests expect of a new company: its first workspace named
    // "Production workspace", listed last (docs/seatsio-behaviour.md, "Workspaces").
    it('names a new company\'s first workspace Production workspace, listed last, newest first', async () => {
      const { admin: ownAdmin } = await ctx.freshCompany();
      await createWorkspace('ws1', ownAdmin);
      const ws2 = await createWorkspace('ws2', ownAdmin);
      expect((await ownAdmin.post(`/workspaces/${ws2.key}/actions/deactivate`)).status).toBe(204);
      await createWorkspace('ws3', ownAdmin);
      const names = async (path: string) => (await list(path, ownAdmin)).items.map((w) => w.name);
      expect(await names('/workspaces/active')).toEqual(['ws3', 'ws1', 'Production workspace']);
      expect(await names('/workspaces')).toEqual(['ws3', 'ws2', 'ws1', 'Production workspace']);
      expect(await names('/workspaces/inactive')).toEqual(['ws2']);
      const production = (await list('/workspaces', ownAdmin)).items.at(-1)!;
      expect(production).toMatchObject({ name: 'Production workspace', isDefault: true, isActive: true, isTest: false });

      // The test bootstrap's answer names it so too.
      const bootstrap = await fetch(`${ctx.server.url}/system/private/create-test-company`, { method: 'POST', headers: { authorization: basic(SYSTEM_SECRET) } });
      expect(bootstrap.status).toBe(200);
      expect((await bootstrap.json()).workspace).toMatchObject({ name: 'Production workspace', isDefault: true });
    });

    it('lists active and inactive workspaces separately', async () => {
      const { company: own, admin: ownAdmin } = await ctx.freshCompany();
      const a = await createWorkspace('a', ownAdmin);
      const b = await createWorkspace('b', ownAdmin);
      const c = await createWorkspace('c', ownAdmin);
      expect((await list('/workspaces/inactive', ownAdmin)).items).toEqual([]);
      expect((await ownAdmin.post(`/workspaces/${b.key}/actions/deactivate`)).status).toBe(204);

      expect(ids(await list('/workspaces/active', ownAdmin))).toEqual([c.id, a.id, own.workspace.id]);
      const inactive = await list('/workspaces/inactive', ownAdmin);
      expect(inactive).toEqual({ items: [{ ...b, isActive: false }] });
      const all = await list('/workspaces', ownAdmin);
      expect(ids(all)).toEqual([c.id, b.id, a.id, own.workspace.id]);
      expect(all.items.map((w) => w.isActive)).toEqual([true, false, true, true]);

      // Cursors count only workspaces of the list being paged.
      const activePage = await list(`/workspaces/active?limit=1&start_after_id=${c.id}`, ownAdmin);
      expect(ids(activePage)).toEqual([a.id]);
      expect(activePage.previous_page_ends_before).toBe(String(a.id));
      expect(activePage.next_page_starts_after).toBe(String(a.id));
      const inactivePage = await list(`/workspaces/inactive?limit=1&end_before_id=${a.id}`, ownAdmin);
      expect(inactivePage).toEqual({ items: [{ ...b, isActive: false }] });

      expect((await ownAdmin.post(`/workspaces/${b.key}/actions/activate`)).status).toBe(204);
      expect((await list('/workspaces/inactive', ownAdmin)).items).toEqual([]);
      expect(ids(await list('/workspaces/active', ownAdmin))).toEqual([c.id, b.id, a.id, own.workspace.id]);
    });

    it('rejects bad paging parameters with 400 GENERAL_ERROR', async () => {
      const bad = [
        'limit=0',
        'limit=1001',
        'limit=abc',
        'limit=-1',
        'limit=1.5',
        'limit=1&limit=2',
        `start_after_id=${ctx.company.workspace.id}&end_before_id=1`,
        'start_after_id=abc',
        'end_before_id=-3',
      ];
      for (const path of ['/workspaces', '/workspaces/active', '/workspaces/inactive']) {
        for (const query of bad) expectError(await ctx.admin.get(`${path}?${query}`), 400, 'GENERAL_ERROR');
      }
      expect((await ctx.admin.get('/workspaces?limit=1')).body.items).toHaveLength(1);
      expect((await ctx.admin.get('/workspaces?limit=1000')).status).toBe(200);
    });
  });

  describe('secret keys', () => {
    it('rotates a key: add a new one, both work, remove the old one, only the new one works', async () => {
      const workspace = await createWorkspace('Rotating');
      const oldKey = workspace.secretKey;
      const added = await ctx.admin.post(`/workspaces/${workspace.key}/actions/add-secret-key`);
      expect(added.status, added.text).toBe(200);
      const newKey: string = added.body.secretKey;
      expect(newKey).toEqual(expect.any(String));
      expect(newKey).not.toBe(oldKey);
      expect(newKey).not.toBe(workspace.key);

      await expectWorksIn(oldKey, workspace.key);
      await expectWorksIn(newKey, workspace.key);
      // The first key stays the one the record shows.
      expect((await retrieve(workspace.key)).secretKey).toBe(oldKey);

      const removed = await ctx.admin.post(`/workspaces/${workspace.key}/actions/remove-secret-key`, { secretKey: oldKey });
      expect(removed.status, removed.text).toBe(200);
      expect(removed.body).toEqual({ secretKey: oldKey });
      expectError(await holdToken(oldKey), 401, 'UNAUTHORIZED');
      await expectWorksIn(newKey, workspace.key);
      expect((await retrieve(workspace.key)).secretKey).toBe(newKey);
    });

    it('refuses to remove an unknown key or the last key', async () => {
      const workspace = await createWorkspace('Removing');
      const other = await createWorkspace('Other');
      const removeKey = (secretKey: string) => ctx.admin.post(`/workspaces/${workspace.key}/actions/remove-secret-key`, { secretKey });

      expectError(await removeKey('no-such-key'), 400, 'SECRET_KEY_NOT_FOUND');
      // Keys of another workspace or the admin key are not this workspace's keys.
      expectError(await removeKey(other.secretKey), 400, 'SECRET_KEY_NOT_FOUND');
      expectError(await removeKey(ctx.company.adminKey), 400, 'SECRET_KEY_NOT_FOUND');
      await expectWorksIn(other.secretKey, other.key);
      expect((await ctx.admin.get('/workspaces?limit=1')).status).toBe(200);

      expectError(await removeKey(workspace.secretKey), 400, 'LAST_SECRET_KEY');
      await expectWorksIn(workspace.secretKey, workspace.key);
      expect(await retrieve(workspace.key)).toEqual(workspace);
    });

    it('allows at most 10 keys per workspace', async () => {
      const workspace = await createWorkspace('Many keys');
      const addKey = () => ctx.admin.post(`/workspaces/${workspace.key}/actions/add-secret-key`);
      const keys = [workspace.secretKey];
      for (let i = 0; i < 9; i++) {
        const added = await addKey();
        expect(added.status, added.text).toBe(200);
        keys.push(added.body.secretKey);
      }
      expect(new Set(keys).size).toBe(10);
      expectError(await addKey(), 400, 'TOO_MANY_SECRET_KEYS');
      for (const key of keys) await expectWorksIn(key, workspace.key);

      // Room for one more after a removal, and no more than that.
      expect((await ctx.admin.post(`/workspaces/${workspace.key}/actions/remove-secret-key`, { secretKey: keys[3] })).status).toBe(200);
      expectError(await holdToken(keys[3]!), 401, 'UNAUTHORIZED');
      const replacement = await addKey();
      expect(replacement.status, replacement.text).toBe(200);
      await expectWorksIn(replacement.body.secretKey, workspace.key);
      expectError(await addKey(), 400, 'TOO_MANY_SECRET_KEYS');
    });

    it('regenerates: every old key stops working, the new one works and is on the record', async () => {
      const workspace = await createWorkspace('Compromised');
      const second = (await ctx.admin.post(`/workspaces/${workspace.key}/actions/add-secret-key`)).body.secretKey as string;
      await expectWorksIn(second, workspace.key);

      const regenerated = await ctx.admin.post(`/workspaces/${workspace.key}/actions/regenerate-secret-key`);
      expect(regenerated.status, regenerated.text).toBe(200);
      const fresh: string = regenerated.body.secretKey;
      expect(fresh).toEqual(expect.any(String));
      expect([workspace.secretKey, second]).not.toContain(fresh);

      expectError(await holdToken(workspace.secretKey), 401, 'UNAUTHORIZED');
      expectError(await holdToken(second), 401, 'UNAUTHORIZED');
      await expectWorksIn(fresh, workspace.key);
      expect(await retrieve(workspace.key)).toEqual({ ...workspace, secretKey: fresh });
      // It is the only key now.
      expectError(await ctx.admin.post(`/workspaces/${workspace.key}/actions/remove-secret-key`, { secretKey: fresh }), 400, 'LAST_SECRET_KEY');
    });

    it('loses no key when 9 keys are added concurrently', async () => {
      // Three workspaces at once, 9 adds on each (10 keys with the original: the maximum).
      const workspaces = await Promise.all(['Concurrent 1', 'Concurrent 2', 'Concurrent 3'].map((name) => createWorkspace(name)));
      const bursts = await Promise.all(
        workspaces.map((w) => Promise.all(Array.from({ length: 9 }, () => ctx.admin.post(`/workspaces/${w.key}/actions/add-secret-key`)))),
      );

      for (const [i, workspace] of workspaces.entries()) {
        const responses = bursts[i]!;
        // Every request succeeds: a conflicting write is retried until it lands, never refused.
        const refused = responses.find((r) => r.status !== 200);
        expect.soft(responses.map((r) => r.status), `${workspace.name}: ${refused?.text}`).toEqual(Array(9).fill(200));

        // No lost update: every key the server handed out works, and so does the original.
        const keys = [workspace.secretKey, ...responses.filter((r) => r.status === 200).map((r) => r.body.secretKey as string)];
        expect(new Set(keys).size).toBe(keys.length);
        for (const key of keys) await expectWorksIn(key, workspace.key);
        // All 10 are stored: the workspace is full.
        expect(keys, workspace.name).toHaveLength(10);
        expectError(await ctx.admin.post(`/workspaces/${workspace.key}/actions/add-secret-key`), 400, 'TOO_MANY_SECRET_KEYS');
      }
    });
  });

  describe('activation, default and deletion', () => {
    it('makes workspace-level calls fail with 403 WORKSPACE_INACTIVE while inactive', async () => {
      const workspace = await createWorkspace('Seasonal');
      const viaHeader = { 'X-Workspace-Key': workspace.key };
      await expectWorksIn(workspace.secretKey, workspace.key);
      await expectWorksIn(ctx.company.adminKey, workspace.key, viaHeader);

      const deactivated = await ctx.admin.post(`/workspaces/${workspace.key}/actions/deactivate`);
      expect(deactivated.status, deactivated.text).toBe(204);
      expect(await retrieve(workspace.key)).toEqual({ ...workspace, isActive: false });
      expectError(await holdToken(workspace.secretKey), 403, 'WORKSPACE_INACTIVE');
      expectError(await holdToken(ctx.company.adminKey, viaHeader), 403, 'WORKSPACE_INACTIVE');
      // Other workspaces are not affected.
      await expectWorksIn(ctx.company.adminKey, ctx.company.workspace.key);
      await expectWorksIn(ctx.company.workspace.secretKey, ctx.company.workspace.key);
      // Management calls still work on it.
      expect((await ctx.admin.post(`/workspaces/${workspace.key}`, { name: 'Off season' })).status).toBe(204);

      const activated = await ctx.admin.post(`/workspaces/${workspace.key}/actions/activate`);
      expect(activated.status, activated.text).toBe(204);
      expect(await retrieve(workspace.key)).toEqual({ ...workspace, name: 'Off season', isActive: true });
      await expectWorksIn(workspace.secretKey, workspace.key);
      await expectWorksIn(ctx.company.adminKey, workspace.key, viaHeader);
    });

    it('refuses to deactivate the default workspace', async () => {
      expectError(await ctx.admin.post(`/workspaces/${ctx.company.workspace.key}/actions/deactivate`), 400, 'DEFAULT_WORKSPACE');
      expect((await retrieve(ctx.company.workspace.key)).isActive).toBe(true);
      await expectWorksIn(ctx.company.workspace.secretKey, ctx.company.workspace.key);
    });

    it('moves the default with set-default, and the admin key without header follows it', async () => {
      const { company: own, admin: ownAdmin } = await ctx.freshCompany();
      const target = await createWorkspace('New default', ownAdmin);
      await expectWorksIn(own.adminKey, own.workspace.key);

      const set = await ownAdmin.post(`/workspaces/actions/set-default/${target.key}`);
      expect(set.status, set.text).toBe(204);
      expect((await retrieve(target.key, ownAdmin)).isDefault).toBe(true);
      expect((await retrieve(own.workspace.key, ownAdmin)).isDefault).toBe(false);
      expect((await list('/workspaces', ownAdmin)).items.filter((w) => w.isDefault).map((w) => w.key)).toEqual([target.key]);
      await expectWorksIn(own.adminKey, target.key);
      // The header still picks any workspace.
      await expectWorksIn(own.adminKey, own.workspace.key, { 'X-Workspace-Key': own.workspace.key });

      // The new default cannot be deactivated; the old one now can.
      expectError(await ownAdmin.post(`/workspaces/${target.key}/actions/deactivate`), 400, 'DEFAULT_WORKSPACE');
      expect((await ownAdmin.post(`/workspaces/${own.workspace.key}/actions/deactivate`)).status).toBe(204);

      // An inactive workspace cannot become the default; nothing moves.
      expectError(await ownAdmin.post(`/workspaces/actions/set-default/${own.workspace.key}`), 400, 'WORKSPACE_INACTIVE');
      expect((await retrieve(target.key, ownAdmin)).isDefault).toBe(true);
      expect((await retrieve(own.workspace.key, ownAdmin)).isDefault).toBe(false);
      await expectWorksIn(own.adminKey, target.key);

      expectError(await ownAdmin.post('/workspaces/actions/set-default/no-such-workspace'), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await client(ctx.server.url, target.secretKey).post(`/workspaces/actions/set-default/${target.key}`), 403, 'FORBIDDEN');
    });

    it('deletes only inactive, non-default workspaces; afterwards they and their keys are gone', async () => {
      const { company: own, admin: ownAdmin } = await ctx.freshCompany();
      const doomed = await createWorkspace('Doomed', ownAdmin);
      const extraKey = (await ownAdmin.post(`/workspaces/${doomed.key}/actions/add-secret-key`)).body.secretKey as string;
      await expectWorksIn(extraKey, doomed.key);

      expectError(await ownAdmin.delete(`/workspaces/${doomed.key}`), 400, 'WORKSPACE_ACTIVE');
      expect(await retrieve(doomed.key, ownAdmin)).toEqual(doomed);
      await expectWorksIn(doomed.secretKey, doomed.key);
      expectError(await ownAdmin.delete(`/workspaces/${own.workspace.key}`), 400, 'DEFAULT_WORKSPACE');
      expect((await retrieve(own.workspace.key, ownAdmin)).isDefault).toBe(true);
      expectError(await client(ctx.server.url, doomed.secretKey).delete(`/workspaces/${doomed.key}`), 403, 'FORBIDDEN');

      expect((await ownAdmin.post(`/workspaces/${doomed.key}/actions/deactivate`)).status).toBe(204);
      const deleted = await ownAdmin.delete(`/workspaces/${doomed.key}`);
      expect(deleted.status, deleted.text).toBe(204);

      expectError(await ownAdmin.get(`/workspaces/${doomed.key}`), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ownAdmin.delete(`/workspaces/${doomed.key}`), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await holdToken(doomed.secretKey), 401, 'UNAUTHORIZED');
      expectError(await holdToken(extraKey), 401, 'UNAUTHORIZED');
      expect(ids(await list('/workspaces', ownAdmin))).toEqual([own.workspace.id]);
      expect((await list('/workspaces/inactive', ownAdmin)).items).toEqual([]);
      await expectWorksIn(own.adminKey, own.workspace.key);
    });

    it('never leaves an inactive default when set-default and deactivate race', async () => {
      const { admin: ownAdmin } = await ctx.freshCompany();
      for (let round = 0; round < 8; round++) {
        const target = await createWorkspace(`Contested ${round}`, ownAdmin);
        const [setDefault, deactivate] = await Promise.all([
          ownAdmin.post(`/workspaces/actions/set-default/${target.key}`),
          ownAdmin.post(`/workspaces/${target.key}/actions/deactivate`),
        ]);
        expect([204, 400]).toContain(setDefault.status);
        expect([204, 400]).toContain(deactivate.status);
        const all = (await list('/workspaces', ownAdmin)).items;
        const defaults = all.filter((w) => w.isDefault);
        expect(defaults).toHaveLength(1);
        expect(defaults[0]!.isActive, `round ${round}: ${setDefault.status}/${deactivate.status}`).toBe(true);
        // Put things back for the next round: the default is whichever won; keep going from there.
        if (!defaults[0]!.isActive) break;
      }
    });
  });
});
