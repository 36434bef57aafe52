import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { action, createEvent, done, expireIn, holdToken, objectInfo } from '../support/events.js';
import { useEventPerTest, type EventPerTest } from '../support/eventPerTest.js';
import { client, createTestCompany, eventually, gaugesNamed, newDatabaseName, startTestServer, useServerWithCompany, type Api, type TestServer } from '../support/harness.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';
import { layoutLabels, statusesOf, subscribe, viewStatuses, type Subscription } from '../support/statusStream.js';

// The live status stream (docs/status-stream.md): a snapshot, then every change in the
// order applied; resume with `since`; refusals before the upgrade; what a client may send;
// a subscriber too slow to read is closed, the rest go on.

const SEATS = ['A-1', 'A-2', 'A-3', 'A-4', 'A-5', 'A-6'];

/** The view a subscriber built equals the event's state as the API reports it. */
async function expectViewMatches(api: Api, eventKey: string, subscription: Subscription): Promise<void> {
  const expected = await statusesOf(api, eventKey);
  await eventually(async () => {
    const seen = viewStatuses(subscription.view);
    return JSON.stringify([...seen].sort()) === JSON.stringify([...expected].sort());
  }, 5_000).catch(() => {
    throw new Error(`view ${JSON.stringify([...subscription.view])} differs from the event's state ${JSON.stringify([...expected])}`);
  });
}

