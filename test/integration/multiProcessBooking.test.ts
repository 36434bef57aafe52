import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedDrawing } from '../fixtures/drawings.js';
import { action, newEvent, objectInfo, type TestEvent } from '../support/events.js';
import {
  client,
  createTestCompany,
  expectError,
  newDatabaseName,
  spawnServer,
  testEnv,
  type Api,
  type Response,
  type SpawnedServer,
  type TestCompany,
} from '../support/harness.js';

// Two server processes of the built server (what `WORKERS=2 npm start` runs, docs/operations.md, "One
// process per core") sharing Redis and one MongoDB database. A change made through A is
// acknowledged, then the next booking on B must obey it within a second: channels and the
// for-sale config live in Redis and are read by the status script itself; the workspace
// key reaches B's tenant cache through the invalidation bus. B has served the same event
// and key before each change, so a stale cache on B would show.

const PROPAGATION_MS = 1000;
/** Seats per row; each row is the pool of one step's attempts on B (a stale booking takes a seat). */
const ROW = 60;
const row = (label: string) => Array.from({ length: ROW }, (_, i) => `${label}-${i + 1}`);
/** The seat of B's attempt `i`: each stale attempt books one, so a B that never obeys runs out of them. */
function seatOf(seats: string[], i: number): string {
  if (i >= seats.length) throw new Error(`B booked all ${seats.length} seats it should have refused`);
  return seats[i]!;
}
const drawing = generatedDrawing({ sections: 0, rowsPerSection: 6, seatsPerRow: ROW });

/** What each propagation took, printed at the end. */
const timings: string[] = [];

