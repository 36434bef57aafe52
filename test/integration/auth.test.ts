import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, createTestCompany, SYSTEM_SECRET, startTestServer, type TestCompany, type TestServer } from '../support/harness.js';

// Every kind of credential against every kind of route (see AuthKind in src/http/route.ts).

describe('authentication matrix', () => {
  let server: TestServer;
  let company: TestCompany;
  let other: TestCompany;
  let second: { key: string; secretKey: string };
  let inactive: { key: string; secretKey: string };

  beforeAll(async () => {
    server = await startTestServer();
    company = await createTestCompany(server.url);
    other = await createTestCompany(server.url);
    const admin = client(server.url, company.adminKey);
    second = (await admin.post('/workspaces', { name: 'second' })).body;
    inactive = (await admin.post('/workspaces', { name: 'inactive' })).body;
    expect((await admin.post(`/workspaces/${inactive.key}/actions/deactivate`)).status).toBe(204);
  });
  afterAll(() => server.stop());

  type Credential = { authorization?: string; key?: string; workspaceKey?: () => string };
  type Codes = [number, number, number, number];
  const basicWithPassword = (key: string) => 'Basic ' + Buffer.from(`${key}:ignored`).toString('base64');

  // Each credential, and what it gets on [public GET /health, system create-test-company,
  // company GET /workspaces, workspace POST /hold-tokens].
  const matrix: [name: string, credential: () => Credential, codes: Codes][] = [
    ['no credentials', () => ({}), [200, 401, 401, 401]],
    ['a bearer token', () => ({ authorization: 'Bearer abc' }), [200, 401, 401, 401]],
    ['an unknown key', () => ({ key: 'not-a-key' }), [200, 401, 401, 401]],
    ['the system secret', () => ({ key: SYSTEM_SECRET }), [200, 200, 401, 401]],
    ['the admin key', () => ({ key: company.adminKey }), [200, 401, 200, 200]],
    ['the admin key with a password', () => ({ authorization: basicWithPassword(company.adminKey) }), [200, 401, 200, 200]],
    ['the admin key + X-Workspace-Key of its own workspace', () => ({ key: company.adminKey, workspaceKey: () => second.key }), [200, 401, 200, 200]],
    ['the admin key + X-Workspace-Key of an inactive workspace', () => ({ key: company.adminKey, workspaceKey: () => inactive.key }), [200, 401, 200, 403]],
    ["the admin key + X-Workspace-Key of another company's workspace", () => ({ key: company.adminKey, workspaceKey: () => other.workspace.key }), [200, 401, 200, 403]],
    ['a workspace secret key', () => ({ key: second.secretKey }), [200, 401, 403, 200]],
    ['a workspace secret key + X-Workspace-Key of another workspace', () => ({ key: second.secretKey, workspaceKey: () => company.workspace.key }), [200, 401, 403, 403]],
    ['the secret key of an inactive workspace', () => ({ key: inactive.secretKey }), [200, 401, 403, 403]],
  ];

  const routes = [
    { method: 'GET', path: '/health' },
    { method: 'POST', path: '/system/private/create-test-company' },
    { method: 'GET', path: '/workspaces' },
    { method: 'POST', path: '/hold-tokens' },
  ];

  for (const [name, makeCredential, codes] of matrix) {
    it(`${name}: ${codes.join(' / ')}`, async () => {
      const credential = makeCredential();
      const statuses: number[] = [];
      for (const route of routes) {
        const headers: Record<string, string> = {};
        if (credential.authorization) headers.authorization = credential.authorization;
        if (credential.workspaceKey) headers['x-workspace-key'] = credential.workspaceKey();
        const response = await call(server.url, route.method, route.path, { key: credential.key, headers });
        statuses.push(response.status);
        if (response.status >= 400) {
          expect(response.body).toMatchObject({ status: response.status, requestId: expect.any(String) });
          expect(response.body.errors[0].code).toMatch(/^(UNAUTHORIZED|FORBIDDEN|WORKSPACE_INACTIVE|WORKSPACE_NOT_FOUND)$/);
        }
      }
      expect(statuses).toEqual(codes);
    });
  }

  it('acts on the default workspace for the admin key, and on the header workspace with X-Workspace-Key', async () => {
    const byDefault = await client(server.url, company.adminKey).post('/hold-tokens');
    expect(byDefault.body.workspaceKey).toBe(company.workspace.key);
    const byHeader = await client(server.url, company.adminKey, { 'x-workspace-key': second.key }).post('/hold-tokens');
    expect(byHeader.body.workspaceKey).toBe(second.key);
    const byOwnKey = await client(server.url, second.secretKey).post('/hold-tokens');
    expect(byOwnKey.body.workspaceKey).toBe(second.key);
  });

  it('says why: inactive workspace, workspace key on a company route', async () => {
    const inactiveCall = await client(server.url, inactive.secretKey).post('/hold-tokens');
    expect(inactiveCall.body.errors[0].code).toBe('WORKSPACE_INACTIVE');
    const companyCall = await client(server.url, second.secretKey).get('/workspaces');
    expect(companyCall.body.errors[0].code).toBe('FORBIDDEN');
  });

  it('closes the system routes when no SYSTEM_API_SECRET is configured', async () => {
    const closed = await startTestServer({ SYSTEM_API_SECRET: '' });
    try {
      const response = await call(closed.url, 'POST', '/system/private/create-test-company', { key: SYSTEM_SECRET });
      expect(response.status).toBe(401);
    } finally {
      await closed.stop();
    }
  });
});
