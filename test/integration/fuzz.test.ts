import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { call, createCompanyClients, isBackgroundKey, startTestServer, testEnv, type CompanyClients, type TestServer } from '../support/harness.js';
import { holdToken, newEvent } from '../support/events.js';
import { seededRandom } from '../../bench/lib/seededRandom.js';

// Thousands of random and malformed requests to every route of the API description:
// random JSON of every shape, broken JSON, bytes that are not UTF-8, odd content types
// and keys, junk in paths and query strings. Reproducible: FUZZ_SEED picks the run (the
// seed is in the test's name). Every answer must be below 500, and a request that is
// refused (4xx) must leave Redis exactly as it was: every key of this server's prefix is
// compared before and after each request (and the ticket buyer ids, which live in MongoDB).

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2_500);

/** A seeded generator (mulberry32), so a failing run can be replayed. */
function generator(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof generator>;

const ODD_STRINGS = ['', ' ', 'A-1', 'GA1', 'booked', 'free', 'reservedByToken', '\ud800', '\u0000', 'é', '😀', '../..', '%00', 'x'.repeat(5_000), '{"a":1}', '-1', 'NaN', 'null'];
const FIELD_NAMES = ['objects', 'status', 'holdToken', 'orderId', 'extraData', 'keepExtraData', 'channelKeys', 'ignoreChannels', 'name', 'key', 'eventKey', 'chartKey', 'objectId', 'quantity', 'ticketType', 'expiresInMinutes', 'events', 'statusChanges', 'type', 'allowedPreviousStatuses', 'rejectedPreviousStatuses', 'forSale', 'notForSale', 'categories', 'label', 'channels', 'date', 'tableBookingConfig', 'bestAvailable', 'isSupportEnabled', 'eventKeys', 'mode', 'ids'];

function randomValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 2, 1.5, 1e21, -1e21, Number.MAX_SAFE_INTEGER, 2 ** 53 + 1, 100_000]);
    case 3:
    case 4:
      return r.pick(ODD_STRINGS);
    case 5:
      return String.fromCharCode(...Array.from({ length: r.int(12) }, () => r.int(0x10000)));
    case 6:
    case 7: {
      const object: Record<string, unknown> = {};
      for (let i = r.int(5); i > 0; i--) object[r.chance(0.8) ? r.pick(FIELD_NAMES) : r.pick(ODD_STRINGS)] = randomValue(r, depth + 1);
      return object;
    }
    default:
      return Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1));
  }
}

/**
 * A status change that is nearly right: real labels and tokens mixed with unknown ones and
 * odd values, so the checks past validation (tokens, statuses, channels) are reached.
 */
function nearlyValidChange(r: Random): string {
  const body: Record<string, unknown> = {
    objects: Array.from({ length: 1 + r.int(3) }, () =>
      r.chance(0.7) ? r.pick(['A-1', 'A-2', 'A-3', 'B-1', 'Z-9']) : { objectId: r.pick(['GA1', 'GA2', 'A-4']), quantity: r.pick([1, 2, 0, -1, 101, 1.5]) },
    ),
  };
  if (r.chance(0.5)) body.holdToken = r.pick([...(values.token ?? []), 'unknown-token', '\ud800', '']);
  if (r.chance(0.3)) body.status = r.pick(['booked', 'free', 'reservedByToken', 'custom', '']);
  if (r.chance(0.2)) body.orderId = r.pick(['order-1', '\u0000', 'x'.repeat(300)]);
  if (r.chance(0.2)) body.channelKeys = r.pick([['NO_CHANNEL'], ['ch1'], 'ch1', [1]]);
  if (r.chance(0.1)) body.events = r.pick([values.eventKey ?? [], ['nope'], []]);
  return JSON.stringify(body);
}

/**
 * A legacy call (docs/api.md, "Legacy V1 interface") that is nearly right: the key it names
 * mostly the real one, so the fuzzer gets past it to the body and the change.
 */
function nearlyValidLegacyCall(r: Random): string {
  const body = JSON.parse(nearlyValidChange(r)) as Record<string, unknown>;
  const event = r.chance(0.8) ? values.eventKey![0] : r.pick(ODD_STRINGS);
  body.secretKey = r.chance(0.8) ? r.pick(values.secretKey!) : randomValue(r, 4);
  body.publicKey = r.chance(0.8) ? values.workspaceKey![0] : randomValue(r, 4);
  if (r.chance(0.6)) body.eventKey = event;
  if (r.chance(0.3)) body.eventKeys = r.pick([[event], [event, 'nope'], [], event, [event, event]]);
  if (r.chance(0.6)) body.event = event;
  if (r.chance(0.4)) body.reservationToken = body.holdToken ?? r.pick(values.token!);
  if (r.chance(0.2)) body.bestAvailable = r.pick([{ number: 1 }, { number: 0 }, { number: 2, extraData: [{}] }, { number: 1, categories: ['Cat1', 99] }, 'x']);
  if (r.chance(0.2)) body.indicateWhetherObjectsAreNextToEachOther = r.pick([true, false, 'yes']);
  if (r.chance(0.3)) Object.assign(body, { objectId: r.pick(['A-3', 'Z-9', '']), extraData: randomValue(r, 3) });
  return JSON.stringify(body);
}