const ROWS_OF_8 = ['A', 'B', 'C', 'D'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`));
const socketOf = (s: Subscription) => (s.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;

/** Books the 32 seats, then releases them: 64 changes (long order ids fill a socket's buffers sooner). */
async function bookAndRelease(api: Api, event: string, orderId?: string): Promise<void> {
  await done(api, event, 'book', { objects: ROWS_OF_8, orderId });
  await done(api, event, 'release', { objects: ROWS_OF_8, orderId });
}

/**
 * A reader, and a subscriber that stopped reading and is skipped; `round` books and releases
 * the 32 seats (64 changes), `state.rounds` counts them, and `skippedAt` is the seq of the last
 * frame the skipped one was sent.
 */
async function skipped(ctx: EventPerTest, event: string) {
  const key = { secretKey: ctx.company.workspace.secretKey };
  const reader = await subscribe(ctx.server.url, event, key);
  const slow = await subscribe(ctx.server.url, event, key);
  await slow.until((m) => m.type === 'snapshot');
  socketOf(slow).pause();
  const hub = ctx.server.app.parts.statusStream;
  const state = { rounds: 0 };
  const round = async (orderId?: string) => {
    await bookAndRelease(ctx.api, event, orderId);
    state.rounds++;
  };
  const started = Date.now();
  // Long order ids fill the socket's buffers sooner.
  while (hub.skippedCount === 0 && Date.now() - started < 20_000) await round('x'.repeat(200));
  expect(hub.skippedCount).toBe(1);
  await eventually(async () => reader.seq() === state.rounds * 64, 10_000);
  return { reader, slow, hub, state, round };
}

/** Each changes message follows the one before (its `from` is the previous seq) and, unless conflated, carries one change per seq: nothing missed or repeated. */
function expectNoGap(s: Subscription) {
  const first = s.messages[0]!;
  let seq = first.type === 'snapshot' ? first.seq : first.from!;
  for (const message of s.messages.filter((m) => m.type === 'changes')) {
    expect(message.from).toBe(seq);
    if (!message.conflated) expect(message.seq).toBe(seq + message.changes!.length);
    seq = message.seq;
  }
}

describe('status stream', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), { STREAM_MAX_EVENT_SUBSCRIBERS: '3', STREAM_RETAINED_CHANGES: '20' });
  const open: Subscription[] = [];
  const secret = (options: { since?: number | string } = {}) => track(subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey, ...options }));
  const publicOne = (options: { since?: number | string } = {}) => track(subscribe(ctx.server.url, event, { publicKey: ctx.company.workspace.key, ...options }));
  async function track(opening: Promise<Subscription>): Promise<Subscription> {
    const subscription = await opening;
    open.push(subscription);
    return subscription;
  }
  afterAll(() => open.forEach((s) => s.close()));
  const closeAll = async () => {
    const closing = open.splice(0).map((s) => (s.close(), s.closed));
    await Promise.all(closing);
  };

  it('sends a snapshot of every object that is not free, then each change in the order applied', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'], orderId: 'order-1' });
    const s = await secret();
    const snapshot = await s.until((m) => m.type === 'snapshot');
    expect(snapshot.objects).toEqual({ 'A-1': { status: 'booked', orderId: 'order-1' } });
    expect(snapshot.seq).toBe(1);

    await done(ctx.api, event, 'book', { objects: ['A-3', 'A-2'] });
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-4'], holdToken: token });
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    await done(ctx.api, event, 'change-object-status', { objects: ['A-5'], status: 'sold-at-door' });
    await s.until((m) => m.seq === 6);
    const changes = s.messages.filter((m) => m.type === 'changes').flatMap((m) => m.changes!);
    expect(changes.map((c) => [c.objectLabel, c.status])).toEqual([
      ['A-3', 'booked'],
      ['A-2', 'booked'],
      ['A-4', 'reservedByToken'],
      ['A-1', 'free'],
      ['A-5', 'sold-at-door'],
    ]);
    expect(changes[2]!.holdToken).toBe(token);
    const seqs = s.messages.map((m) => m.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    await expectViewMatches(ctx.api, event, s);
    await closeAll();
  });

  it('shows a public-key client statuses without hold tokens or order ids', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token, orderId: 'o-9' });
    const p = await publicOne();
    expect((await p.until((m) => m.type === 'snapshot')).objects).toEqual({ 'A-1': { status: 'reservedByToken' } });
    await done(ctx.api, event, 'book', { objects: ['A-1'], holdToken: token, orderId: 'o-9' });
    const message = await p.until((m) => m.type === 'changes');
    expect(message.changes).toEqual([{ objectLabel: 'A-1', status: 'booked', quantity: 1 }]);
    await closeAll();
  });

  it('shows a hold ending when its token expires, and GA areas with their counts', async () => {
    const s = await secret();
    await s.until((m) => m.type === 'snapshot');
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['A-6', { objectId: 'GA1', quantity: 3 }], holdToken: token });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 5 }] });
    const ga = await s.until((m) => m.changes?.some((c) => c.objectLabel === 'GA1' && c.quantity === 5) ?? false);
    // A GA area shows what object info shows (held while any place is held), with its counts after the message's changes.
    expect(ga.changes!.find((c) => c.objectLabel === 'GA1' && c.quantity === 5)).toMatchObject({ status: 'reservedByToken', booked: 5, held: 3 });
    await expireIn(ctx.api, token, 0);
    await s.until((m) => m.changes?.some((c) => c.objectLabel === 'A-6' && c.status === 'free') ?? false, 15_000);
    await eventually(async () => s.view.get('GA1')?.held === 0, 5_000);
    expect(s.view.get('GA1')).toMatchObject({ booked: 5, held: 0 });
    await expectViewMatches(ctx.api, event, s);
    await closeAll();
  });

  it('resumes after `since` with exactly the changes missed, and with a reset snapshot past what is retained', async () => {
    const first = await secret();
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await first.until((m) => m.seq === 1);
    first.close();
    await first.closed;
    await done(ctx.api, event, 'book', { objects: ['A-2', 'A-3'] });
    const resumed = await secret({ since: 1 });
    const caughtUp = await resumed.until((m) => m.seq === 3);
    expect(resumed.messages[0]!.type).toBe('changes');
    expect(caughtUp.changes!.map((c) => c.objectLabel)).toEqual(['A-2', 'A-3']);
    // Up to date: nothing to send until the next change.
    const current = await secret({ since: 3 });
    await done(ctx.api, event, 'release', { objects: ['A-2'] });
    const next = await current.until((m) => m.type === 'changes');
    expect(next).toEqual({ type: 'changes', from: 3, seq: 4, changes: [{ objectLabel: 'A-2', status: 'free', quantity: 1 }] });
    await closeAll();

    // 50 changes later, more than STREAM_RETAINED_CHANGES (20) behind: a snapshot marked reset.
    // (A subscriber meanwhile keeps the process's follower, and shows when it is at the last change.)
    const watching = await secret();
    for (let i = 0; i < 5; i++) {
      await done(ctx.api, event, 'book', { objects: SEATS.slice(3).concat('B-1', 'B-2') });
      await done(ctx.api, event, 'release', { objects: SEATS.slice(3).concat('B-1', 'B-2') });
    }
    await watching.until((m) => m.seq === 54, 15_000);
    const late = await secret({ since: 1 });
    const reset = await late.until(() => true);
    expect(reset).toMatchObject({ type: 'snapshot', reset: true, seq: 54 });
    await expectViewMatches(ctx.api, event, late);
    await closeAll();
  });

  it('refuses before the upgrade: 404 for an unknown event, 401 for a wrong key, 400 for a malformed since, 429 past the limit', async () => {
    const refusal = (promise: Promise<unknown>) => promise.then(() => expect.fail('upgraded'), (error: { status: number; body: any }) => error);
    const unknown = await refusal(subscribe(ctx.server.url, 'no-such-event', { secretKey: ctx.company.workspace.secretKey }));
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('EVENT_NOT_FOUND');
    const wrongKey = await refusal(subscribe(ctx.server.url, event, { secretKey: '00000000-0000-4000-8000-000000000000' }));
    expect(wrongKey.status).toBe(401);
    const wrongPublic = await refusal(subscribe(ctx.server.url, event, { publicKey: ctx.company.workspace.secretKey }));
    expect(wrongPublic.status).toBe(401);
    expect(wrongPublic.body.messages).toEqual(['Unknown public key']);
    const none = await refusal(subscribe(ctx.server.url, event, {}));
    expect(none.status).toBe(401);
    for (const since of ['abc', '-1', '1.5', '']) {
      const bad = await refusal(subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey, since }));
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].code).toBe('GENERAL_ERROR');
    }
    // Another company's event is not found with this workspace's keys.
    const other = await createTestCompany(ctx.server.url);
    const foreignChart = await uploadDrawing(client(ctx.server.url, other.workspace.secretKey), rowsWithoutSections);
    const foreignEvent = await createEvent(client(ctx.server.url, other.workspace.secretKey), foreignChart.key);
    expect((await refusal(subscribe(ctx.server.url, foreignEvent, { publicKey: ctx.company.workspace.key }))).status).toBe(404);

    await Promise.all([secret(), publicOne(), secret()]);
    const over = await refusal(secret());
    expect(over.status).toBe(429);
    // A closed socket gives its place back.
    await closeAll();
    await eventually(async () => (await secret().then(() => true, () => false)), 2_000);
    await closeAll();
    // Plain GET without an upgrade is no route.
    const plain = await ctx.api.get(`/events/${event}/status-stream`);
    expect(plain.status).toBe(404);
  });

  it('closes on binary frames (1003), text that is not a message (1008) and oversized frames (1009), answers pings, and changes nothing', async () => {
    const before = await statusesOf(ctx.api, event);
    const cases: [string | Buffer, number][] = [
      [Buffer.from([1, 2, 3]), 1003],
      ['not json', 1008],
      ['{"type":"book","objects":["A-1"]}', 1008],
      ['x'.repeat(2000), 1009],
    ];
    for (const [data, code] of cases) {
      const s = await secret();
      await s.until((m) => m.type === 'snapshot');
      s.socket.send(data, { binary: Buffer.isBuffer(data) });
      expect((await s.closed).code).toBe(code);
    }
    const pinging = await secret();
    pinging.socket.send('{"type":"ping"}');
    await pinging.until((m) => m.type === 'pong');
    expect(await statusesOf(ctx.api, event)).toEqual(before);
    await closeAll();
  });

  it('gives every subscriber joining during concurrent bookings a view equal to the event', async () => {
    const labels = ROWS_OF_8;
    const token = await holdToken(ctx.api);
    const early = await secret();
    const bookings = labels.map((label, i) => action(ctx.api, event, i % 5 === 0 ? 'hold' : 'book', i % 5 === 0 ? { objects: [label], holdToken: token } : { objects: [label] }));
    const late = secret();
    const answers = await Promise.all(bookings);
    const lateOne = await late;
    expect(answers.filter((a) => a.status === 204).length).toBeGreaterThan(20);
    await expectViewMatches(ctx.api, event, early);
    await expectViewMatches(ctx.api, event, lateOne);
    await closeAll();
  });

  it('shows for-sale changes among the status changes, numbered with them, in snapshots and on resume, and keeps them out of the history', async () => {
    const forSale = async (name: 'edit-for-sale-config' | 'mark-as-not-for-sale', body: Record<string, unknown>) => {
      const response = await ctx.api.post(`/events/${event}/actions/${name}`, body);
      expect(response.status, response.text).toBe(200);
    };
    const s = await publicOne();
    await s.until((m) => m.type === 'snapshot');
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await forSale('mark-as-not-for-sale', { objects: ['A-3', 'A-2'], areaPlaces: { GA1: 4 } });
    await done(ctx.api, event, 'book', { objects: ['A-4'] });
    await forSale('edit-for-sale-config', { forSale: [{ object: 'A-2' }] });
    // Nothing changes for sale: no entry, so the next booking is number 5.
    await forSale('mark-as-not-for-sale', { objects: ['A-3'], areaPlaces: { GA1: 4 } });
    await done(ctx.api, event, 'book', { objects: ['A-5', { objectId: 'GA1', quantity: 2 }] });
    await s.until((m) => m.seq === 6);
    const all = s.messages.filter((m) => m.type === 'changes').flatMap((m) => m.changes);
    expect(all).toEqual([
      { objectLabel: 'A-1', status: 'booked', quantity: 1 },
      { objectLabel: 'A-2', notForSale: 1 },
      { objectLabel: 'A-3', notForSale: 1 },
      { objectLabel: 'GA1', notForSale: 4 },
      { objectLabel: 'A-4', status: 'booked', quantity: 1 },
      { objectLabel: 'A-2', notForSale: 0 },
      { objectLabel: 'A-5', status: 'booked', quantity: 1 },
      { objectLabel: 'GA1', status: 'free', quantity: 2, booked: 2, held: 0 },
    ]);
    const expected = {
      'A-1': { status: 'booked' },
      'A-3': { status: 'free', notForSale: 1 },
      'A-4': { status: 'booked' },
      'A-5': { status: 'booked' },
      GA1: { status: 'free', booked: 2, held: 0, notForSale: 4 },
    };
    expect(Object.fromEntries(s.view)).toEqual(expected);

    // A new subscriber's snapshot, and one resuming from before the first for-sale change, see the same.
    const fresh = await publicOne();
    const snapshot = await fresh.until((m) => m.type === 'snapshot');
    expect(snapshot).toEqual({ type: 'snapshot', seq: 6, objects: expected });
    const resumed = await publicOne({ since: 1 });
    const caughtUp = await resumed.until((m) => m.seq === 6);
    expect(caughtUp.changes).toEqual(all.slice(1));

    // The history lists the status changes alone, with their stream numbers.
    await eventually(async () => {
      const history = await ctx.api.get(`/events/${event}/status-changes?sort=date:asc`);
      return history.body.items?.length === 4;
    }, 10_000);
    const history = await ctx.api.get(`/events/${event}/status-changes?sort=date:asc`);
    expect(history.body.items.map((i: { id: number; objectLabel: string }) => [i.id, i.objectLabel])).toEqual([[1, 'A-1'], [3, 'A-4'], [5, 'A-5'], [6, 'GA1']]);
    await closeAll();

    // Once drained, a resume reads the for-sale entries back from the stored history (after
    // the process's follower, which keeps recent changes, stopped for want of subscribers).
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const later = await publicOne({ since: 1 });
    expect((await later.until((m) => m.seq === 6)).changes).toEqual(all.slice(1));
    await closeAll();
  });
});

describe('status stream: events of a season', () => {
  // An event of a season follows its season's feed: its own changes, and what its season and
  // partial seasons take of the seats it neither took itself nor overrides (docs/status-stream.md, "Seasons").
  const ctx = useServerWithCompany();
  let chartKey = '';
  const open: Subscription[] = [];
  beforeAll(async () => {
    chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
  });
  afterAll(() => open.forEach((s) => s.close()));
  const watch = async (event: string, options: { since?: number } = {}) => {
    const subscription = await subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey, ...options });
    open.push(subscription);
    return subscription;
  };
  const post = async (path: string, body: unknown, status = 204) => {
    const response = await ctx.api.post(path, body);
    expect(response.status, response.text).toBe(status);
  };
  /** The [label, status] of every change a subscriber was sent, in order. */
  const changes = (s: Subscription) => s.messages.filter((m) => m.type === 'changes').flatMap((m) => m.changes!.map((c) => [c.objectLabel, c.status]));

  it("shows the season's and its partial season's bookings, holds, releases and expiries, not the other events', in one strictly increasing seq", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 3 });
    const [e1, e2, e3] = eventKeysOf(season) as [string, string, string];
    const partial = `${season.key}-p`;
    await post(`/seasons/${season.key}/partial-seasons`, { key: partial, eventKeys: [e1, e2] }, 200);
    await done(ctx.api, season.key, 'book', { objects: ['A-1'], orderId: 'season-1' });
    await done(ctx.api, e1, 'book', { objects: ['A-2'] });

    const s1 = await watch(e1);
    const snapshot = await s1.until((m) => m.type === 'snapshot');
    expect(snapshot.objects).toEqual({ 'A-1': { status: 'booked', orderId: 'season-1' }, 'A-2': { status: 'booked' } });
    const s3 = await watch(e3);
    expect((await s3.until((m) => m.type === 'snapshot')).objects).toEqual({ 'A-1': { status: 'booked', orderId: 'season-1' } });

    const token = await holdToken(ctx.api);
    await done(ctx.api, partial, 'hold', { objects: ['A-3'], holdToken: token });
    await done(ctx.api, e2, 'book', { objects: ['A-4'] });
    await done(ctx.api, season.key, 'release', { objects: ['A-1'] });
    await done(ctx.api, e1, 'book', { objects: ['A-1'] });
    await expireIn(ctx.api, token, 0);
    await s1.until((m) => m.changes?.some((c) => c.objectLabel === 'A-3' && c.status === 'free') ?? false, 15_000);
    expect(changes(s1)).toEqual([
      ['A-3', 'reservedByToken'],
      ['A-1', 'free'],
      ['A-1', 'booked'],
      ['A-3', 'free'],
    ]);
    // Event 3 is not in the partial season: it sees only the season's release.
    await s3.until((m) => m.changes?.some((c) => c.objectLabel === 'A-1') ?? false);
    expect(changes(s3)).toEqual([['A-1', 'free']]);
    for (const s of [s1, s3]) {
      const seqs = s.messages.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
    }
    expect(Object.fromEntries(s1.view)).toEqual({ 'A-1': { status: 'booked' }, 'A-2': { status: 'booked' } });
    // A new subscriber, and one resuming from the first snapshot, end with the same view.
    const fresh = await watch(e1);
    await fresh.until((m) => m.type === 'snapshot');
    expect(Object.fromEntries(fresh.view)).toEqual(Object.fromEntries(s1.view));
    const resumed = await watch(e1, { since: snapshot.seq });
    await resumed.until((m) => m.seq >= s1.seq());
    expect(resumed.messages[0]!.type).toBe('changes');
    expect(changes(resumed)).toEqual(changes(s1));
  });

  it("numbers every object of a call on a unit of a season, though the call's objects share one feed entry", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [e1, e2] = eventKeysOf(season) as [string, string];
    const s = await watch(e1);
    const start = (await s.until((m) => m.type === 'snapshot')).seq;
    await done(ctx.api, e1, 'book', { objects: ['D-1', 'D-2', 'D-3'] });
    const first = await s.until((m) => m.changes?.some((c) => c.objectLabel === 'D-3') ?? false);
    expect(first.seq).toBe(start + 3);
    // Another event's two changes take two numbers of the feed, which this event does not see.
    await done(ctx.api, e2, 'book', { objects: ['D-4', 'D-5'] });
    await done(ctx.api, e1, 'release', { objects: ['D-2'] });
    const last = await s.until((m) => m.changes?.some((c) => c.objectLabel === 'D-2' && c.status === 'free') ?? false);
    expect(last.seq).toBe(start + 6);
    expect(changes(s)).toEqual([
      ['D-1', 'booked'],
      ['D-2', 'booked'],
      ['D-3', 'booked'],
      ['D-2', 'free'],
    ]);
    // A snapshot taken now is numbered past every change, and a subscriber resuming from the
    // first call's last number gets the release alone.
    const fresh = await watch(e1);
    expect((await fresh.until((m) => m.type === 'snapshot')).seq).toBe(start + 6);
    const resumed = await watch(e1, { since: start + 3 });
    await resumed.until((m) => m.seq >= start + 6);
    expect(changes(resumed)).toEqual([['D-2', 'free']]);
  });

  it("an event that overrides a seat shows its own status, not the season's, until it uses the season's again", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [e1] = eventKeysOf(season) as [string];
    await done(ctx.api, season.key, 'book', { objects: ['B-1', 'B-2'] });
    const s = await watch(e1);
    expect((await s.until((m) => m.type === 'snapshot')).objects).toEqual({ 'B-1': { status: 'booked' }, 'B-2': { status: 'booked' } });
    // A hold on the season itself, given back when its token expires.
    const token = await holdToken(ctx.api);
    await done(ctx.api, season.key, 'hold', { objects: ['B-3'], holdToken: token });
    await expireIn(ctx.api, token, 0);
    await s.until((m) => m.changes?.some((c) => c.objectLabel === 'B-3' && c.status === 'free') ?? false, 15_000);
    await post(`/events/${e1}/actions/override-season-status`, { objects: ['B-1'] });
    await done(ctx.api, season.key, 'release', { objects: ['B-1', 'B-2'] });
    await done(ctx.api, season.key, 'book', { objects: ['B-1'] });
    await post(`/events/${e1}/actions/use-season-status`, { objects: ['B-1'] });
    // The last change this event shows, in whichever message it comes (the override's and this may come together or apart).
    await s.until((m) => m.changes?.some((c) => c.objectLabel === 'B-1' && c.status === 'booked') ?? false);
    // The override frees B-1 here; the season's release and booking of it show nothing; using
    // the season's status again shows it booked.
    expect(changes(s)).toEqual([
      ['B-3', 'reservedByToken'],
      ['B-3', 'free'],
      ['B-1', 'free'],
      ['B-2', 'free'],
      ['B-1', 'booked'],
    ]);
    expect(Object.fromEntries(s.view)).toEqual({ 'B-1': { status: 'booked' } });
    const fresh = await watch(e1);
    expect((await fresh.until((m) => m.type === 'snapshot')).objects).toEqual({ 'B-1': { status: 'booked' } });
  });

  it("shows the event's own places off sale and those its season propagates to it", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [e1] = eventKeysOf(season) as [string];
    await post(`/events/${season.key}/actions/mark-as-not-for-sale`, { objects: ['C-1'] }, 200);
    const s = await watch(e1);
    expect((await s.until((m) => m.type === 'snapshot')).objects).toEqual({ 'C-1': { status: 'free', notForSale: 1 } });
    await post(`/events/${e1}/actions/mark-as-not-for-sale`, { objects: ['C-2'] }, 200);
    await post(`/events/${season.key}/actions/mark-as-not-for-sale`, { objects: ['C-1', 'C-3'] }, 200);
    await s.until((m) => m.changes?.some((c) => c.objectLabel === 'C-3') ?? false);
    expect(Object.fromEntries(s.view)).toEqual({
      'C-1': { status: 'free', notForSale: 1 },
      'C-2': { status: 'free', notForSale: 1 },
      'C-3': { status: 'free', notForSale: 1 },
    });
    // What object info says of them.
    for (const label of ['C-1', 'C-2', 'C-3', 'C-4']) expect((await objectInfo(ctx.api, e1, label)).forSale, label).toBe(label === 'C-4');
    const fresh = await watch(e1);
    expect((await fresh.until((m) => m.type === 'snapshot')).objects).toEqual(Object.fromEntries(s.view));
  });

  it("follows a change of the season's make-up: a partial season created after the subscriber joined shows in its events", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [e1, e2] = eventKeysOf(season) as [string, string];
    const s = await watch(e2);
    await s.until((m) => m.type === 'snapshot');
    const partial = `${season.key}-later`;
    await post(`/seasons/${season.key}/partial-seasons`, { key: partial, eventKeys: [e2] }, 200);
    // The follower reads the event anew: its subscribers get the view again, marked reset.
    await s.until((m) => m.type === 'snapshot' && m.reset === true);
    await done(ctx.api, partial, 'book', { objects: ['D-1'] });
    await done(ctx.api, e1, 'book', { objects: ['D-2'] });
    await done(ctx.api, e2, 'book', { objects: ['D-3'] });
    await s.until((m) => m.changes?.some((c) => c.objectLabel === 'D-3') ?? false);
    expect(Object.fromEntries(s.view)).toEqual({ 'D-1': { status: 'booked' }, 'D-3': { status: 'booked' } });
  });

  it("keeps a season's view equal to object info while the season and its events book the same seats concurrently", async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [e1, e2] = eventKeysOf(season) as [string, string];
    const s = await watch(e1);
    await s.until((m) => m.type === 'snapshot');
    const labels = ['C', 'D'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`));
    const units = [season.key, e1, e2];
    await Promise.all(labels.flatMap((label) => units.map((unit) => action(ctx.api, unit, 'book', { objects: [label] }))));
    await Promise.all(labels.slice(0, 6).map((label) => action(ctx.api, season.key, 'release', { objects: [label] })));
    const expected = await statusesOf(ctx.api, e1);
    await eventually(async () => JSON.stringify([...viewStatuses(s.view)].sort()) === JSON.stringify([...expected].sort()), 5_000).catch(() => {
      throw new Error(`view ${JSON.stringify([...s.view])} differs from ${JSON.stringify([...expected])}`);
    });
  });
});

