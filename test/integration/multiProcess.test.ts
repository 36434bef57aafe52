import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  client,
  createTestCompany,
  eventually,
  mongoThroughProxy,
  newDatabaseName,
  startTestServer,
  testRedis,
  type TestCompany,
  type TestServer,
} from '../support/harness.js';

// Two server instances sharing Redis and one MongoDB database, as two processes behind a
// load balancer would. Each keeps its own tenant cache; a change made through A must reach
// B through the invalidation bus within a second.

const PROPAGATION_MS = 1000;

const holdToken = (server: TestServer, key: string, headers: Record<string, string> = {}) => client(server.url, key, headers).post('/hold-tokens', {});

describe('two servers sharing Redis and MongoDB', () => {
  let a: TestServer;
  let b: TestServer;
  let company: TestCompany;

  beforeAll(async () => {
    const database = newDatabaseName();
    a = await startTestServer({ MONGODB_DB: database });
    b = await startTestServer({ MONGODB_DB: database });
    company = await createTestCompany(a.url);
  });
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
  });

  const adminOn = (server: TestServer) => client(server.url, company.adminKey);

  /** Waits until B answers `key` with `status` (and, for 200, in `workspaceKey`); asserts it took under a second. */
  async function seenOnB(key: string, status: number, options: { workspaceKey?: string; headers?: Record<string, string> } = {}) {
    let last: { status: number; text: string; workspaceKey?: string } | undefined;
    const elapsed = await eventually(async () => {
      const response = await holdToken(b, key, options.headers);
      last = { status: response.status, text: response.text, workspaceKey: response.body?.workspaceKey };
      return response.status === status && (options.workspaceKey === undefined || response.body.workspaceKey === options.workspaceKey);
    }, PROPAGATION_MS).catch((error: Error) => {
      throw new Error(`${error.message}; B last answered ${last?.status} ${last?.text}`);
    });
    expect(elapsed).toBeLessThan(PROPAGATION_MS);
    return last!;
  }

  it('serves the company created through A on B', async () => {
    const listed = await adminOn(b).get('/workspaces');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items.map((w: { key: string }) => w.key)).toEqual([company.workspace.key]);
    // Both servers now have the company cached.
    for (const server of [a, b]) {
      const token = await holdToken(server, company.workspace.secretKey);
      expect(token.status, token.text).toBe(200);
      expect(token.body.workspaceKey).toBe(company.workspace.key);
      expect((await holdToken(server, company.adminKey)).body.workspaceKey).toBe(company.workspace.key);
    }
  });

  it('(a) rotates a key on A: the new key works on B, the removed one is refused on B within a second', async () => {
    const created = await adminOn(a).post('/workspaces', { name: 'Rotated across servers' });
    expect(created.status, created.text).toBe(200);
    const workspace = created.body;
    const oldKey: string = workspace.secretKey;
    await seenOnB(oldKey, 200, { workspaceKey: workspace.key });
    // B has cached the company with only the old key; A has it too.
    expect((await holdToken(a, oldKey)).status).toBe(200);

    const added = await adminOn(a).post(`/workspaces/${workspace.key}/actions/add-secret-key`);
    expect(added.status, added.text).toBe(200);
    const newKey: string = added.body.secretKey;
    await seenOnB(newKey, 200, { workspaceKey: workspace.key });
    expect((await holdToken(b, oldKey)).status).toBe(200);

    const removed = await adminOn(a).post(`/workspaces/${workspace.key}/actions/remove-secret-key`, { secretKey: oldKey });
    expect(removed.status, removed.text).toBe(200);
    const refused = await seenOnB(oldKey, 401);
    expect(JSON.parse(refused.text).errors[0].code).toBe('UNAUTHORIZED');
    expect((await holdToken(a, oldKey)).status).toBe(401);
    for (const server of [a, b]) {
      const token = await holdToken(server, newKey);
      expect(token.status, token.text).toBe(200);
      expect(token.body.workspaceKey).toBe(workspace.key);
    }
    // B reads the record A changed.
    expect((await adminOn(b).get(`/workspaces/${workspace.key}`)).body.secretKey).toBe(newKey);
  });

  it('(b) deactivating on A stops the workspace on B within a second; activating on A restarts it', async () => {
    const created = await adminOn(a).post('/workspaces', { name: 'Paused across servers' });
    expect(created.status, created.text).toBe(200);
    const workspace = created.body;
    const viaHeader = { 'X-Workspace-Key': workspace.key };
    await seenOnB(workspace.secretKey, 200, { workspaceKey: workspace.key });
    expect((await holdToken(b, company.adminKey, viaHeader)).body.workspaceKey).toBe(workspace.key);

    expect((await adminOn(a).post(`/workspaces/${workspace.key}/actions/deactivate`)).status).toBe(204);
    const stopped = await seenOnB(workspace.secretKey, 403);
    expect(JSON.parse(stopped.text).errors[0].code).toBe('WORKSPACE_INACTIVE');
    const stoppedViaHeader = await holdToken(b, company.adminKey, viaHeader);
    expect(stoppedViaHeader.status).toBe(403);
    expect(stoppedViaHeader.body.errors[0].code).toBe('WORKSPACE_INACTIVE');
    expect((await adminOn(b).get('/workspaces/inactive')).body.items.map((w: { key: string }) => w.key)).toEqual([workspace.key]);

    expect((await adminOn(a).post(`/workspaces/${workspace.key}/actions/activate`)).status).toBe(204);
    await seenOnB(workspace.secretKey, 200, { workspaceKey: workspace.key });
    const resumedViaHeader = await holdToken(b, company.adminKey, viaHeader);
    expect(resumedViaHeader.status, resumedViaHeader.text).toBe(200);
    expect(resumedViaHeader.body.workspaceKey).toBe(workspace.key);
  });

  it('(c) set-default on A moves the default on B within a second', async () => {
    const created = await adminOn(a).post('/workspaces', { name: 'Default across servers' });
    expect(created.status, created.text).toBe(200);
    const workspace = created.body;
    expect((await holdToken(b, company.adminKey)).body.workspaceKey).toBe(company.workspace.key);

    expect((await adminOn(a).post(`/workspaces/actions/set-default/${workspace.key}`)).status).toBe(204);
    await seenOnB(company.adminKey, 200, { workspaceKey: workspace.key });
    expect((await holdToken(a, company.adminKey)).body.workspaceKey).toBe(workspace.key);
    const onB = await adminOn(b).get(`/workspaces/${workspace.key}`);
    expect(onB.body.isDefault).toBe(true);
    // B now refuses to deactivate the new default and accepts the old one.
    expect((await adminOn(b).post(`/workspaces/${workspace.key}/actions/deactivate`)).body.errors[0].code).toBe('DEFAULT_WORKSPACE');
    expect((await adminOn(b).post(`/workspaces/${company.workspace.key}/actions/deactivate`)).status).toBe(204);
    const oldDefaultOnB = await holdToken(b, company.workspace.secretKey);
    expect(oldDefaultOnB.status).toBe(403);
    expect(oldDefaultOnB.body.errors[0].code).toBe('WORKSPACE_INACTIVE');
  });

  it('deleting a workspace on A makes its keys unknown on B within a second', async () => {
    const created = await adminOn(a).post('/workspaces', { name: 'Deleted across servers' });
    const workspace = created.body;
    await seenOnB(workspace.secretKey, 200, { workspaceKey: workspace.key });

    expect((await adminOn(a).post(`/workspaces/${workspace.key}/actions/deactivate`)).status).toBe(204);
    await seenOnB(workspace.secretKey, 403);
    expect((await adminOn(a).delete(`/workspaces/${workspace.key}`)).status).toBe(204);
    await seenOnB(workspace.secretKey, 401);
    expect((await adminOn(b).get(`/workspaces/${workspace.key}`)).status).toBe(404);
  });
});