/** A body: mostly JSON objects with the API's field names, sometimes broken bytes. */
function randomBody(r: Random, path: string): string | Buffer | undefined {
  if (path.startsWith('/api/') && r.chance(0.7)) return nearlyValidLegacyCall(r);
  if (path.includes('/actions/') && r.chance(0.6)) return nearlyValidChange(r);
  const kind = r.int(10);
  if (kind === 0) return undefined;
  if (kind === 1) return Buffer.from(Array.from({ length: r.int(40) }, () => r.int(256)));
  if (kind === 2) return JSON.stringify(randomValue(r)).slice(0, -1 - r.int(3));
  if (kind === 3) return Buffer.concat([Buffer.from('{"status":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
  if (kind === 4) return JSON.stringify(randomValue(r));
  const object: Record<string, unknown> = {};
  for (let i = 1 + r.int(5); i > 0; i--) object[r.pick(FIELD_NAMES)] = randomValue(r);
  if (r.chance(0.4)) object.objects = Array.from({ length: 1 + r.int(3) }, () => (r.chance(0.5) ? r.pick(['A-1', 'A-2', 'GA1', 'Z-9']) : randomValue(r, 2)));
  return JSON.stringify(object);
}

/** Encoded for a path; a lone surrogate, which encodeURIComponent refuses, as the bytes of its UTF-8 form. */
function pathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value)].map((b) => '%' + b.toString(16).padStart(2, '0')).join('');
  }
}

let server: TestServer;
let clients: CompanyClients;
let redis: Redis;
let prefix: string;
const values: Record<string, string[]> = {};

/** Every key of this server's prefix with its content, for comparing before and after. */
async function snapshot(): Promise<Map<string, string>> {
  // Request records (docs/faults.md) expire a few seconds after a successful status change:
  // their going away is time passing, not a request changing something.
  // The background jobs are off in this server, so no drain trims a history stream meanwhile.
  // A token that stopped holding is checked a moment later, and entries holding nothing are
  // dropped then (docs/hold-expiry.md): that check runs now, before the snapshot, not during
  // the next request.
  await server.app.parts.holdExpiry.flush();
  const keys = (await redis.keys(`${prefix}*`)).filter((key) => !key.includes(':requests:') && !isBackgroundKey(key, prefix));
  const state = new Map<string, string>();
  await Promise.all(
    keys.sort().map(async (key) => {
      // DUMP serializes any type; the TTL is left out (PTTL moves by itself).
      const dumped = await redis.dumpBuffer(key);
      if (dumped) state.set(key, dumped.toString('base64'));
    }),
  );
  // The ticket buyer ids live in MongoDB (src/metadata/ticketBuyers.ts): compared the same way.
  const buyers = await server.app.parts.db.collection('ticketBuyers').find({}).sort({ _id: 1 }).toArray();
  state.set('mongo:ticketBuyers', JSON.stringify(buyers));
  return state;
}

function differences(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [key, value] of after) if (before.get(key) !== value) changed.push(key);
  for (const key of before.keys()) if (!after.has(key)) changed.push(`${key} (deleted)`);
  return changed;
}