describe('status stream: a subscriber that stops reading', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), { STREAM_BLOCKED_CLOSE_MS: '60000' });

  it('is skipped while its socket has not drained, then gets one conflated frame and ends with the event\'s state, holding at most about one frame meanwhile', async () => {
    const { reader, slow, hub, state, round } = await skipped(ctx, event);
    // Rounds while it is skipped: each changes the same 32 seats twice.
    for (let i = 0; i < 5; i++) await round('z'.repeat(200));
    await eventually(async () => reader.seq() === state.rounds * 64, 10_000);
    expect(hub.skippedCount).toBe(1);
    expect(hub.subscriberCount).toBe(2);
    expect(await gaugesNamed(ctx.server.url, 'status_stream_')).toEqual({ status_stream_subscribers: 2, status_stream_skipped_subscribers: 1, status_stream_closed_blocked_total: 0 });
    socketOf(slow).resume();
    await slow.until((m) => m.seq === state.rounds * 64, 10_000);
    expect(hub.skippedCount).toBe(0);
    expect(hub.closedBlockedCount).toBe(0);
    // One conflated frame brings it from the last frame it was sent to the last change: each of
    // the 32 seats once, with its state now, where the reader got every change.
    const conflated = slow.messages.filter((m) => m.conflated);
    expect(conflated).toHaveLength(1);
    expect(conflated[0]!.changes!.map((c) => c.objectLabel).sort()).toEqual([...ROWS_OF_8].sort());
    const changeCount = (sub: Subscription) => sub.messages.reduce((n, m) => n + (m.changes?.length ?? 0), 0);
    expect(changeCount(slow)).toBeLessThan(changeCount(reader) - 5 * 64);
    expect(conflated[0]!.changes!.every((c) => c.status === 'free')).toBe(true);
    expectNoGap(slow);
    await expectViewMatches(ctx.api, event, slow);
    await expectViewMatches(ctx.api, event, reader);
    for (const s of [reader, slow]) s.close();
  });
});