describe('a change made on one server process, the next booking on another', () => {
  let a: SpawnedServer;
  let b: SpawnedServer;
  let company: TestCompany;
  let onA: Api;
  let onB: Api;

  beforeAll(async () => {
    // The same database, so the same REDIS_KEY_PREFIX too (testEnv): one inventory, one metadata.
    const database = newDatabaseName();
    [a, b] = await Promise.all([spawnServer(testEnv({ MONGODB_DB: database })), spawnServer(testEnv({ MONGODB_DB: database }))]);
    company = await createTestCompany(a.url);
    onA = client(a.url, company.workspace.secretKey);
    onB = client(b.url, company.workspace.secretKey);
  });
  afterAll(async () => {
    for (const server of [a, b]) server?.child.kill('SIGTERM');
    await Promise.all(
      [a, b].map(async (server) => {
        if (!server) return;
        const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
        await server.exited;
        clearTimeout(timer);
      }),
    );
    console.info(`propagation A -> B:\n  ${timings.join('\n  ')}`);
  });

  /**
   * Calls `attempt(i)` on B (i = 0, 1, ...) until `obeys` says its answer obeys the change A
   * acknowledged at `acked`; asserts that took under a second. Returns the obeying answer and
   * its attempt number.
   */
  async function obeyedOnB(
    what: string,
    acked: number,
    attempt: (i: number) => Promise<Response>,
    obeys: (response: Response) => boolean,
  ): Promise<{ response: Response; i: number }> {
    for (let i = 0; ; i++) {
      const response = await attempt(i);
      const elapsed = Date.now() - acked;
      if (obeys(response)) {
        timings.push(`${what}: ${elapsed} ms (attempt ${i + 1})`);
        expect(elapsed, `${what}: B obeyed after ${elapsed} ms`).toBeLessThan(PROPAGATION_MS);
        return { response, i };
      }
      if (elapsed >= PROPAGATION_MS) throw new Error(`${what}: B still answered ${response.status} ${response.text} after ${elapsed} ms (attempt ${i + 1})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** A new event on a chart of rows A-F, created through A; B books A-1 on it, so B has the event cached. */
  async function warmEvent(api: Api = onA, apiOnB: Api = onB): Promise<TestEvent> {
    const event = await newEvent(api, drawing);
    const warm = await action(apiOnB, event.key, 'book', { objects: ['A-1'] });
    expect(warm.status, warm.text).toBe(204);
    return event;
  }

  it('channels replaced on A: B refuses a seat of the channel without its key within a second, and books it with the key', async () => {
    const event = await warmEvent();
    const channelled = row('B');
    // Before the change B books B-seats without channel keys: a stale B would keep doing so.
    expect((await objectInfo(onB, event.key, 'B-1')).channel).toBeUndefined();

    const replaced = await onA.post(`/events/${event.key}/channels/replace`, {
      channels: [{ key: 'vip', name: 'VIP', color: '#FF0000', index: 1, objects: channelled }],
    });
    const acked = Date.now();
    expect(replaced.status, replaced.text).toBe(204);

    const { response, i } = await obeyedOnB(
      'channels (booking)',
      acked,
      (i) => action(onB, event.key, 'book', { objects: [seatOf(channelled, i)] }),
      (r) => r.status !== 204,
    );
    expectError(response, 400, 'OBJECT_IN_CHANNEL');
    const seat = channelled[i]!;
    expect((await objectInfo(onB, event.key, seat)).status).toBe('free');
    expectError(await action(onB, event.key, 'book', { objects: [seat], channelKeys: ['NO_CHANNEL'] }), 400, 'OBJECT_IN_CHANNEL');
    const booked = await action(onB, event.key, 'book', { objects: [seat], channelKeys: ['vip'] });
    expect(booked.status, booked.text).toBe(204);
    // Seats left out of the channel still need no key.
    expect((await action(onB, event.key, 'book', { objects: ['C-1'] })).status).toBe(204);
    // B's view of the event (its object info) shows the channel too.
    await obeyedOnB('channels (object info)', acked, () => onB.get(`/events/${event.key}/objects?label=${seat}`), (r) => r.body?.[seat]?.channel === 'vip');
  });

  it('for-sale config changed on A: B refuses a seat taken off sale within a second, and books it once it is for sale again', async () => {
    const event = await warmEvent();
    const seats = row('B');
    expect((await objectInfo(onB, event.key, 'B-1')).forSale).toBe(true);

    const off = await onA.post(`/events/${event.key}/actions/mark-as-not-for-sale`, { objects: seats });
    const offAcked = Date.now();
    expect(off.status, off.text).toBe(200);
    const { response, i } = await obeyedOnB(
      'not for sale (booking)',
      offAcked,
      (i) => action(onB, event.key, 'book', { objects: [seatOf(seats, i)] }),
      (r) => r.status !== 204,
    );
    expectError(response, 400, 'OBJECT_NOT_FOR_SALE');
    const seat = seats[i]!;
    expect((await objectInfo(onB, event.key, seat)).status).toBe('free');
    // Seats left out of the config are still for sale.
    expect((await action(onB, event.key, 'book', { objects: ['C-1'] })).status).toBe(204);
    await obeyedOnB('not for sale (object info)', offAcked, () => onB.get(`/events/${event.key}/objects?label=${seat}`), (r) => r.body?.[seat]?.forSale === false);

    // Back on sale: B (which has just refused the seat) books it within a second; the
    // config now names the only seats for sale, so a seat outside it is refused on B.
    const on = await onA.post(`/events/${event.key}/actions/mark-as-for-sale`, { objects: [seat] });
    const onAcked = Date.now();
    expect(on.status, on.text).toBe(200);
    await obeyedOnB(
      'for sale again (booking)',
      onAcked,
      () => action(onB, event.key, 'book', { objects: [seat] }),
      (r) => r.status === 204,
    );
    expectError(await action(onB, event.key, 'book', { objects: ['C-2'] }), 400, 'OBJECT_NOT_FOR_SALE');
  });

  it('workspace secret key regenerated on A: B refuses the old key within a second and books with the new one', async () => {
    // A workspace of its own, so the company's default key stays valid for the other tests.
    const created = await client(a.url, company.adminKey).post('/workspaces', { name: 'Rotated across processes' });
    expect(created.status, created.text).toBe(200);
    const workspaceKey: string = created.body.key;
    const oldKey: string = created.body.secretKey;
    const oldOnB = client(b.url, oldKey);
    // B has the workspace's company cached with the old key: it books with it.
    const event = await warmEvent(client(a.url, oldKey), oldOnB);
    const seats = row('B');

    const regenerated = await client(a.url, company.adminKey).post(`/workspaces/${workspaceKey}/actions/regenerate-secret-key`);
    const acked = Date.now();
    expect(regenerated.status, regenerated.text).toBe(200);
    const newKey: string = regenerated.body.secretKey;
    expect(newKey).not.toBe(oldKey);
    expectError(await action(client(a.url, oldKey), event.key, 'book', { objects: ['C-1'] }), 401, 'UNAUTHORIZED');

    const { response, i } = await obeyedOnB(
      'workspace key (booking)',
      acked,
      (i) => action(oldOnB, event.key, 'book', { objects: [seatOf(seats, i)] }),
      (r) => r.status !== 204,
    );
    expectError(response, 401, 'UNAUTHORIZED');
    const seat = seats[i]!;
    const newOnB = client(b.url, newKey);
    expect((await objectInfo(newOnB, event.key, seat)).status).toBe('free');
    const booked = await action(newOnB, event.key, 'book', { objects: [seat] });
    expect(booked.status, booked.text).toBe(204);
    expect((await objectInfo(newOnB, event.key, seat)).status).toBe('booked');
    expectError(await action(oldOnB, event.key, 'book', { objects: ['C-2'] }), 401, 'UNAUTHORIZED');
  });
});