beforeAll(async () => {
  const env = testEnv({ BACKGROUND_JOBS: 'off' });
  prefix = env.REDIS_KEY_PREFIX!;
  server = await startTestServer(env);
  clients = await createCompanyClients(server.url);
  redis = new Redis(inject('redisUrl'));
  const event = await newEvent(clients.api, rowsWithoutSections);
  const token = await holdToken(clients.api);
  // Some state to change or refuse to change: a booked seat, a held seat.
  expect((await clients.api.post(`/events/${event.key}/actions/book`, { objects: ['A-1'] })).status).toBe(204);
  expect((await clients.api.post(`/events/${event.key}/actions/hold`, { objects: ['A-2'], holdToken: token })).status).toBe(204);
  Object.assign(values, {
    eventKey: [event.key],
    chartKey: [event.chartKey],
    token: [token],
    workspaceKey: [clients.company.workspace.key],
    fromWorkspaceKey: [clients.company.workspace.key],
    toWorkspaceKey: [clients.company.workspace.key],
    label: ['A-1', 'A-2', 'GA1'],
    status: ['booked', 'free'],
    version: ['published', 'draft'],
    month: ['2026-11'],
    // The legacy calls' keys (body or path) and an order id that exists.
    secretKey: [clients.company.workspace.secretKey, clients.company.adminKey],
    publicKey: [clients.company.workspace.key],
    orderId: ['order-1'],
  });
}, 30_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** Real values for a path parameter: `{key}` is an event's, a chart's or a workspace's by the path. */
function valuesFor(path: string, name: string): string[] {
  if (name === 'key') return path.startsWith('/events') || path.startsWith('/reports') ? values.eventKey! : path.startsWith('/charts') ? values.chartKey! : values.workspaceKey!;
  return values[name] ?? ['x'];
}

/** Routes that would lock the fuzzer out of its own workspace (new keys, deactivation). */
const LOCKOUT = /regenerate-secret-key|remove-secret-key|deactivate|set-default/;

describe(`fuzz (FUZZ_SEED=${SEED}, ${REQUESTS} requests)`, () => {
  it('no 5xx, no crash, and a refused request changes nothing in Redis', async () => {
    const r = generator(SEED);
    const description = (await call(server.url, 'GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(description.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m))
        .map((method) => ({ method: method.toUpperCase(), path })),
    ).filter((route) => !LOCKOUT.test(route.path));
    expect(routes.length).toBeGreaterThan(50);
    const salesFlow = routes.filter((route) => route.method === 'POST' && /^\/(events\/.*actions|hold-tokens|api\/)/.test(route.path));
    expect(salesFlow.length).toBeGreaterThan(5);
    for (const method of ['GET', 'POST', 'DELETE']) expect(routes).toContainEqual({ method, path: '/ticket-buyers' });

    const keys = { workspace: clients.company.workspace.secretKey, admin: clients.company.adminKey };
    const failures: string[] = [];
    const counts = new Map<number, number>();
    let before = await snapshot();
    for (let i = 0; i < REQUESTS; i++) {
      // Half the requests go to the sales flow, where a stray write costs the most.
      const route = r.chance(0.5) ? r.pick(salesFlow) : r.pick(routes);
      let path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        pathSegment(r.chance(0.8) ? r.pick(valuesFor(route.path, name)) : String(randomValue(r, 4))),
      );
      if (r.chance(0.1)) path += r.pick(['/', '//x', '/%ff', '/..', '/%00', '/' + 'y'.repeat(3000)]);
      if (r.chance(0.2)) path += '?' + r.pick(['expand=', 'expand=objects&expand=objects', 'label=%ff', 'start_after_id=-1', 'limit=1e9', 'filter=' + 'z'.repeat(2000), 'a[b]=c', '=&&=']);
      const headers: Record<string, string> = {};
      const auth = r.int(10);
      if (auth < 6) headers.authorization = 'Basic ' + Buffer.from(`${keys.workspace}:`).toString('base64');
      else if (auth < 8) headers.authorization = 'Basic ' + Buffer.from(`${keys.admin}:`).toString('base64');
      else if (auth === 8) headers.authorization = r.pick(['Basic', 'Basic %%%', 'Bearer x', 'Basic ' + Buffer.from('\ud800:').toString('base64')]);
      const body = route.method === 'GET' ? undefined : randomBody(r, route.path);
      if (body !== undefined) headers['content-type'] = r.chance(0.85) ? 'application/json' : r.pick(['text/plain', 'application/json; charset=latin1', '', 'multipart/form-data']);
      if (r.chance(0.05)) headers['x-workspace-key'] = r.pick([clients.company.workspace.key, 'nope', '']);

      const label = `#${i} ${route.method} ${path.slice(0, 120)} body=${String(body).slice(0, 120)}`;
      let status: number;
      try {
        status = (await call(server.url, route.method, path, { headers, raw: body })).status;
      } catch (error) {
        failures.push(`${label}: no answer (${(error as Error).message})`);
        break;
      }
      counts.set(status, (counts.get(status) ?? 0) + 1);
      if (status >= 500) failures.push(`${label}: ${status}`);
      const after = await snapshot();
      if (status >= 400) {
        const changed = differences(before, after);
        if (changed.length > 0) failures.push(`${label}: refused with ${status} but changed ${changed.join(', ')}`);
      }
      before = after;
    }
    if (process.env.FUZZ_VERBOSE) console.log(JSON.stringify([...counts].sort()));
    expect(failures).toEqual([]);
    // The fuzzer reached past authentication and validation too: some requests succeeded.
    expect([...counts].filter(([s]) => s < 300).reduce((sum, [, n]) => sum + n, 0)).toBeGreaterThan(50);
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  }, 180_000);
});
