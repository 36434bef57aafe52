import { beforeAll, describe, expect, it } from 'vitest';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { retrieveEvent } from '../support/eventAdmin.js';
import { action, createEvent, done, eventPath, holdToken } from '../support/events.js';
import { eventually, expectError, useServerWithCompany, type Api } from '../support/harness.js';
import { expectCursorWalk } from '../support/pagination.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// The status-change history routes (docs/history.md): every change a status call made,
// stored by the drain running inside the test server, listed per event and per object,
// sorted, filtered and paged like every list.

const ctx = useServerWithCompany('shared');
let chartKey: string;
let tablesChartKey: string;

beforeAll(async () => {
  chartKey = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
  tablesChartKey = (await uploadDrawing(ctx.api, withTables)).key;
});

type Item = Record<string, any>;

async function history(api: Api, eventKey: string, query = '', label?: string): Promise<{ items: Item[]; next_page_starts_after?: string; previous_page_ends_before?: string }> {
  const path = eventPath(eventKey, label === undefined ? '/status-changes' : `/objects/${encodeURIComponent(label)}/status-changes`);
  const response = await api.get(path + (query ? `?${query}` : ''));
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The event's history once it has `count` changes (newest first). */
async function storedHistory(eventKey: string, count: number, timeoutMs = 5_000): Promise<Item[]> {
  let items: Item[] = [];
  await eventually(async () => (items = (await history(ctx.api, eventKey, 'limit=1000')).items).length >= count, timeoutMs, 50);
  return items;
}

describe('status change history', () => {
  it('records book, hold, release and custom statuses with what each change carried, newest first', async () => {
    const event = await createEvent(ctx.api, chartKey);
    const token = await holdToken(ctx.api);
    const started = Date.now();
    await done(ctx.api, event, 'hold', { objects: ['A-1'], holdToken: token });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', extraData: { name: 'Ann' } }], holdToken: token, orderId: 'order-1' });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 3 }], orderId: 'order-2' });
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    await done(ctx.api, event, 'change-object-status', { objects: ['A-2'], status: 'lost' });

    const items = await storedHistory(event, 5);
    const { id: eventId } = await retrieveEvent(ctx.api, event);
    expect(items.map((i) => [i.id, i.objectLabel, i.status, i.quantity])).toEqual([
      [5, 'A-2', 'lost', 1],
      [4, 'A-1', 'free', 1],
      [3, 'GA1', 'booked', 3],
      [2, 'A-1', 'booked', 1],
      [1, 'A-1', 'reservedByToken', 1],
    ]);
    expect(items[3]).toEqual({
      id: 2,
      eventId,
      status: 'booked',
      quantity: 1,
      objectLabel: 'A-1',
      date: expect.any(String),
      orderId: 'order-1',
      extraData: { name: 'Ann' },
      holdToken: token,
      origin: { type: 'API_CALL', ip: '127.0.0.1' },
      isPresentOnChart: true,
      displayedLabel: 'A-1',
    });
    expect(items[4]!.holdToken).toBe(token);
    // The hold and the release took the plain way (src/inventory/plainRequest.ts): the caller's address is recorded there too.
    expect(items[4]!.origin).toEqual({ type: 'API_CALL', ip: '127.0.0.1' });
    expect(items[1]!.origin).toEqual({ type: 'API_CALL', ip: '127.0.0.1' });
    expect(items[1]).toMatchObject({ holdToken: null, orderId: null, extraData: null });
    for (const item of items) {
      expect(Date.parse(item.date)).toBeGreaterThanOrEqual(started - 1000);
      expect(Date.parse(item.date)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('shows a change within a second of its answer', async () => {
    const event = await createEvent(ctx.api, chartKey);
    await done(ctx.api, event, 'book', { objects: ['B-1'] });
    const took = await eventually(async () => (await history(ctx.api, event)).items.length === 1, 1_000, 20);
    expect(took).toBeLessThanOrEqual(1_000);
  });

  it('records a release back to resale, and the extra data an object kept', async () => {
    const event = await createEvent(ctx.api, chartKey);
    await done(ctx.api, event, 'put-up-for-resale', { objects: ['A-1'] });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', extraData: { seat: 'kept' } }] });
    await done(ctx.api, event, 'release', { objects: ['A-1'], keepExtraData: true });
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const items = await storedHistory(event, 4);
    expect(items.map((i) => [i.status, i.extraData])).toEqual([
      ['booked', null],
      ['resale', { seat: 'kept' }],
      ['booked', { seat: 'kept' }],
      ['resale', null],
    ]);
  });

  it('records nothing for a refused change, and one entry per object of a call', async () => {
    const event = await createEvent(ctx.api, chartKey);
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2', 'A-3'] });
    expect((await action(ctx.api, event, 'book', { objects: ['A-3', 'A-4'] })).status).toBe(400);
    await done(ctx.api, event, 'book', { objects: ['A-5'] });
    const items = await storedHistory(event, 4);
    expect(items.map((i) => i.objectLabel)).toEqual(['A-5', 'A-3', 'A-2', 'A-1']);
    expect(items.map((i) => i.id)).toEqual([4, 3, 2, 1]);
  });

  it('by date, lists the changes of one call in the order it applied them, or its reverse', async () => {
    const event = await createEvent(ctx.api, chartKey);
    await done(ctx.api, event, 'book', { objects: ['A-3', 'A-1', 'B-2', 'A-2'] });
    await done(ctx.api, event, 'release', { objects: ['B-2', 'A-3'] });
    const items = await storedHistory(event, 6);
    // One timestamp per call: only the ids can keep the order within it.
    expect(new Set(items.filter((i) => i.status === 'booked').map((i) => i.date)).size).toBe(1);
    const list = async (query: string) => (await history(ctx.api, event, query)).items.map((i) => `${i.objectLabel}:${i.status}`);
    expect(await list('sort=date:asc')).toEqual(['A-3:booked', 'A-1:booked', 'B-2:booked', 'A-2:booked', 'B-2:free', 'A-3:free']);
    expect(await list('sort=date:desc')).toEqual(['A-3:free', 'B-2:free', 'A-2:booked', 'B-2:booked', 'A-1:booked', 'A-3:booked']);
    expect(await list('')).toEqual(await list('sort=date:desc'));
  });

  it('lists the changes of one object', async () => {
    const event = await createEvent(ctx.api, chartKey);
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2'] });
    await done(ctx.api, event, 'release', { objects: ['A-1'] });
    await storedHistory(event, 3);
    expect((await history(ctx.api, event, '', 'A-1')).items.map((i) => i.status)).toEqual(['free', 'booked']);
    expect((await history(ctx.api, event, '', 'A-2')).items.map((i) => i.status)).toEqual(['booked']);
    expect((await history(ctx.api, event, '', 'A-9')).items).toEqual([]);
  });

  it('sorts by label, status or date, filters on the label, and pages in that order', async () => {
    const event = await createEvent(ctx.api, chartKey);
    for (const [label, status] of [['A-3', 's1'], ['A-1', 's2'], ['A-2', 's1'], ['B-1', 's3'], ['A-1', 's1'], ['GA1', 's2']]) {
      await done(ctx.api, event, 'change-object-status', { objects: [label === 'GA1' ? { objectId: label, quantity: 1 } : label], status });
      // Distinct times, so the date order is the order of the calls (ties would go newest first).
      await new Promise((r) => setTimeout(r, 3));
    }
    await storedHistory(event, 6);
    const list = async (query: string) => (await history(ctx.api, event, query)).items.map((i) => `${i.id}:${i.objectLabel}:${i.status}`);
    expect(await list('sort=objectLabel')).toEqual(['5:A-1:s1', '2:A-1:s2', '3:A-2:s1', '1:A-3:s1', '4:B-1:s3', '6:GA1:s2']);
    expect(await list('sort=objectLabel:desc')).toEqual(['6:GA1:s2', '4:B-1:s3', '1:A-3:s1', '3:A-2:s1', '5:A-1:s1', '2:A-1:s2']);
    expect(await list('sort=status:desc')).toEqual(['4:B-1:s3', '6:GA1:s2', '2:A-1:s2', '5:A-1:s1', '3:A-2:s1', '1:A-3:s1']);
    expect(await list('sort=date:asc')).toEqual(['1:A-3:s1', '2:A-1:s2', '3:A-2:s1', '4:B-1:s3', '5:A-1:s1', '6:GA1:s2']);
    expect(await list('')).toEqual(['6:GA1:s2', '5:A-1:s1', '4:B-1:s3', '3:A-2:s1', '2:A-1:s2', '1:A-3:s1']);
    expect(await list('filter=a-1&filterType=CONTAINS')).toEqual(['5:A-1:s1', '2:A-1:s2']);

    const page = async (path: string) => {
      const response = await ctx.api.get(path);
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    await expectCursorWalk(page, eventPath(event, '/status-changes'), [6, 5, 4, 3, 2, 1], 4);
    await expectCursorWalk(page, eventPath(event, '/status-changes?sort=objectLabel'), [5, 2, 3, 1, 4, 6], 2);
    await expectCursorWalk(page, eventPath(event, '/status-changes?sort=status:desc&filter=A'), [6, 2, 5, 3, 1], 2);
  });

  it('pages a history stored in many batches in every order, as one list', async () => {
    // Seven calls on 16 seats, each stored before the next is made: seven batches, more than a
    // page reads from MongoDB at a time, so pages are picked from batches read one after another.
    const event = await createEvent(ctx.api, chartKey);
    const seats = [...['A', 'B'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`))];
    for (let call = 0; call < 7; call++) {
      await done(ctx.api, event, call % 2 === 0 ? 'book' : 'release', { objects: call % 3 === 2 ? [...seats].reverse() : seats });
      await storedHistory(event, 16 * (call + 1));
    }
    const all = await storedHistory(event, 112);
    const ids = all.map((item) => item.id as number);
    expect(ids).toEqual(Array.from({ length: 112 }, (_, i) => 112 - i));
    const page = async (path: string) => {
      const response = await ctx.api.get(path);
      expect(response.status, response.text).toBe(200);
      return response.body;
    };
    await expectCursorWalk(page, eventPath(event, '/status-changes'), ids, 15);
    await expectCursorWalk(page, eventPath(event, '/status-changes?sort=date:asc'), [...ids].reverse(), 15);
    // By label, ties newest first.
    const byLabel = [...all].sort((a, b) => (a.objectLabel < b.objectLabel ? -1 : a.objectLabel > b.objectLabel ? 1 : b.id - a.id)).map((item) => item.id as number);
    await expectCursorWalk(page, eventPath(event, '/status-changes?sort=objectLabel'), byLabel, 10);
    const ofB2 = all.filter((item) => item.objectLabel === 'B-2').map((item) => item.id as number);
    expect(ofB2).toHaveLength(7);
    await expectCursorWalk(page, eventPath(event, '/status-changes?filter=b-2&filterType=CONTAINS'), ofB2, 3);
    await expectCursorWalk(page, eventPath(event, '/objects/B-2/status-changes'), ofB2, 3);
    // A cursor that names no change of the list: an empty page.
    expect((await history(ctx.api, event, 'filter=b-2&filterType=CONTAINS&start_after_id=1')).items).toEqual([]);
  });

  it('records season bookings on the season and overrides on the event', async () => {
    const season = await createSeason(ctx.api, chartKey, { numberOfEvents: 2 });
    const [first] = eventKeysOf(season);
    await done(ctx.api, season.key, 'book', { objects: ['C-1'], orderId: 'season-ticket' });
    await ctx.api.post(eventPath(first!, '/actions/override-season-status'), { objects: ['C-1'] }).then((r) => expect(r.status, r.text).toBe(204));
    await done(ctx.api, first!, 'book', { objects: ['C-1'] });
    await ctx.api.post(eventPath(first!, '/actions/release'), { objects: ['C-1'] }).then((r) => expect(r.status, r.text).toBe(204));
    await ctx.api.post(eventPath(first!, '/actions/use-season-status'), { objects: ['C-1'] }).then((r) => expect(r.status, r.text).toBe(204));
    expect((await storedHistory(season.key, 1)).map((i) => [i.objectLabel, i.status, i.orderId])).toEqual([['C-1', 'booked', 'season-ticket']]);
    // Overridden, the event shows its own status (free); back on the season's, the season's.
    expect((await storedHistory(first!, 4)).map((i) => i.status)).toEqual(['booked', 'free', 'booked', 'free']);
  });

  it('says when an object is no longer bookable as it was: table booking switched', async () => {
    const event = await createEvent(ctx.api, tablesChartKey, { tableBookingConfig: { mode: 'ALL_BY_SEAT' } });
    await done(ctx.api, event, 'book', { objects: ['T1-1'] });
    await storedHistory(event, 1);
    expect((await ctx.api.post(eventPath(event), { tableBookingConfig: { mode: 'ALL_BY_TABLE' } })).status).toBe(200);
    await eventually(async () => (await history(ctx.api, event)).items[0]?.isPresentOnChart === false, 5_000);
    expect((await history(ctx.api, event)).items[0]).toMatchObject({ objectLabel: 'T1-1', isPresentOnChart: false, notPresentOnChartReason: 'SWITCHED_TO_BOOK_WHOLE_TABLE' });
  });

  it('refuses bad list requests with 400 and unknown events with 404', async () => {
    const event = await createEvent(ctx.api, chartKey);
    for (const query of ['sort=label', 'sort=date:up', 'filterType=EXACT', 'limit=0', 'limit=1001', 'start_after_id=x', 'start_after_id=1&end_before_id=2']) {
      expectError(await ctx.api.get(eventPath(event, `/status-changes?${query}`)), 400, 'GENERAL_ERROR');
    }
    expectError(await ctx.api.get(eventPath('no-such-event', '/status-changes')), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.get(eventPath('no-such-event', '/objects/A-1/status-changes')), 404, 'EVENT_NOT_FOUND');
    const other = await ctx.freshCompany();
    expectError(await other.api.get(eventPath(event, '/status-changes')), 404, 'EVENT_NOT_FOUND');
  });
});