describe('status stream: a subscriber blocked too long', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), { STREAM_BLOCKED_CLOSE_MS: '3000' });

  it('is closed with 4008 once blocked past STREAM_BLOCKED_CLOSE_MS, while bookings and the other subscribers go on, and resumes with since', async () => {
    const { reader, slow, hub, state, round } = await skipped(ctx, event);
    await eventually(async () => hub.subscriberCount === 1, 10_000);
    expect(hub.closedBlockedCount).toBe(1);
    expect(await gaugesNamed(ctx.server.url, 'status_stream_')).toEqual({ status_stream_subscribers: 1, status_stream_skipped_subscribers: 0, status_stream_closed_blocked_total: 1 });
    // Read at once: the close frame waits behind what the socket holds, and uWS cuts a socket
    // whose peer does not answer its close within a few seconds (its timers tick every 4 s), so
    // a client that reads through its backlog too slowly, as on a loaded machine, sees 1006.
    socketOf(slow).resume();
    expect([4008, 1006]).toContain((await slow.closed).code);
    await round();
    await reader.until((m) => m.seq === state.rounds * 64, 10_000);
    const resumed = await subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey, since: slow.seq(), view: slow.view });
    await resumed.until((m) => m.seq === state.rounds * 64, 10_000);
    await expectViewMatches(ctx.api, event, resumed);
    await expectViewMatches(ctx.api, event, reader);
    for (const s of [reader, resumed]) s.close();
  });
});