describe('deployments under REDIS_KEY_PREFIXes of their own on one Redis', () => {
  it("hear only their own changes: another's change of its company 1 leaves this one's company 1 cached, and servers of earlier versions still hear it", async () => {
    // Ours reaches MongoDB through a proxy the test cuts: a company it dropped could not be read again.
    const { proxy, url } = await mongoThroughProxy();
    const ours = await startTestServer({ MONGODB_URL: url });
    const theirs = await startTestServer();
    // Where servers of earlier versions listen (no prefix).
    const legacy = testRedis();
    try {
      const [mine, other] = [await createTestCompany(ours.url), await createTestCompany(theirs.url)];
      // Each the first company of its own database: the same ids.
      expect(other.workspace.id).toBe(mine.workspace.id);
      expect((await holdToken(ours, mine.workspace.secretKey)).status).toBe(200);
      const heard: string[] = [];
      legacy.on('message', (_channel: string, raw: string) => heard.push(raw));
      await legacy.subscribe('seatsio:invalidate');

      proxy.cut();
      const changed = await client(theirs.url, other.adminKey).post('/workspaces', { name: 'changed under another prefix' });
      expect(changed.status, changed.text).toBe(200);
      await eventually(async () => heard.some((raw) => JSON.parse(raw).topic === 'company'), PROPAGATION_MS);
      // Had ours dropped its company 1, this would have to read MongoDB, which it cannot reach.
      const token = await holdToken(ours, mine.workspace.secretKey);
      expect(token.status, token.text).toBe(200);
    } finally {
      proxy.restore();
      legacy.disconnect();
      await Promise.allSettled([ours.stop(), theirs.stop()]);
      await proxy.close();
    }
  });
});
