import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, done, objectInfos, statuses } from '../support/events.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';
import { basic, call, createCompanyClients, expectError, testEnv, type CompanyClients, type Response } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';

// The legacy V1 interface (docs/api.md, "Legacy V1 interface"): the key in the body (or path),
// events as eventKey / eventKeys, each call the current interface's call underneath. Every
// refusal is checked to have changed nothing.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

/** A legacy call: no Authorization header, the key goes where the call wants it. */
const legacy = (path: string, body?: unknown, extra: { method?: string; headers?: Record<string, string>; raw?: string } = {}): Promise<Response> =>
  call(ctx.server.url, extra.method ?? 'POST', `/api${path}`, { body, raw: extra.raw, headers: extra.headers });

const secretKey = () => ctx.company.workspace.secretKey;
const publicKey = () => ctx.company.workspace.key;

async function reservationToken(expiresInMinutes?: number): Promise<string> {
  const response = await legacy(`/reservationToken/${publicKey()}`, expiresInMinutes === undefined ? undefined : { expiresInMinutes });
  expect(response.status, response.text).toBe(200);
  return response.body.reservationToken;
}

const FREE_A = { 'A-1': 'free', 'A-2': 'free', 'A-3': 'free' };

describe('POST /api/book', () => {
  it('books objects with the secret key in the body: 204, and the objects are booked under the order id', async () => {
    const response = await legacy('/book', { secretKey: secretKey(), eventKey: event, objects: ['A-1', { objectId: 'GA1', quantity: 3 }], orderId: 'order-7' });
    expect(response.status, response.text).toBe(204);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'GA1']);
    expect(infos['A-1']).toMatchObject({ status: 'booked', orderId: 'order-7' });
    expect(infos['A-2']!.status).toBe('free');
    expect(infos['GA1']).toMatchObject({ numBooked: 3 });
  });

  it('takes the company admin key too, acting on the default workspace', async () => {
    const response = await legacy('/book', { secretKey: ctx.company.adminKey, eventKey: event, objects: ['A-1'] });
    expect(response.status, response.text).toBe(204);
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'booked' });
  });

  it('books the best available objects with categories and extra data: 200 with their labels', async () => {
    const extraData = [{ buyer: 'one' }, { buyer: 'two' }];
    const response = await legacy('/book', { secretKey: secretKey(), eventKey: event, bestAvailable: { number: 2, categories: ['Cat1'], extraData } });
    expect(response.status, response.text).toBe(200);
    const labels = response.body as string[];
    expect(labels).toHaveLength(2);
    const infos = await objectInfos(ctx.api, event, labels);
    expect(labels.map((label) => infos[label]!.status)).toEqual(['booked', 'booked']);
    expect(labels.map((label) => infos[label]!.extraData)).toEqual(extraData);
    expect(labels.map((label) => infos[label]!.categoryKey)).toEqual(['9', '9']);
  });

  it('with indicateWhetherObjectsAreNextToEachOther answers {objects, nextToEachOther}', async () => {
    const response = await legacy('/book', {
      secretKey: secretKey(),
      eventKey: event,
      bestAvailable: { number: 3 },
      indicateWhetherObjectsAreNextToEachOther: true,
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.objects).toHaveLength(3);
    expect(response.body.nextToEachOther).toBe(true);
    expect(Object.values(await statuses(ctx.api, event, response.body.objects))).toEqual(['booked', 'booked', 'booked']);
  });

  it('books objects held by the reservation token given; another token is refused and nothing changes', async () => {
    const token = await reservationToken();
    expect((await legacy('/reserve', { publicKey: publicKey(), event, objects: ['A-1', 'A-2'], reservationToken: token })).status).toBe(204);
    const other = await reservationToken();
    expectError(await legacy('/book', { secretKey: secretKey(), eventKey: event, objects: ['A-1', 'A-2'], reservationToken: other }), 400, 'HOLD_TOKEN_MISMATCH');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'reservedByToken', 'A-2': 'reservedByToken' });
    expect((await legacy('/book', { secretKey: secretKey(), eventKey: event, objects: ['A-1', 'A-2'], reservationToken: token })).status).toBe(204);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'booked', 'A-2': 'booked' });
  });

  it('refuses objects and bestAvailable together, and bestAvailable on several events: nothing booked', async () => {
    const second = await createEvent(ctx.api, ctx.chartKey);
    expectError(await legacy('/book', { secretKey: secretKey(), eventKey: event, objects: ['A-1'], bestAvailable: { number: 1 } }), 400, 'OBJECTS_AND_BEST_AVAILABLE');
    expectError(await legacy('/book', { secretKey: secretKey(), eventKeys: [event, second], bestAvailable: { number: 1 } }), 400, 'BEST_AVAILABLE_NOT_SUPPORTED');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2', 'A-3'])).toEqual(FREE_A);
    expect(await statuses(ctx.api, second, ['A-1', 'A-2', 'A-3'])).toEqual(FREE_A);
  });
});