describe('status stream: compact frames', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));

  it('decode to the same changes as JSON for the same bookings, name objects by their place in the layout, and cost at most 4 bytes a seat', async () => {
    const layout = await layoutLabels(ctx.api, event);
    const version = (await ctx.api.get(`/events/${event}/layout`)).body.layoutVersion;
    const key = { secretKey: ctx.company.workspace.secretKey };
    const json = await subscribe(ctx.server.url, event, key);
    const compact = await subscribe(ctx.server.url, event, { ...key, format: 'compact', layout });
    const publicCompact = await subscribe(ctx.server.url, event, { publicKey: ctx.company.workspace.key, format: 'compact', layout });
    const snapshot = await compact.until((m) => m.type === 'snapshot');
    expect(snapshot.layoutVersion).toBe(version);
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2'], orderId: 'o-1' });
    await done(ctx.api, event, 'hold', { objects: ['A-3', { objectId: 'GA1', quantity: 2 }], holdToken: token });
    await done(ctx.api, event, 'change-object-status', { objects: ['A-4'], status: 'sold-at-door' });
    await ctx.api.post(`/events/${event}/actions/mark-as-not-for-sale`, { objects: ['A-5'] });
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    for (const s of [json, compact, publicCompact]) await s.until((m) => m.seq === 7, 10_000);
    const changesOf = (s: Subscription) => s.messages.filter((m) => m.type === 'changes').flatMap((m) => m.changes!);
    expect(changesOf(compact)).toEqual(changesOf(json));
    // Public-key subscribers see no hold tokens or order ids, in either format.
    const withoutSecrets = changesOf(json).map(({ holdToken: _token, orderId: _order, ...rest }) => rest);
    expect(changesOf(publicCompact)).toEqual(withoutSecrets);
    expect([...compact.view]).toEqual([...json.view]);
    await expectViewMatches(ctx.api, event, compact);
    // A seat booked without an order id costs a status byte and a position byte or two.
    const seats = ['B-1', 'B-2', 'B-3', 'B-4', 'B-5', 'B-6', 'B-7', 'B-8'];
    const seq = publicCompact.seq();
    await done(ctx.api, event, 'book', { objects: seats });
    const frame = await publicCompact.until((m) => m.seq === seq + seats.length);
    const header = 3 + 1;
    expect((frame.bytes!.length - header) / seats.length).toBeLessThanOrEqual(4);
    for (const s of [json, compact, publicCompact]) s.close();
  });

  it('reach two subscribers of a variant as the same bytes, frame by frame', async () => {
    const layout = await layoutLabels(ctx.api, event);
    const options = { publicKey: ctx.company.workspace.key, format: 'compact', layout };
    const [one, two] = [await subscribe(ctx.server.url, event, options), await subscribe(ctx.server.url, event, options)];
    await Promise.all([one.until((m) => m.type === 'snapshot'), two.until((m) => m.type === 'snapshot')]);
    for (const objects of [['A-1'], ['A-2', 'A-3'], ['B-1']]) await done(ctx.api, event, 'book', { objects });
    await Promise.all([one.until((m) => m.seq === 4), two.until((m) => m.seq === 4)]);
    const frames = (s: Subscription) => s.messages.map((m) => m.bytes!.toString('hex'));
    expect(frames(one)).toEqual(frames(two));
    for (const s of [one, two]) s.close();
  });

  it('refuses an unknown format before the upgrade', async () => {
    for (const format of ['xml', 'COMPACT', '']) {
      const refused = await subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey, format }).then(
        () => expect.fail('upgraded'),
        (error: { status: number; body: any }) => error,
      );
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0]).toEqual({ code: 'GENERAL_ERROR', message: '`format` must be json or compact' });
    }
  });
});

