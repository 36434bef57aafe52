import { describe, expect, it, vi } from 'vitest';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent, done, objectInfo } from '../support/events.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';
import { call, client, createCompanyClients, eventually, startTestServer, testEnv, type TestServer } from '../support/harness.js';
import { holdExpiryHarness, jobExists, jobKey, setUp, tokenExpiringIn, drawing } from '../support/holdExpiry.js';
import { retrieveEvent } from '../support/eventAdmin.js';
import { eventKeys, seasonUseKeyOfTag } from '../../src/inventory/eventKeys.js';
import { streamChanges } from '../support/historyStream.js';

// Hold expiry as background work (docs/hold-expiry.md), on real servers: one BullMQ delayed
// job per hold token gives back what the token still holds once it expires, recorded as
// HOLD_EXPIRED; the sales flow treats the hold as free at the exact instant with no worker
// at all; jobs that came due while every server was down run when one comes back. The same
// at the scale of 10,000 holds is in holdExpiryAtScale.test.ts.

const { server, redisOf, stored } = holdExpiryHarness();

describe('hold expiry', () => {
  it('gives a hold back within 1 s of its expiry with a worker running, recorded as HOLD_EXPIRED, and forgets the token', async () => {
    const env = testEnv();
    const app = await server(env);
    const setup = await setUp(app);
    const redis = redisOf(env);
    const keys = eventKeys(setup.ref);
    const token = await tokenExpiringIn(app, setup, 1_500);
    await done(setup.clients.api, setup.eventKey, 'hold', { objects: ['A-1', 'A-2'], holdToken: token.token, orderId: 'order-7' });
    await eventually(() => jobExists(app, env, token.token), 1_000, 5);
    expect(await redis.hexists(keys.holdTokens, token.token)).toBe(1);

    await eventually(async () => (await redis.hlen(keys.objects)) === 0, 5_000, 10);
    const late = Date.now() - token.expiresAt;
    expect(late).toBeLessThanOrEqual(1_000);
    expect(await redis.exists(keys.holdTokens)).toBe(0);
    await eventually(async () => !(await jobExists(app, env, token.token)), 2_000);

    // Listed by the history route like any change, with the token, the order and the origin.
    let items: any[] = [];
    await eventually(async () => {
      const page = await setup.clients.api.get(`/events/${setup.eventKey}/status-changes?sort=objectLabel`);
      items = page.body.items.filter((i: any) => i.origin.type === 'HOLD_EXPIRED');
      return items.length === 2;
    }, 5_000, 50);
    expect(items.map((i) => [i.objectLabel, i.status, i.holdToken, i.orderId])).toEqual([
      ['A-1', 'free', token.token, 'order-7'],
      ['A-2', 'free', token.token, 'order-7'],
    ]);
  });

  it('drops the job when everything the token held is booked, brings it back on the next hold, and follows expiry changes', async () => {
    const env = testEnv();
    const app = await server(env);
    const setup = await setUp(app);
    const redis = redisOf(env);
    const keys = eventKeys(setup.ref);
    const api = setup.clients.api;
    const token = (await api.post('/hold-tokens', { expiresInMinutes: 10 })).body.holdToken as string;

    await done(api, setup.eventKey, 'hold', { objects: ['B-1', 'B-2'], holdToken: token });
    await eventually(() => jobExists(app, env, token), 1_000, 5);
    await done(api, setup.eventKey, 'book', { objects: ['B-1'], holdToken: token });
    // Still holding B-2: the job stays.
    await new Promise((r) => setTimeout(r, 300));
    expect(await jobExists(app, env, token)).toBe(true);
    await done(api, setup.eventKey, 'book', { objects: ['B-2'], holdToken: token });
    await eventually(async () => !(await jobExists(app, env, token)), 2_000);
    expect(await redis.hexists(keys.holdTokens, token)).toBe(0);

    // The same token holds again: the job is back, due at the token's expiry.
    await done(api, setup.eventKey, 'hold', { objects: ['B-3'], holdToken: token });
    await eventually(() => jobExists(app, env, token), 1_000, 5);
    const job = await app.app.parts.jobsRedis.hgetall(jobKey(env, token));
    expect(Number(job.timestamp) + Number(job.delay)).toBeGreaterThan(Date.now() + 9 * 60_000);

    // Expired now through the API: the job runs at once and B-3 is given back.
    const changed = Date.now();
    expect((await api.post(`/hold-tokens/${token}`, { expiresInMinutes: 0 })).status).toBe(200);
    await eventually(async () => (await redis.hexists(keys.objects, 'B-3')) === 0, 5_000, 10);
    expect(Date.now() - changed).toBeLessThanOrEqual(1_000);
    await eventually(async () => !(await jobExists(app, env, token)), 2_000);
    expect(await redis.hget(keys.objects, 'B-1')).toBe('booked');
  });

  // An expiry change reaches the token's job whenever it comes: right after the hold (before
  // the job is added, FLUSH_MS later) as well as once the job waits. The HOLD_EXPIRED record
  // is then in the history within seconds, long before the sweep (30 s past an expiry) or
  // the old expiry (10 minutes away) could have written it.
  it.each([
    ['right after the hold', async () => undefined],
    ['once its job waits', (app: TestServer, env: Record<string, string>, token: string) => eventually(() => jobExists(app, env, token), 1_000, 5)],
  ])('records HOLD_EXPIRED at once when the expiry is changed to now %s', async (_, before) => {
    const env = testEnv();
    const app = await server(env);
    const setup = await setUp(app);
    const api = setup.clients.api;
    const token = (await api.post('/hold-tokens', { expiresInMinutes: 10 })).body.holdToken as string;
    await done(api, setup.eventKey, 'hold', { objects: ['G-1', 'G-2'], holdToken: token });
    await before(app, env, token);
    expect((await api.post(`/hold-tokens/${token}`, { expiresInMinutes: 0 })).status).toBe(200);

    let expired: any[] = [];
    await eventually(async () => {
      const page = await api.get(`/events/${setup.eventKey}/status-changes?sort=objectLabel`);
      expired = page.body.items.filter((i: any) => i.origin.type === 'HOLD_EXPIRED');
      return expired.length === 2;
    }, 5_000, 50);
    expect(expired.map((i) => [i.objectLabel, i.status, i.holdToken])).toEqual([
      ['G-1', 'free', token],
      ['G-2', 'free', token],
    ]);
    await eventually(async () => !(await jobExists(app, env, token)), 2_000);
  });

  it('records HOLD_EXPIRED at once when another server changes the expiry to now right after the hold', async () => {
    const env = testEnv();
    const holding = await server(env);
    // The same Redis and database: the hold's job is this one's to add, the change the other's.
    const changing = await server({ ...env, BACKGROUND_JOBS: 'off' });
    const setup = await setUp(holding);
    const api = setup.clients.api;
    const other = client(changing.url, setup.clients.company.workspace.secretKey);
    const token = (await api.post('/hold-tokens', { expiresInMinutes: 10 })).body.holdToken as string;
    // A first call through the other server, so the change below is not its first.
    expect((await other.get(`/hold-tokens/${token}`)).status).toBe(200);
    await done(api, setup.eventKey, 'hold', { objects: ['H-1'], holdToken: token });
    expect((await other.post(`/hold-tokens/${token}`, { expiresInMinutes: 0 })).status).toBe(200);

    await eventually(async () => {
      const page = await api.get(`/events/${setup.eventKey}/status-changes`);
      return page.body.items.some((i: any) => i.origin.type === 'HOLD_EXPIRED' && i.objectLabel === 'H-1');
    }, 5_000, 50);
  });

  it('makes no job for a hold given back before its job would be added (a checkout that books at once)', async () => {
    const env = testEnv();
    const app = await server(env);
    const setup = await setUp(app);
    const api = setup.clients.api;
    const token = (await api.post('/hold-tokens', {})).body.holdToken as string;
    const looks = vi.spyOn(app.app.parts.holdTokens, 'holdsAnything');
    await done(api, setup.eventKey, 'hold', { objects: ['F-1'], holdToken: token });
    await done(api, setup.eventKey, 'book', { objects: ['F-1'], holdToken: token });
    await app.app.parts.holdExpiry.flush();
    expect(await jobExists(app, env, token)).toBe(false);
    // The booking cancelled the hold's start: nothing was read or written to find that out.
    expect(looks.mock.calls.filter(([t]) => t === token)).toEqual([]);
    looks.mockRestore();
    // Holding again for longer than that: the job comes.
    await done(api, setup.eventKey, 'hold', { objects: ['F-2'], holdToken: token });
    await app.app.parts.holdExpiry.flush();
    expect(await jobExists(app, env, token)).toBe(true);
  });

  it('makes the job for a token that gave back at once in one event but still holds in another', async () => {
    const env = testEnv();
    const app = await server(env);
    const setup = await setUp(app);
    const api = setup.clients.api;
    const { chartKey } = await retrieveEvent(api, setup.eventKey);
    const other = await createEvent(api, chartKey);
    const token = (await api.post('/hold-tokens', {})).body.holdToken as string;
    await done(api, setup.eventKey, 'hold', { objects: ['F-1'], holdToken: token });
    await done(api, other, 'hold', { objects: ['F-1'], holdToken: token });
    await done(api, setup.eventKey, 'book', { objects: ['F-1'], holdToken: token });
    await app.app.parts.holdExpiry.flush();
    expect(await jobExists(app, env, token)).toBe(true);
    // Given back in the other event too, later: the job goes.
    await done(api, other, 'release', { objects: ['F-1'], holdToken: token });
    await eventually(async () => !(await jobExists(app, env, token)), 2_000);
  });

  it("looks at a started token only once it has held for 50 ms, whenever the server's look comes", async () => {
    const env = testEnv();
    const app = await server(env);
    const setup = await setUp(app);
    const api = setup.clients.api;
    const [first, second] = [(await api.post('/hold-tokens', {})).body.holdToken as string, (await api.post('/hold-tokens', {})).body.holdToken as string];
    // The first hold sets the next look 50 ms ahead; the second hold comes 30 ms into it.
    await done(api, setup.eventKey, 'hold', { objects: ['J-1'], holdToken: first });
    await new Promise((r) => setTimeout(r, 30));
    const sent = Date.now();
    await done(api, setup.eventKey, 'hold', { objects: ['J-2'], holdToken: second });
    await eventually(() => jobExists(app, env, second), 2_000, 2);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(50);
    expect(await jobExists(app, env, first)).toBe(true);
  });

  it('treats a hold as free at the exact instant its token expires with no worker at all', async () => {
    const env = testEnv({ BACKGROUND_JOBS: 'off' });
    const app = await server(env);
    const setup = await setUp(app);
    const redis = redisOf(env);
    const keys = eventKeys(setup.ref);
    const token = await tokenExpiringIn(app, setup, 1_000);
    await done(setup.clients.api, setup.eventKey, 'hold', { objects: ['C-1'], holdToken: token.token });
    const early = await action(setup.clients.api, setup.eventKey, 'book', { objects: ['C-1'] });
    expect(early.status).toBe(400);
    while (Date.now() < token.expiresAt) await new Promise((r) => setTimeout(r, 1));
    // Nothing gave the hold back: the record still says held, and the booking still goes through.
    expect(await redis.hget(keys.objects, 'C-1')).toMatch(/^reservedByToken/);
    await done(setup.clients.api, setup.eventKey, 'book', { objects: ['C-1'], orderId: 'at-expiry' });
    expect(await redis.hget(keys.objects, 'C-1')).toMatch(/^booked/);
    // The booking recorded the hold's end before itself, and the token left the event.
    expect(await redis.exists(keys.holdTokens)).toBe(0);
    const history = (await streamChanges(redis, keys.history)).map(({ c }) => c.split('\u001f').slice(1, 3).concat(c.split('\u001f')[6]!));
    expect(history).toEqual([
      ['C-1', 'reservedByToken', 'API_CALL'],
      ['C-1', 'free', 'HOLD_EXPIRED'],
      ['C-1', 'booked', 'API_CALL'],
    ]);
  });

  it("gives back a hold in an event of a season, and takes it out of the season's count of records", async () => {
    const env = testEnv();
    const app = await server(env);
    const clients = await createCompanyClients(app.url);
    const chart = (await uploadDrawing(clients.api, drawing)).key;
    const season = await createSeason(clients.api, chart, { numberOfEvents: 2 });
    const [first] = eventKeysOf(season);
    const { id } = await retrieveEvent(clients.api, first!);
    const setup = { clients, eventKey: first!, ref: { _id: id, tag: String(season.id) } };
    const redis = redisOf(env);
    const token = await tokenExpiringIn(app, setup, 1_000);
    await done(clients.api, first!, 'hold', { objects: ['E-1'], holdToken: token.token });
    // The season counts one unit with a record of E-1 (docs/seasons.md).
    expect(await redis.hget(seasonUseKeyOfTag(setup.ref.tag), 'E-1')).toBe('1');

    await eventually(async () => (await redis.hexists(eventKeys(setup.ref).objects, 'E-1')) === 0, 5_000, 20);
    expect(await redis.hexists(seasonUseKeyOfTag(setup.ref.tag), 'E-1')).toBe(0);
    // So the season books it straight away, and the event then shows it booked by the season.
    await done(clients.api, season.key, 'book', { objects: ['E-1'] });
    expect((await objectInfo(clients.api, first!, 'E-1')).status).toBe('booked');
  });

  it('gives holds back when a server comes back after every server was down across their expiry', async () => {
    const env = testEnv();
    const first = await startTestServer(env);
    const setup = await setUp(first);
    const redis = redisOf(env);
    const keys = eventKeys(setup.ref);
    const token = await tokenExpiringIn(first, setup, 1_000);
    await done(setup.clients.api, setup.eventKey, 'hold', { objects: ['D-1', 'D-2', 'D-3'], holdToken: token.token });
    await first.stop();
    while (Date.now() < token.expiresAt + 1_500) await new Promise((r) => setTimeout(r, 50));
    // Nobody was there: the stored state still says held.
    expect(await redis.hlen(keys.objects)).toBe(3);

    const back = await server(env);
    await eventually(async () => (await redis.hlen(keys.objects)) === 0, 10_000, 20);
    expect(await redis.exists(keys.holdTokens)).toBe(0);
    await eventually(async () => (await stored(env.MONGODB_DB!, setup.ref._id)).filter((c) => c.origin.type === 'HOLD_EXPIRED').length === 3, 10_000, 50);
    const expired = (await stored(env.MONGODB_DB!, setup.ref._id)).filter((c) => c.origin.type === 'HOLD_EXPIRED');
    expect(expired.map((c) => c.label).sort()).toEqual(['D-1', 'D-2', 'D-3']);
    expect((await call(back.url, 'GET', '/ready')).status).toBe(200);
  });
});