describe('keys in the body', () => {
  it('a missing, empty, unknown or non-string secretKey → 401 UNAUTHORIZED, nothing booked', async () => {
    for (const key of [undefined, '', 'no-such-key', 42, null]) {
      const response = await legacy('/book', { secretKey: key, eventKey: event, objects: ['A-1'] });
      expectError(response, 401, 'UNAUTHORIZED');
    }
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it('Basic auth does not stand in for the key in the body', async () => {
    const response = await legacy('/book', { eventKey: event, objects: ['A-1'] }, { headers: { authorization: basic(secretKey()) } });
    expectError(response, 401, 'UNAUTHORIZED');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it('the key is checked before the rest of the body: an unknown key with a bad body → 401', async () => {
    expectError(await legacy('/release', { secretKey: 'no-such-key', eventKey: event, objects: 'A-1' }), 401, 'UNAUTHORIZED');
  });

  it('every route needs its key: release, changeStatus, changeExtraData', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    expectError(await legacy('/release', { eventKey: event, objects: ['A-1'] }), 401, 'UNAUTHORIZED');
    expectError(await legacy('/changeStatus', { secretKey: 'wrong', eventKey: event, objects: ['A-1'], status: 'x' }), 401, 'UNAUTHORIZED');
    expectError(await legacy('/changeExtraData', { eventKey: event, objectId: 'A-1', extraData: { a: 1 } }), 401, 'UNAUTHORIZED');
    const infos = await objectInfos(ctx.api, event, ['A-1']);
    expect(infos['A-1']!.status).toBe('booked');
    expect(infos['A-1']!.extraData).toBeUndefined();
  });

  it("another workspace's key does not reach this workspace's events (404), an inactive workspace's key → 403", async () => {
    const created = await ctx.admin.post('/workspaces', { name: 'Other' });
    expect(created.status, created.text).toBe(200);
    const other = created.body as { key: string; secretKey: string };
    expectError(await legacy('/book', { secretKey: other.secretKey, eventKey: event, objects: ['A-1'] }), 404, 'EVENT_NOT_FOUND');
    expect((await legacy(`/reservationToken/${other.key}`)).status).toBe(200);
    // Both keys are cached now; deactivating reaches them at once.
    expect((await ctx.admin.post(`/workspaces/${other.key}/actions/deactivate`)).status).toBe(204);
    expectError(await legacy('/book', { secretKey: other.secretKey, eventKey: event, objects: ['A-1'] }), 403, 'WORKSPACE_INACTIVE');
    expectError(await legacy(`/reservationToken/${other.key}`), 403, 'WORKSPACE_INACTIVE');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it('a removed secret key stops working at once', async () => {
    const added = await ctx.admin.post(`/workspaces/${publicKey()}/actions/add-secret-key`);
    expect(added.status, added.text).toBe(200);
    const key = added.body.secretKey as string;
    expect((await legacy('/book', { secretKey: key, eventKey: event, objects: ['A-1'] })).status).toBe(204);
    const removed = await ctx.admin.post(`/workspaces/${publicKey()}/actions/remove-secret-key`, { secretKey: key });
    expect(removed.status, removed.text).toBe(200);
    expectError(await legacy('/release', { secretKey: key, eventKey: event, objects: ['A-1'] }), 401, 'UNAUTHORIZED');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'booked' });
  });

  it('a body that is not a JSON object, or malformed JSON → 400 GENERAL_ERROR', async () => {
    expectError(await legacy('/book', [secretKey()]), 400, 'GENERAL_ERROR');
    expectError(await legacy('/book', undefined, { raw: '{"secretKey":', headers: { 'content-type': 'application/json' } }), 400, 'GENERAL_ERROR');
  });
});

describe('bad input with a good key: 400 with the error body, nothing changed', () => {
  it('fields of the wrong type name the field', async () => {
    const response = await legacy('/book', { secretKey: secretKey(), eventKey: event, objects: 'A-1' });
    expectError(response, 400, 'GENERAL_ERROR');
    expect(response.body.errors[0].message).toContain('#/objects');
    expectError(await legacy('/changeStatus', { secretKey: secretKey(), eventKey: 7, objects: ['A-1'], status: 'x' }), 400, 'GENERAL_ERROR');
    expectError(await legacy('/book', { secretKey: secretKey(), eventKey: event, objects: ['A-1'], indicateWhetherObjectsAreNextToEachOther: 'yes' }), 400, 'GENERAL_ERROR');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it('no event, both eventKey and eventKeys, or an empty eventKeys → 400', async () => {
    const second = await createEvent(ctx.api, ctx.chartKey);
    expectError(await legacy('/book', { secretKey: secretKey(), objects: ['A-1'] }), 400, 'GENERAL_ERROR');
    expectError(await legacy('/book', { secretKey: secretKey(), eventKey: event, eventKeys: [second], objects: ['A-1'] }), 400, 'GENERAL_ERROR');
    expectError(await legacy('/changeStatus', { secretKey: secretKey(), eventKeys: [], objects: ['A-1'], status: 'x' }), 400, 'GENERAL_ERROR');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
    expect(await statuses(ctx.api, second, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it("the current interface's refusals: unknown object, no objects, duplicate, bad extra data", async () => {
    const body = { secretKey: secretKey(), eventKey: event };
    expectError(await legacy('/book', { ...body, objects: ['A-1', 'Z-99'] }), 400, 'OBJECT_NOT_FOUND');
    expectError(await legacy('/book', { ...body, objects: [] }), 400, 'NO_OBJECTS');
    expectError(await legacy('/book', body), 400, 'GENERAL_ERROR');
    expectError(await legacy('/book', { ...body, objects: ['A-1', 'A-1'] }), 400, 'DUPLICATE_OBJECT');
    expectError(await legacy('/changeStatus', { ...body, objects: [{ objectId: 'A-1', extraData: 'text' }], status: 'x' }), 400, 'INVALID_EXTRA_DATA');
    expectError(await legacy('/changeStatus', { ...body, objects: ['A-1'] }), 400, 'INVALID_STATUS');
    expectError(await legacy('/release', { ...body, objects: ['A-1'] }), 400, 'OBJECT_NOT_RELEASABLE');
    expectError(await legacy('/book', { ...body, eventKey: 'no-such-event', objects: ['A-1'] }), 404, 'EVENT_NOT_FOUND');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2', 'A-3'])).toEqual(FREE_A);
  });
});

describe('POST /api/release', () => {
  it('releases booked objects: 204, free again', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2'] });
    const response = await legacy('/release', { secretKey: secretKey(), eventKey: event, objects: ['A-1'] });
    expect(response.status, response.text).toBe(204);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'booked' });
  });
});

describe('POST /api/changeStatus', () => {
  it('sets a custom status on labels and GA places with extra data', async () => {
    const response = await legacy('/changeStatus', {
      secretKey: secretKey(),
      eventKey: event,
      objects: ['A-1', { objectId: 'GA1', quantity: 2 }, { objectId: 'A-2', extraData: { note: 'aisle' } }],
      status: 'lost-and-found',
    });
    expect(response.status, response.text).toBe(204);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'A-2', 'GA1']);
    expect(infos['A-1']!.status).toBe('lost-and-found');
    expect(infos['A-2']).toMatchObject({ status: 'lost-and-found', extraData: { note: 'aisle' } });
    expect(infos['GA1']).toMatchObject({ numBooked: 2 });
  });

  it('changes every event of eventKeys', async () => {
    const second = await createEvent(ctx.api, ctx.chartKey);
    const response = await legacy('/changeStatus', { secretKey: secretKey(), eventKeys: [event, second], objects: ['A-1', 'A-2'], status: 'booked' });
    expect(response.status, response.text).toBe(204);
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'booked', 'A-2': 'booked' });
    expect(await statuses(ctx.api, second, ['A-1', 'A-2'])).toEqual({ 'A-1': 'booked', 'A-2': 'booked' });
  });

  it('all or nothing across events: one event refuses, no event changes', async () => {
    const second = await createEvent(ctx.api, ctx.chartKey);
    const third = await createEvent(ctx.api, ctx.chartKey);
    await done(ctx.api, second, 'book', { objects: ['A-2'] });
    const response = await legacy('/changeStatus', { secretKey: secretKey(), eventKeys: [event, second, third], objects: ['A-1', 'A-2'], status: 'booked' });
    expectError(response, 400, 'OBJECT_NOT_FREE');
    expect(await statuses(ctx.api, event, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
    expect(await statuses(ctx.api, second, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'booked' });
    expect(await statuses(ctx.api, third, ['A-1', 'A-2'])).toEqual({ 'A-1': 'free', 'A-2': 'free' });
    // An unknown event among them: 404, nothing changed either.
    expectError(await legacy('/changeStatus', { secretKey: secretKey(), eventKeys: [event, 'no-such-event'], objects: ['A-1'], status: 'x' }), 404, 'EVENT_NOT_FOUND');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });
});

describe('seasons through the legacy calls', () => {
  it("books on a season (its events show it); an event's booking makes the season refuse the seat: nothing changes", async () => {
    const season = await createSeason(ctx.api, ctx.chartKey, { numberOfEvents: 2 });
    const [first, second] = eventKeysOf(season);
    expect((await legacy('/book', { secretKey: secretKey(), eventKey: season.key, objects: ['A-1'] })).status).toBe(204);
    expect(await statuses(ctx.api, first!, ['A-1'])).toEqual({ 'A-1': 'booked' });
    expect((await legacy('/book', { secretKey: secretKey(), eventKey: second, objects: ['A-2'] })).status).toBe(204);
    const refused = await legacy('/changeStatus', { secretKey: secretKey(), eventKeys: [event, season.key], objects: ['A-2', 'A-3'], status: 'booked' });
    expect(refused.status, refused.text).toBe(400);
    expect(await statuses(ctx.api, event, ['A-2', 'A-3'])).toEqual({ 'A-2': 'free', 'A-3': 'free' });
    expect(await statuses(ctx.api, season.key, ['A-3'])).toEqual({ 'A-3': 'free' });
  });
});

describe('POST /api/changeExtraData', () => {
  it('replaces the extra data of one object', async () => {
    const response = await legacy('/changeExtraData', { secretKey: secretKey(), eventKey: event, objectId: 'A-3', extraData: { seatNote: 'wide' } });
    expect(response.status, response.text).toBe(204);
    expect((await objectInfos(ctx.api, event, ['A-3']))['A-3']!.extraData).toEqual({ seatNote: 'wide' });
  });

  it('an unknown object (404, as the current call answers) or extra data that is not an object (400): nothing written', async () => {
    expectError(await legacy('/changeExtraData', { secretKey: secretKey(), eventKey: event, objectId: 'Z-99', extraData: { a: 1 } }), 404, 'OBJECT_NOT_FOUND');
    expectError(await legacy('/changeExtraData', { secretKey: secretKey(), eventKey: event, objectId: 'A-3', extraData: [1] }), 400, 'GENERAL_ERROR');
    expectError(await legacy('/changeExtraData', { secretKey: secretKey(), eventKey: event, extraData: { a: 1 } }), 400, 'GENERAL_ERROR');
    expect((await objectInfos(ctx.api, event, ['A-3']))['A-3']!.extraData).toBeUndefined();
  });
});

describe('POST /api/reservationToken/{publicKey}', () => {
  it("creates a hold token living the company's hold period, 15 minutes on a new company", async () => {
    const response = await legacy(`/reservationToken/${publicKey()}`);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['expiresAt', 'expiresInSeconds', 'reservationToken']);
    expect(response.body.expiresInSeconds).toBeGreaterThan(15 * 60 - 5);
    expect(response.body.expiresInSeconds).toBeLessThanOrEqual(15 * 60);
    expect(Date.parse(response.body.expiresAt) - Date.now()).toBeGreaterThan(15 * 60_000 - 5_000);
    // It is a hold token of the workspace.
    const token = await ctx.api.get(`/hold-tokens/${response.body.reservationToken}`);
    expect(token.status, token.text).toBe(200);
  });

  it('follows the hold period the company sets', async () => {
    const own: CompanyClients = await ctx.freshCompany();
    expect((await own.admin.post('/accounts/me/actions/change-hold-period', { holdPeriodInMinutes: 30 })).status).toBe(204);
    const response = await legacy(`/reservationToken/${own.company.workspace.key}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.expiresInSeconds).toBeGreaterThan(30 * 60 - 5);
    expect(response.body.expiresInSeconds).toBeLessThanOrEqual(30 * 60);
  });

  it('takes expiresInMinutes up to 2 hours, never more; the token never lives past 2 hours', async () => {
    const longest = await legacy(`/reservationToken/${publicKey()}`, { expiresInMinutes: 120 });
    expect(longest.status, longest.text).toBe(200);
    expect(longest.body.expiresInSeconds).toBeGreaterThan(120 * 60 - 5);
    for (const expiresInMinutes of [121, 0, 1.5, '10']) {
      expectError(await legacy(`/reservationToken/${publicKey()}`, { expiresInMinutes }), 400, 'GENERAL_ERROR');
    }
    const short = await legacy(`/reservationToken/${publicKey()}`, { expiresInMinutes: 1 });
    expect(short.body.expiresInSeconds).toBeLessThanOrEqual(60);
    // Extended through the current interface: at most 2 hours from creation.
    const extended = await ctx.api.post(`/hold-tokens/${longest.body.reservationToken}`, { expiresInMinutes: 120 });
    expectError(extended, 400, 'HOLD_TOKEN_MAX_LIFETIME');
  });

  it('an unknown public key → 401; a secret key is not a public key', async () => {
    expectError(await legacy('/reservationToken/no-such-key'), 401, 'UNAUTHORIZED');
    expectError(await legacy(`/reservationToken/${secretKey()}`), 401, 'UNAUTHORIZED');
  });
});

describe('POST /api/reserve', () => {
  it('holds objects with the public key and a reservation token', async () => {
    const token = await reservationToken();
    const response = await legacy('/reserve', { publicKey: publicKey(), event, objects: ['A-1', { objectId: 'GA1', quantity: 2 }], reservationToken: token });
    expect(response.status, response.text).toBe(204);
    const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
    expect(infos['A-1']).toMatchObject({ status: 'reservedByToken', holdToken: token });
    expect(infos['GA1']).toMatchObject({ numHeld: 2 });
  });

  it('holds the best available objects: 200 with their labels', async () => {
    const token = await reservationToken();
    const response = await legacy('/reserve', { publicKey: publicKey(), event, bestAvailable: { number: 2 }, reservationToken: token });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toHaveLength(2);
    const infos = await objectInfos(ctx.api, event, response.body);
    for (const label of response.body as string[]) expect(infos[label]).toMatchObject({ status: 'reservedByToken', holdToken: token });
  });

  it('needs a live reservation token of the workspace: 400, nothing held', async () => {
    const body = { publicKey: publicKey(), event, objects: ['A-1'] };
    expectError(await legacy('/reserve', body), 400, 'HOLD_TOKEN_REQUIRED');
    expectError(await legacy('/reserve', { ...body, reservationToken: 'no-such-token' }), 400, 'HOLD_TOKEN_NOT_FOUND');
    const own = await ctx.freshCompany();
    const foreign = await call(ctx.server.url, 'POST', `/api/reservationToken/${own.company.workspace.key}`);
    expectError(await legacy('/reserve', { ...body, reservationToken: foreign.body.reservationToken }), 400, 'HOLD_TOKEN_NOT_FOUND');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });

  it('a missing or unknown public key, or a secret key in its place → 401; eventKey is not its event field → 400', async () => {
    const token = await reservationToken();
    expectError(await legacy('/reserve', { event, objects: ['A-1'], reservationToken: token }), 401, 'UNAUTHORIZED');
    expectError(await legacy('/reserve', { publicKey: 'nope', event, objects: ['A-1'], reservationToken: token }), 401, 'UNAUTHORIZED');
    expectError(await legacy('/reserve', { publicKey: secretKey(), event, objects: ['A-1'], reservationToken: token }), 401, 'UNAUTHORIZED');
    expectError(await legacy('/reserve', { publicKey: publicKey(), eventKey: event, objects: ['A-1'], reservationToken: token }), 400, 'GENERAL_ERROR');
    expect(await statuses(ctx.api, event, ['A-1'])).toEqual({ 'A-1': 'free' });
  });
});

describe('GET /api/event/{eventKey}/orders/{orderId}/{secretKey}', () => {
  it('lists the labels booked under the order id, sorted', async () => {
    await done(ctx.api, event, 'book', { objects: ['B-2', 'A-7'], orderId: 'o-1' });
    await done(ctx.api, event, 'book', { objects: ['C-1'], orderId: 'o-2' });
    const response = await legacy(`/event/${event}/orders/o-1/${secretKey()}`, undefined, { method: 'GET' });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual(['A-7', 'B-2']);
    const none = await legacy(`/event/${event}/orders/o-3/${secretKey()}`, undefined, { method: 'GET' });
    expect(none.body).toEqual([]);
  });

  it('an unknown secret key → 401; an unknown event → 404', async () => {
    expectError(await legacy(`/event/${event}/orders/o-1/no-such-key`, undefined, { method: 'GET' }), 401, 'UNAUTHORIZED');
    expectError(await legacy(`/event/no-such-event/orders/o-1/${secretKey()}`, undefined, { method: 'GET' }), 404, 'EVENT_NOT_FOUND');
  });
});

describe('LEGACY_V1_PREFIX, and secret keys kept out of logs and metrics', () => {
  const lines: string[] = [];
  let url: string;
  let stop: () => Promise<unknown>;
  let company: CompanyClients;
  let prefixedEvent: string;

  beforeAll(async () => {
    const config = loadConfig(testEnv({ LEGACY_V1_PREFIX: '/legacy/v1', LOG_LEVEL: 'info' }));
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const app = await startApp(config, logger);
    url = `http://127.0.0.1:${app.port}`;
    stop = () => app.shutdown(5_000);
    company = await createCompanyClients(url);
    prefixedEvent = await createEvent(company.api, (await uploadDrawing(company.api, rowsWithoutSections)).key);
  });
  afterAll(() => stop?.());

  it('serves the legacy calls under the prefix, and not under /api', async () => {
    const body = { secretKey: company.company.workspace.secretKey, eventKey: prefixedEvent, objects: ['A-1'], orderId: 'o-9' };
    expect((await call(url, 'POST', '/legacy/v1/book', { body })).status).toBe(204);
    expectError(await call(url, 'POST', '/api/book', { body: { ...body, objects: ['A-2'] } }), 404, 'NOT_FOUND');
    expect(await statuses(company.api, prefixedEvent, ['A-1', 'A-2'])).toEqual({ 'A-1': 'booked', 'A-2': 'free' });
  });

  it('never writes a secret key of a body or path into the request log or the metrics', async () => {
    const key = company.company.workspace.secretKey;
    const adminKey = company.company.adminKey;
    const before = lines.length;
    const orders = await call(url, 'GET', `/legacy/v1/event/${prefixedEvent}/orders/o-9/${key}`);
    expect(orders.status, orders.text).toBe(200);
    expect(orders.body).toEqual(['A-1']);
    // A wrong method on the same path, a refused key and bodies with the key in them.
    expect((await call(url, 'POST', `/legacy/v1/event/${prefixedEvent}/orders/o-9/${key}`)).status).toBe(405);
    expect((await call(url, 'GET', `/legacy/v1/event/${prefixedEvent}/orders/o-9/${key}x`)).status).toBe(401);
    expect((await call(url, 'POST', '/legacy/v1/release', { body: { secretKey: key, eventKey: prefixedEvent, objects: ['A-1'] } })).status).toBe(204);
    expect((await call(url, 'POST', '/legacy/v1/book', { body: { secretKey: adminKey, eventKey: prefixedEvent, objects: 'A-1' } })).status).toBe(400);
    // A mistyped URL (the order id left out) matches no route, and still hides the key (and
    // every key-shaped segment: this event's key is a UUID too).
    expect((await call(url, 'GET', `/legacy/v1/event/${prefixedEvent}/orders/${key}`)).status).toBe(404);

    const requestLines = lines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
    expect(requestLines).toHaveLength(6);
    expect(requestLines[5]).toMatchObject({ path: '/legacy/v1/event/***/orders/***', status: 404 });
    expect(requestLines[0]).toMatchObject({
      method: 'GET',
      path: `/legacy/v1/event/${prefixedEvent}/orders/o-9/***`,
      route: 'GET /legacy/v1/event/:eventKey/orders/:orderId/:secretKey',
      status: 200,
    });
    expect(requestLines[1]).toMatchObject({ path: `/legacy/v1/event/${prefixedEvent}/orders/o-9/***`, status: 405 });
    const logged = lines.slice(before).join('\n');
    expect(logged).not.toContain(key);
    expect(logged).not.toContain(adminKey);

    const metrics = await call(url, 'GET', '/metrics');
    expect(metrics.text).toContain('route="GET /legacy/v1/event/:eventKey/orders/:orderId/:secretKey",status="200"');
    expect(metrics.text).not.toContain(key);
    expect(metrics.text).not.toContain(adminKey);
  });
});