describe('status stream: its thread', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));

  it('is started again when it dies; its subscribers are closed with 1011 and resume with since without a gap', async () => {
    const key = { secretKey: ctx.company.workspace.secretKey };
    const s = await subscribe(ctx.server.url, event, key);
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    await s.until((m) => m.seq === 1);
    const thread = ctx.server.app.parts.statusStream.thread;
    const restarts = thread.restarts;
    await thread.kill();
    expect((await s.closed).code).toBe(1011);
    await done(ctx.api, event, 'book', { objects: ['A-2', 'A-3'] });
    const resumed = await subscribe(ctx.server.url, event, { ...key, since: s.seq(), view: s.view });
    const caughtUp = await resumed.until((m) => m.seq === 3, 15_000);
    expect(thread.restarts).toBe(restarts + 1);
    expect(caughtUp).toMatchObject({ type: 'changes', from: 1, seq: 3 });
    expect(caughtUp.changes!.map((c) => c.objectLabel)).toEqual(['A-2', 'A-3']);
    await done(ctx.api, event, 'book', { objects: ['A-4'] });
    await resumed.until((m) => m.seq === 4);
    expectNoGap(resumed);
    await expectViewMatches(ctx.api, event, resumed);
    resumed.close();
  });

  it("makes the next frame as soon as the server's thread says the last is written, not a second later", async () => {
    // A follower waits for that word (src/services/streamFollowers.ts, allWritten) at most a
    // second: without it, 30 bookings 50 ms apart would reach the subscriber in 2 or 3 frames.
    const s = await subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey });
    await s.until((m) => m.type === 'snapshot');
    const seats = Array.from({ length: 30 }, (_, i) => `${String.fromCharCode(65 + Math.floor(i / 8))}-${(i % 8) + 1}`);
    for (const seat of seats) {
      await done(ctx.api, event, 'book', { objects: [seat] });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await s.until((m) => m.seq === seats.length);
    expect(s.messages.filter((m) => m.type === 'changes').length).toBeGreaterThan(6);
    expectNoGap(s);
    s.close();
  });
});

