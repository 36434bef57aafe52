import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { client, createTestCompany, eventually, expectError, startTestServer, type TestCompany, type TestServer } from '../support/harness.js';
import { checkPasswordHash } from '../support/passwords.js';

describe('companies and account settings', () => {
  let server: TestServer;
  let company: TestCompany;
  let admin: ReturnType<typeof client>;

  beforeAll(async () => {
    server = await startTestServer();
    company = await createTestCompany(server.url);
    admin = client(server.url, company.adminKey);
  });
  afterAll(() => server.stop());

  it('create-test-company answers the admin account and its default workspace', async () => {
    const me = await admin.get('/accounts/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      secretKey: company.adminKey,
      publicKey: company.workspace.key,
      designerKey: expect.any(String),
      company: { id: expect.any(Number), name: expect.any(String) },
      settings: {
        draftChartDrawingsEnabled: true,
        holdPeriodInMinutes: 15,
        chartValidation: { VALIDATE_DUPLICATE_LABELS: 'OFF', VALIDATE_FOCAL_POINT: 'OFF' },
        // seats.io's defaults on a new company.
        defaultRendererSettings: { showFullScreenButton: false, multiSelectEnabled: false, companionSeatValidationEnabled: true },
      },
    });
    expect(company.workspace).toMatchObject({ isDefault: true, isActive: true, isTest: false, name: 'Production workspace' });
    const workspaces = await admin.get('/workspaces');
    expect(workspaces.body.items.map((w: { key: string }) => w.key)).toEqual([company.workspace.key]);
  });

  it('each test company is a separate tenant', async () => {
    const other = await createTestCompany(server.url);
    expect(other.adminKey).not.toBe(company.adminKey);
    const theirs = await client(server.url, other.adminKey).get('/workspaces');
    expect(theirs.body.items.map((w: { key: string }) => w.key)).toEqual([other.workspace.key]);
    expect((await admin.get(`/workspaces/${other.workspace.key}`)).status).toBe(404);
  });

  it('changes one setting at a time and shows it everywhere', async () => {
    expect((await admin.post('/accounts/me/settings', { key: 'VALIDATE_FOCAL_POINT', value: 'WARNING' })).status).toBe(204);
    expect((await admin.post('/accounts/me/settings', { key: 'VALIDATE_DUPLICATE_LABELS', value: 'ERROR' })).status).toBe(204);
    expect((await admin.post('/accounts/me/settings', { key: 'DRAFT_CHART_DRAWINGS_ENABLED', value: false })).status).toBe(204);
    const me = await admin.get('/accounts/me');
    expect(me.body.settings.chartValidation).toMatchObject({ VALIDATE_FOCAL_POINT: 'WARNING', VALIDATE_DUPLICATE_LABELS: 'ERROR', VALIDATE_UNLABELED_OBJECTS: 'OFF' });
    expect(me.body.settings.draftChartDrawingsEnabled).toBe(false);
    const workspace = await admin.get(`/workspaces/${company.workspace.key}`);
    expect(workspace.body.settings.chartValidation.VALIDATE_FOCAL_POINT).toBe('WARNING');
  });

  it('concurrent changes of different settings all stick', async () => {
    const own = await createTestCompany(server.url);
    const api = client(server.url, own.adminKey);
    const validators = ['VALIDATE_DUPLICATE_LABELS', 'VALIDATE_OBJECTS_WITHOUT_CATEGORIES', 'VALIDATE_UNLABELED_OBJECTS', 'VALIDATE_FOCAL_POINT', 'VALIDATE_OBJECT_TYPES_PER_CATEGORY'];
    const results = await Promise.all(validators.map((key) => api.post('/accounts/me/settings', { key, value: 'ERROR' })));
    expect(results.map((r) => r.status)).toEqual(validators.map(() => 204));
    const me = await api.get('/accounts/me');
    for (const key of validators) expect(me.body.settings.chartValidation[key]).toBe('ERROR');
  });

  it('rejects unknown settings and bad values, changing nothing', async () => {
    const before = (await admin.get('/accounts/me')).body.settings;
    for (const body of [
      { key: 'NO_SUCH_SETTING', value: 1 },
      { key: 'VALIDATE_FOCAL_POINT', value: 'LOUD' },
      { key: 'HOLD_PERIOD_IN_MINUTES', value: 500 },
      { key: 5, value: 'ERROR' },
      { value: 'ERROR' },
    ]) {
      const response = await admin.post('/accounts/me/settings', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].code).toBe('GENERAL_ERROR');
    }
    for (const body of [{ holdPeriodInMinutes: 0 }, { holdPeriodInMinutes: 121 }, { holdPeriodInMinutes: '10' }, {}]) {
      expect((await admin.post('/accounts/me/actions/change-hold-period', body)).status).toBe(400);
    }
    expect((await admin.get('/accounts/me')).body.settings).toEqual(before);
  });

  it('changes the hold period', async () => {
    expect((await admin.post('/accounts/me/actions/change-hold-period', { holdPeriodInMinutes: 30 })).status).toBe(204);
    expect((await admin.get('/accounts/me')).body.settings.holdPeriodInMinutes).toBe(30);
  });

  it('account routes are company-level: a workspace key gets 403', async () => {
    const api = client(server.url, company.workspace.secretKey);
    expect((await api.get('/accounts/me')).status).toBe(403);
    expect((await api.post('/accounts/me/settings', { key: 'VALIDATE_FOCAL_POINT', value: 'OFF' })).status).toBe(403);
  });

  describe('credentials', () => {
    it('regenerates the admin key: the answer has the new one, the old one stops working at once on every server process', async () => {
      const own = await createTestCompany(server.url);
      // A second process on the same stores, which has the old key cached.
      const other = await startTestServer({ MONGODB_DB: server.app.parts.db.databaseName, REDIS_KEY_PREFIX: `${server.app.parts.db.databaseName}:` });
      try {
        expect((await client(other.url, own.adminKey).get('/accounts/me')).status).toBe(200);
        const response = await client(server.url, own.adminKey).post('/accounts/me/secret-key/actions/regenerate');
        expect(response.status, response.text).toBe(200);
        const fresh = response.body.secretKey as string;
        expect(typeof fresh).toBe('string');
        expect(fresh).not.toBe(own.adminKey);
        expect((await client(server.url, own.adminKey).get('/accounts/me')).status).toBe(401);
        const elapsed = await eventually(async () => (await client(other.url, own.adminKey).get('/accounts/me')).status === 401, 1_000);
        expect(elapsed).toBeLessThan(1_000);
        const me = await client(other.url, fresh).get('/accounts/me');
        expect(me.status).toBe(200);
        expect(me.body.secretKey).toBe(fresh);
        // Workspace keys are untouched.
        expect((await client(server.url, own.workspace.secretKey).post('/hold-tokens')).status).toBe(200);
      } finally {
        await other.stop();
      }
    });

    it('regenerates the designer key', async () => {
      const own = await createTestCompany(server.url);
      const ownAdmin = client(server.url, own.adminKey);
      const before = (await ownAdmin.get('/accounts/me')).body.designerKey as string;
      const response = await ownAdmin.post('/accounts/me/designer-key/actions/regenerate');
      expect(response.status, response.text).toBe(200);
      expect(response.body.designerKey).not.toBe(before);
      expect((await ownAdmin.get('/accounts/me')).body.designerKey).toBe(response.body.designerKey);
    });

    it('workspace keys cannot regenerate company credentials', async () => {
      const ownWorkspace = client(server.url, company.workspace.secretKey);
      for (const path of ['/accounts/me/secret-key/actions/regenerate', '/accounts/me/designer-key/actions/regenerate', '/accounts/me/draft-chart-drawings/actions/disable']) {
        expect((await ownWorkspace.post(path)).status).toBe(403);
      }
    });
  });

  // POST /accounts/me/actions/change-password (docs/seatsio-behaviour.md, "Accounts and settings").
  describe('change password', () => {
    it('answers 204 and keeps the password only as a salted scrypt hash; the keys keep working', async () => {
      const own = await createTestCompany(server.url);
      const ownAdmin = client(server.url, own.adminKey);
      const companyId = (await ownAdmin.get('/accounts/me')).body.company.id as number;
      const stored = async () => (await server.app.parts.repos.companies.findById(companyId))!.passwordHash;
      expect(await stored()).toBeUndefined();

      const changed = await ownAdmin.post('/accounts/me/actions/change-password', { password: 'correct horse' });
      expect(changed.status, changed.text).toBe(204);
      expect(changed.text).toBe('');
      const first = (await stored())!;
      expect(first).not.toContain('correct horse');
      expect(checkPasswordHash(first, 'correct horse')).toMatchObject({ matches: true });
      expect(checkPasswordHash(first, 'wrong horse').matches).toBe(false);
      expect(JSON.stringify(await server.app.parts.repos.companies.findById(companyId))).not.toContain('correct horse');

      // The same password again: a new salt, a new hash.
      expect((await ownAdmin.post('/accounts/me/actions/change-password', { password: 'correct horse' })).status).toBe(204);
      const second = (await stored())!;
      expect(second).not.toBe(first);
      expect(checkPasswordHash(second, 'correct horse').matches).toBe(true);

      // Keys are not the password: the admin key and the workspace key still work, and no answer shows the hash.
      const me = await ownAdmin.get('/accounts/me');
      expect(me.status).toBe(200);
      expect(me.text).not.toContain(second.split('$')[5]!);
      expect((await client(server.url, own.workspace.secretKey).post('/hold-tokens', {})).status).toBe(200);
    });

    it('a missing, empty or non-string password, or another key, is 400 GENERAL_ERROR and changes nothing; a workspace key is 403', async () => {
      const own = await createTestCompany(server.url);
      const ownAdmin = client(server.url, own.adminKey);
      expect((await ownAdmin.post('/accounts/me/actions/change-password', { password: 'kept' })).status).toBe(204);
      const companyId = (await ownAdmin.get('/accounts/me')).body.company.id as number;
      const before = (await server.app.parts.repos.companies.findById(companyId))!.passwordHash;
      for (const body of [undefined, {}, { password: '' }, { password: 42 }, { password: null }, { password: 'x'.repeat(1001) }, { password: 'ok', other: 1 }]) {
        const response = await ownAdmin.post('/accounts/me/actions/change-password', body);
        expectError(response, 400, 'GENERAL_ERROR');
      }
      const missing = await ownAdmin.post('/accounts/me/actions/change-password', {});
      expect(missing.body.errors[0].message).toBe('#: required key [password] not found');
      const empty = await ownAdmin.post('/accounts/me/actions/change-password', { password: '' });
      expect(empty.body.errors[0].message).toBe('#/password: expected minLength: 1, actual: 0');
      expectError(await client(server.url, own.workspace.secretKey).post('/accounts/me/actions/change-password', { password: 'sneaky' }), 403, 'FORBIDDEN');
      expect((await server.app.parts.repos.companies.findById(companyId))!.passwordHash).toBe(before);
      expect(checkPasswordHash(before!, 'kept').matches).toBe(true);
    });
  });

  describe('draft chart drawings', () => {
    it('disabled: an edit of a chart in use changes its published drawing at once; enabled again: edits go to a draft', async () => {
      const own = await createTestCompany(server.url);
      const ownAdmin = client(server.url, own.adminKey);
      const chart = await uploadDrawing(ownAdmin, rowsWithoutSections);
      expect((await ownAdmin.post('/events', { chartKey: chart.key })).status).toBe(200);

      expect((await ownAdmin.post('/accounts/me/draft-chart-drawings/actions/disable')).status).toBe(204);
      expect((await ownAdmin.get('/accounts/me')).body.settings.draftChartDrawingsEnabled).toBe(false);
      expect((await ownAdmin.post(`/charts/${chart.key}`, { name: 'Straight to published' })).status).toBe(204);
      expect((await ownAdmin.get(`/charts/${chart.key}`)).body).toMatchObject({ status: 'PUBLISHED', name: 'Straight to published' });
      expect((await ownAdmin.get(`/charts/${chart.key}/version/draft`)).status).toBe(404);

      expect((await ownAdmin.post('/accounts/me/draft-chart-drawings/actions/enable')).status).toBe(204);
      expect((await ownAdmin.get('/accounts/me')).body.settings.draftChartDrawingsEnabled).toBe(true);
      expect((await ownAdmin.post(`/charts/${chart.key}`, { name: 'Into a draft' })).status).toBe(204);
      expect((await ownAdmin.get(`/charts/${chart.key}`)).body).toMatchObject({ status: 'PUBLISHED_WITH_DRAFT', name: 'Straight to published' });
    });
  });
});