describe('status stream: its thread at a lower priority', () => {
  let event = '';
  // 7: a nice value no other server of this test process runs a thread at (testEnv's is 0).
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), { READER_THREAD_NICE: '7' });

  it('runs at READER_THREAD_NICE while the thread serving requests keeps its own', async () => {
    const s = await subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey });
    await s.until((m) => m.type === 'snapshot');
    // Linux keeps a nice value per thread: field 19 of /proc/self/task/<tid>/stat.
    const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const nices = readdirSync('/proc/self/task').map(niceOf);
    expect(nices).toContain(7);
    expect(niceOf(String(process.pid))).toBe(0);
    s.close();
  });
});

describe('status stream: an event deleted while watched', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));

  it('closes its subscribers with 1001', async () => {
    const s = await subscribe(ctx.server.url, event, { secretKey: ctx.company.workspace.secretKey });
    await s.until((m) => m.type === 'snapshot');
    expect((await ctx.api.delete(`/events/${event}`)).status).toBe(204);
    expect((await s.closed).code).toBe(1001);
  });
});

describe('status stream across server processes', () => {
  let a: TestServer;
  let b: TestServer;
  let onA: Api;
  let onB: Api;
  let secretKey = '';
  let database = '';

  beforeAll(async () => {
    database = newDatabaseName();
    a = await startTestServer({ MONGODB_DB: database });
    b = await startTestServer({ MONGODB_DB: database });
    const company = await createTestCompany(a.url);
    secretKey = company.workspace.secretKey;
    onA = client(a.url, secretKey);
    onB = client(b.url, secretKey);
  });
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
  });

  it('delivers changes made through either process to subscribers of both, and resumes on a third from stored history', async () => {
    const chart = await uploadDrawing(onA, rowsWithoutSections);
    const event = await createEvent(onA, chart.key);
    const onProcessA = await subscribe(a.url, event, { secretKey });
    const onProcessB = await subscribe(b.url, event, { secretKey });
    await Promise.all([onProcessA.until((m) => m.type === 'snapshot'), onProcessB.until((m) => m.type === 'snapshot')]);
    await done(onA, event, 'book', { objects: ['A-1'] });
    await done(onB, event, 'book', { objects: ['A-2'] });
    for (const s of [onProcessA, onProcessB]) {
      await s.until((m) => m.seq === 2);
      expect(s.messages.flatMap((m) => m.changes ?? []).map((c) => c.objectLabel)).toEqual(['A-1', 'A-2']);
    }
    onProcessA.close();
    await onProcessA.closed;
    // While no one on A listens, changes are stored in MongoDB and trimmed from Redis.
    await done(onB, event, 'book', { objects: ['A-3', 'A-4'] });
    await eventually(async () => (await onB.get(`/events/${event}/status-changes`)).body.items?.length === 4, 10_000);
    // A process that follows nothing of the event yet reads what it missed from the stored history.
    const fresh = await startTestServer({ MONGODB_DB: database });
    const resumed = await subscribe(fresh.url, event, { secretKey, since: 2 });
    const caughtUp = await resumed.until((m) => m.seq === 4);
    expect(caughtUp.changes!.map((c) => c.objectLabel)).toEqual(['A-3', 'A-4']);
    expect(resumed.messages).toHaveLength(1);
    resumed.close();
    onProcessB.close();
    await Promise.all([resumed.closed, onProcessB.closed]);
    await fresh.stop();
  });

  it('closes subscribers with 1001 when their server shuts down', async () => {
    const chart = await uploadDrawing(onA, rowsWithoutSections);
    const event = await createEvent(onA, chart.key);
    const extra = await startTestServer({ MONGODB_DB: database });
    const s = await subscribe(extra.url, event, { secretKey });
    await s.until((m) => m.type === 'snapshot');
    await extra.stop();
    expect((await s.closed).code).toBe(1001);
  });
});
