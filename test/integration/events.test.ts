import { describe, expect, it } from 'vitest';
import { generatedDrawing, rowsWithoutSections, withErrors, withTables } from '../fixtures/drawings.js';
import { createChart, retrieveChart, setValidatorLevel, uploadDrawing } from '../support/charts.js';
import { redisKeysOf, retrieveEvent, saleConfigOf, storedEvent, type EventRecord } from '../support/eventAdmin.js';
import { createEventRecord, eventPath } from '../support/events.js';
import { expectError, useServerWithCompany, type Api } from '../support/harness.js';
import { expectCursorWalk, expectPageEndingBefore, type CursorPage } from '../support/pagination.js';

// Events (docs/seatsio-behaviour.md,
// "Events"): create one or several, retrieve, update, re-key, list, delete; every
// refused request changes nothing.

const CHART_CATEGORIES = [
  { key: 9, label: 'Cat1', color: '#87A9CD', accessible: false },
  { key: 10, label: 'Cat2', color: '#5E42ED', accessible: false },
  { key: 'string11', label: 'Cat3', color: '#5E42BB', accessible: false },
];

/** yyyy-MM-dd of today plus `years` and `days`, UTC. */
function dateFromToday(years: number, days = 0): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear() + years, now.getUTCMonth(), now.getUTCDate() + days)).toISOString().slice(0, 10);
}

describe('events', () => {
  const ctx = useServerWithCompany();
  let chartKey: string;

  const chart = async () => (chartKey ??= (await uploadDrawing(ctx.api, rowsWithoutSections)).key);
  const listAll = async (api: Api = ctx.api) => {
    const response = await api.get<CursorPage & { items: EventRecord[] }>('/events?limit=1000');
    expect(response.status, response.text).toBe(200);
    return response.body.items;
  };

  describe('create', () => {
    it('creates an event from only a chart key, with every field of the record', async () => {
      const before = new Date(Date.now() - 1000);
      const created = await createEventRecord(ctx.api, await chart());
      expect(created).toEqual({
        id: expect.any(Number),
        key: expect.any(String),
        eventKey: created.key,
        chartKey,
        name: null,
        date: null,
        tableBookingConfig: { mode: 'INHERIT' },
        supportsBestAvailable: true,
        forSaleConfig: null,
        channels: [],
        categories: CHART_CATEGORIES,
        createdOn: expect.any(String),
        updatedOn: null,
        isSeason: false,
        isTopLevelSeason: false,
        isPartialSeason: false,
        isEventInSeason: false,
        isInThePast: false,
        bookWholeTables: false,
      });
      expect(created.key).not.toBe('');
      expect(new Date(created.createdOn).getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(new Date(created.createdOn).toISOString()).toBe(created.createdOn);

      const { eventKey, ...asRetrieved } = created;
      expect(eventKey).toBe(created.key);
      expect(await retrieveEvent(ctx.api, created.key)).toEqual(asRetrieved);
    });

    it('generates a different key for every event without one', async () => {
      const keys = new Set<string>();
      for (let i = 0; i < 5; i++) keys.add((await createEventRecord(ctx.api, await chart())).key);
      expect(keys.size).toBe(5);
    });

    it('turns the chart from NOT_USED to PUBLISHED with its first event', async () => {
      const fresh = await uploadDrawing(ctx.api, rowsWithoutSections);
      expect(fresh.status).toBe('NOT_USED');
      await createEventRecord(ctx.api, fresh.key);
      expect((await retrieveChart(ctx.api, fresh.key)).status).toBe('PUBLISHED');
      await createEventRecord(ctx.api, fresh.key);
      expect((await retrieveChart(ctx.api, fresh.key)).status).toBe('PUBLISHED');
    });

    it('keeps key, name, date, object categories and event-level categories', async () => {
      const created = await createEventRecord(ctx.api, await chart(), {
        eventKey: 'concert-2030/ä ü',
        name: 'Concert',
        date: '2024-02-29',
        objectCategories: { 'A-1': 10, 'A-2': 'eventCat', GA1: 'string11' },
        categories: [
          { key: 'eventCat', label: 'Event category', color: '#AAABBB', accessible: true },
          { key: 77, label: 'Numbered', color: 'red' },
        ],
      });
      expect(created).toMatchObject({ key: 'concert-2030/ä ü', eventKey: 'concert-2030/ä ü', name: 'Concert', date: '2024-02-29' });
      const retrieved = await retrieveEvent(ctx.api, 'concert-2030/ä ü');
      expect(retrieved.objectCategories).toEqual({ 'A-1': 10, 'A-2': 'eventCat', GA1: 'string11' });
      expect(retrieved.categories).toEqual([
        ...CHART_CATEGORIES,
        { key: 'eventCat', label: 'Event category', color: '#AAABBB', accessible: true },
        { key: 77, label: 'Numbered', color: 'red', accessible: false },
      ]);
      expect(created.categories).toEqual(retrieved.categories);
    });

    it('accepts the first allowed date and the last (10 years from today)', async () => {
      for (const date of ['2014-01-01', dateFromToday(10)]) {
        expect((await createEventRecord(ctx.api, await chart(), { date })).date).toBe(date);
      }
    });

    it('takes every table booking mode, CUSTOM with tables, and the deprecated fields', async () => {
      const tables = (await uploadDrawing(ctx.api, withTables)).key;
      for (const mode of ['INHERIT', 'ALL_BY_SEAT', 'ALL_BY_TABLE']) {
        const created = await createEventRecord(ctx.api, tables, { tableBookingConfig: { mode } });
        expect(created.tableBookingConfig).toEqual({ mode });
        expect(created.bookWholeTables).toBe(mode === 'ALL_BY_TABLE');
      }
      const custom = { mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } };
      const created = await createEventRecord(ctx.api, tables, { tableBookingConfig: custom });
      expect((await retrieveEvent(ctx.api, created.key)).tableBookingConfig).toEqual(custom);

      const modes = await createEventRecord(ctx.api, tables, { tableBookingModes: { T1: 'BY_TABLE' } });
      // Tables tableBookingModes does not name are booked by seat: T2, whole in the chart, too.
      expect(modes.tableBookingConfig).toEqual({ mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } });
      expect((await ctx.api.post(eventPath(modes.key, '/actions/book'), { objects: ['T2-1'] })).status).toBe(204);
      expectError(await ctx.api.post(eventPath(modes.key, '/actions/book'), { objects: ['T2'] }), 400, 'OBJECT_NOT_BOOKABLE');
      const whole = await createEventRecord(ctx.api, tables, { bookWholeTables: true });
      expect(whole.tableBookingConfig).toEqual({ mode: 'ALL_BY_TABLE' });
      expect(whole.bookWholeTables).toBe(true);
    });

    it('says supportsBestAvailable false for a chart without focal point', async () => {
      const empty = await createChart(ctx.api);
      const created = await createEventRecord(ctx.api, empty.key);
      expect(created.supportsBestAvailable).toBe(false);
      expect(created.categories).toEqual([]);
    });

    it('answers 404 CHART_NOT_FOUND for an unknown chart and creates nothing', async () => {
      const before = await listAll();
      expectError(await ctx.api.post('/events', { chartKey: 'no-such-chart' }), 404, 'CHART_NOT_FOUND');
      expect(await listAll()).toEqual(before);
    });

    it('refuses bad input with 400, creating nothing', async () => {
      const chartKey = await chart();
      const tables = (await uploadDrawing(ctx.api, withTables)).key;
      const before = await listAll();
      const cases: [Record<string, unknown>, string][] = [
        [{}, 'GENERAL_ERROR'],
        [{ chartKey: 5 }, 'GENERAL_ERROR'],
        [{ chartKey, eventKey: '' }, 'GENERAL_ERROR'],
        [{ chartKey, eventKey: 'k'.repeat(201) }, 'GENERAL_ERROR'],
        [{ chartKey, name: 'n'.repeat(201) }, 'GENERAL_ERROR'],
        [{ chartKey, date: '2020-1-5' }, 'GENERAL_ERROR'],
        [{ chartKey, date: '05-01-2020' }, 'GENERAL_ERROR'],
        [{ chartKey, date: '2021-02-29' }, 'GENERAL_ERROR'],
        [{ chartKey, date: '2013-12-31' }, 'GENERAL_ERROR'],
        [{ chartKey, date: dateFromToday(10, 1) }, 'GENERAL_ERROR'],
        [{ chartKey, tableBookingConfig: { mode: 'SOMETIMES' } }, 'GENERAL_ERROR'],
        [{ chartKey: tables, tableBookingConfig: { mode: 'INHERIT', tables: { T1: 'BY_TABLE' } } }, 'GENERAL_ERROR'],
        [{ chartKey: tables, tableBookingConfig: { mode: 'CUSTOM', tables: { T9: 'BY_TABLE' } } }, 'OBJECT_NOT_FOUND'],
        [{ chartKey: tables, tableBookingConfig: { mode: 'CUSTOM', tables: { 'T1-1': 'BY_TABLE' } } }, 'GENERAL_ERROR'],
        [{ chartKey: tables, tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'WHOLE' } } }, 'GENERAL_ERROR'],
        [{ chartKey: tables, tableBookingModes: { T1: 'BY_TABLE' }, tableBookingConfig: { mode: 'INHERIT' } }, 'GENERAL_ERROR'],
        [{ chartKey: tables, tableBookingModes: { T1: 'BY_TABLE' }, bookWholeTables: false }, 'GENERAL_ERROR'],
        [{ chartKey, objectCategories: { 'A-1': 999 } }, 'CATEGORY_NOT_FOUND'],
        [{ chartKey, objectCategories: { 'Z-1': 9 } }, 'OBJECT_NOT_FOUND'],
        [{ chartKey, objectCategories: { 'A-1': 'evt' }, categories: [{ key: 'other', label: 'Other' }] }, 'CATEGORY_NOT_FOUND'],
        [{ chartKey, categories: [{ key: 1, label: 'One' }, { key: '1', label: 'Also one' }] }, 'DUPLICATE_CATEGORY_KEY'],
        [{ chartKey, categories: [{ key: 1, label: 'One', color: 'not-a-colour' }] }, 'GENERAL_ERROR'],
        [{ chartKey, categories: [{ key: 1 }] }, 'GENERAL_ERROR'],
        [{ chartKey, categories: [{ key: 9007199254740992, label: 'Too big' }] }, 'GENERAL_ERROR'],
      ];
      for (const [body, code] of cases) {
        const response = await ctx.api.post('/events', body);
        expectError(response, 400, code);
      }
      expect(await listAll()).toEqual(before);
    });

    it('refuses a key that is taken with 400 EVENT_KEY_ALREADY_EXISTS', async () => {
      const first = await createEventRecord(ctx.api, await chart(), { eventKey: 'taken', name: 'First' });
      expectError(await ctx.api.post('/events', { chartKey: await chart(), eventKey: 'taken', name: 'Second' }), 400, 'EVENT_KEY_ALREADY_EXISTS');
      expect(await retrieveEvent(ctx.api, 'taken')).toMatchObject({ id: first.id, name: 'First' });
    });

    it('refuses events on a chart whose validation fails at level ERROR; WARNING does not stop them', async () => {
      const own = await ctx.freshCompany();
      const erroneous = await uploadDrawing(own.api, withErrors);
      await setValidatorLevel(own.admin, 'VALIDATE_FOCAL_POINT', 'ERROR');
      await setValidatorLevel(own.admin, 'VALIDATE_DUPLICATE_LABELS', 'ERROR');
      await setValidatorLevel(own.admin, 'VALIDATE_UNLABELED_OBJECTS', 'WARNING');

      const refused = await own.api.post('/events', { chartKey: erroneous.key });
      expectError(refused, 400, 'DRAWING_VALIDATION_FAILED');
      expect(refused.body.errors[0].data).toEqual({ failedValidations: ['VALIDATE_DUPLICATE_LABELS', 'VALIDATE_FOCAL_POINT'] });
      expectError(await own.api.post('/events/actions/create-multiple', { chartKey: erroneous.key, events: [{}] }), 400, 'DRAWING_VALIDATION_FAILED');
      expect(await listAll(own.api)).toEqual([]);
      expect((await retrieveChart(own.api, erroneous.key)).status).toBe('NOT_USED');

      await setValidatorLevel(own.admin, 'VALIDATE_FOCAL_POINT', 'WARNING');
      await setValidatorLevel(own.admin, 'VALIDATE_DUPLICATE_LABELS', 'OFF');
      const created = await createEventRecord(own.api, erroneous.key);
      expect(created.supportsBestAvailable).toBe(false);
    });

    it('writes no Redis key for an event on a 100,000-seat chart', async () => {
      const big = await uploadDrawing(ctx.api, generatedDrawing({ sections: 10, rowsPerSection: 100, seatsPerRow: 100 }));
      const created = await createEventRecord(ctx.api, big.key, { name: 'Stadium' });
      expect(created.categories.length).toBeGreaterThan(0);
      const event = await storedEvent(ctx.server, ctx.company.workspace.id, created.key);
      expect(await redisKeysOf(ctx.server, event)).toEqual([]);
      // Updating settings that the sales flow does not read from Redis writes nothing either.
      expect((await ctx.api.post(eventPath(created.key), { name: 'Stadium II', objectCategories: { 'S1-A-1': 2 } })).status).toBe(200);
      expect(await redisKeysOf(ctx.server, event)).toEqual([]);
    }, 60_000);
  });

  describe('create-multiple', () => {
    it('creates the events in request order and answers them in that order', async () => {
      const response = await ctx.api.post('/events/actions/create-multiple', {
        chartKey: await chart(),
        events: [{ eventKey: 'multi-b', name: 'B' }, {}, { eventKey: 'multi-a', date: '2025-05-05', objectCategories: { 'A-1': 10 } }],
      });
      expect(response.status, response.text).toBe(200);
      const events: EventRecord[] = response.body.events;
      expect(Object.keys(response.body)).toEqual(['events']);
      expect(events.map((e) => e.name)).toEqual(['B', null, null]);
      expect(events[0]!.key).toBe('multi-b');
      expect(events[2]).toMatchObject({ key: 'multi-a', eventKey: 'multi-a', date: '2025-05-05', objectCategories: { 'A-1': 10 } });
      expect(events[0]!.id).toBeLessThan(events[1]!.id);
      expect(events[1]!.id).toBeLessThan(events[2]!.id);
      for (const event of events) {
        const { eventKey, ...retrieved } = event;
        expect(eventKey).toBe(event.key);
        expect(await retrieveEvent(ctx.api, event.key)).toEqual(retrieved);
      }
    });

    it('refuses an empty list, too many events, and any bad event, creating none of them', async () => {
      const chartKey = await chart();
      await createEventRecord(ctx.api, chartKey, { eventKey: 'multi-existing' });
      const before = await listAll();
      const empty = await ctx.api.post('/events/actions/create-multiple', { chartKey, events: [] });
      expectError(empty, 400, 'GENERAL_ERROR');
      expect(empty.body.errors[0].message).toMatch(/^#\/events: /);
      const cases: [unknown, number, string][] = [
        [{ chartKey }, 400, 'GENERAL_ERROR'],
        [{ chartKey, events: Array.from({ length: 101 }, () => ({})) }, 400, 'GENERAL_ERROR'],
        [{ chartKey, events: [{ eventKey: 'multi-ok' }, { date: '1999-01-01' }] }, 400, 'GENERAL_ERROR'],
        [{ chartKey, events: [{ eventKey: 'multi-ok' }, { objectCategories: { 'A-1': 12345 } }] }, 400, 'CATEGORY_NOT_FOUND'],
        [{ chartKey, events: [{ eventKey: 'multi-ok' }, { eventKey: 'multi-existing' }] }, 400, 'EVENT_KEY_ALREADY_EXISTS'],
        [{ chartKey, events: [{ eventKey: 'multi-twice' }, { eventKey: 'multi-twice' }] }, 400, 'EVENT_KEY_ALREADY_EXISTS'],
        [{ chartKey: 'no-such-chart', events: [{}] }, 404, 'CHART_NOT_FOUND'],
      ];
      for (const [body, status, code] of cases) expectError(await ctx.api.post('/events/actions/create-multiple', body), status, code);
      expect(await listAll()).toEqual(before);
      expectError(await ctx.api.get('/events/multi-ok'), 404, 'EVENT_NOT_FOUND');
    });
  });

  describe('retrieve', () => {
    it('answers 404 EVENT_NOT_FOUND naming the key for an unknown event', async () => {
      const response = await ctx.api.get('/events/no-such-event');
      expectError(response, 404, 'EVENT_NOT_FOUND');
      expect(response.body.errors[0].message).toMatch(/^Event not found: no-such-event was not found in workspace /);
    });

    it('does not show events of another workspace', async () => {
      const created = await createEventRecord(ctx.api, await chart());
      const other = await ctx.freshCompany();
      expectError(await other.api.get(eventPath(created.key)), 404, 'EVENT_NOT_FOUND');
      expectError(await other.api.post(eventPath(created.key), { name: 'Mine now' }), 404, 'EVENT_NOT_FOUND');
      expectError(await other.api.delete(eventPath(created.key)), 404, 'EVENT_NOT_FOUND');
      expect((await retrieveEvent(ctx.api, created.key)).name).toBeNull();
    });
  });

  describe('update', () => {
    it('changes each field given and leaves the others, answering 200 with the changed record and updatedOn set', async () => {
      const created = await createEventRecord(ctx.api, await chart(), {
        name: 'Before',
        date: '2020-01-05',
        objectCategories: { 'A-1': 9 },
        categories: [{ key: 'e1', label: 'Event one', color: 'blue' }],
      });
      const key = created.key;
      const update = async (body: Record<string, unknown>) => {
        const response = await ctx.api.post(eventPath(key), body);
        expect(response.status, response.text).toBe(200);
        // The answer is the record as a retrieve shows it right after.
        const record = await retrieveEvent(ctx.api, key);
        expect(response.body).toEqual(record);
        return record;
      };

      const named = await update({ name: 'After' });
      expect(named).toMatchObject({ name: 'After', date: '2020-01-05', objectCategories: { 'A-1': 9 } });
      expect(named.updatedOn).not.toBeNull();
      expect(Math.abs(new Date(named.updatedOn!).getTime() - Date.now())).toBeLessThan(60_000);
      expect(named.createdOn).toBe(created.createdOn);

      expect((await update({ date: '2020-10-02' })).date).toBe('2020-10-02');
      expect((await update({ date: null })).date).toBeNull();
      expect((await update({ name: null })).name).toBeNull();
      expect((await update({ objectCategories: { 'A-1': 10, 'A-2': 'e1' } })).objectCategories).toEqual({ 'A-1': 10, 'A-2': 'e1' });
      expect((await update({ tableBookingConfig: { mode: 'ALL_BY_TABLE' } })).tableBookingConfig).toEqual({ mode: 'ALL_BY_TABLE' });
      expect((await update({ tableBookingConfig: null })).tableBookingConfig).toEqual({ mode: 'INHERIT' });

      const recategorised = await update({ categories: [{ key: 'e1', label: 'Renamed', color: 'green' }, { key: 'e2', label: 'Event two' }] });
      expect(recategorised.categories.slice(3)).toEqual([
        { key: 'e1', label: 'Renamed', color: 'green', accessible: false },
        { key: 'e2', label: 'Event two', color: expect.any(String), accessible: false },
      ]);

      const noOverrides = await update({ objectCategories: {} });
      expect(noOverrides).not.toHaveProperty('objectCategories');
      expect((await update({ categories: [] })).categories).toEqual(CHART_CATEGORIES);
      await update({ objectCategories: { 'A-3': 9 }, categories: [{ key: 'e3', label: 'Three' }] });
      const cleared = await update({ objectCategories: null, categories: null });
      expect(cleared).not.toHaveProperty('objectCategories');
      expect(cleared.categories).toEqual(CHART_CATEGORIES);

      const unchanged = await retrieveEvent(ctx.api, key);
      expect(await update({})).toEqual(unchanged);
      expect(await update({ chartKey: unchanged.chartKey })).toEqual(unchanged);
    });

    it('refuses bad updates with 400 and changes nothing', async () => {
      const created = await createEventRecord(ctx.api, await chart(), {
        name: 'Kept',
        objectCategories: { 'A-1': 'e1' },
        categories: [{ key: 'e1', label: 'Event one' }],
      });
      const before = await retrieveEvent(ctx.api, created.key);
      const cases: [unknown, string][] = [
        [{ name: 5 }, 'GENERAL_ERROR'],
        [{ eventKey: '' }, 'GENERAL_ERROR'],
        [{ date: '2010-01-01' }, 'GENERAL_ERROR'],
        [{ date: 'tomorrow' }, 'GENERAL_ERROR'],
        [{ objectCategories: { 'A-1': 'nope' } }, 'CATEGORY_NOT_FOUND'],
        [{ objectCategories: { nowhere: 9 } }, 'OBJECT_NOT_FOUND'],
        // e1 is still named by A-1: removing it alone would leave a dangling override.
        [{ categories: [] }, 'CATEGORY_NOT_FOUND'],
        [{ categories: [{ key: 'x', label: 'X' }, { key: 'x', label: 'Y' }] }, 'DUPLICATE_CATEGORY_KEY'],
        [{ tableBookingConfig: { mode: 'CUSTOM', tables: { 'A-1': 'BY_SEAT' } } }, 'GENERAL_ERROR'],
        [{ isInThePast: 'yes' }, 'GENERAL_ERROR'],
        [{ name: 'Changed', date: '1990-01-01' }, 'GENERAL_ERROR'],
        // Moving an event to another chart is not supported: refused, not ignored.
        [{ chartKey: 'some-other-chart', name: 'Changed' }, 'GENERAL_ERROR'],
      ];
      for (const [body, code] of cases) expectError(await ctx.api.post(eventPath(created.key), body), 400, code);
      expect(await retrieveEvent(ctx.api, created.key)).toEqual(before);
      expectError(await ctx.api.post('/events/no-such-event', { name: 'x' }), 404, 'EVENT_NOT_FOUND');
    });

    it('re-keys an event: the old key is gone, the new one works, a taken key is refused', async () => {
      const created = await createEventRecord(ctx.api, await chart(), { eventKey: 'old-key', name: 'Moving' });
      await createEventRecord(ctx.api, await chart(), { eventKey: 'occupied' });
      expectError(await ctx.api.post(eventPath('old-key'), { eventKey: 'occupied' }), 400, 'EVENT_KEY_ALREADY_EXISTS');
      expect((await retrieveEvent(ctx.api, 'old-key')).id).toBe(created.id);

      expect((await ctx.api.post(eventPath('old-key'), { eventKey: 'new-key', name: 'Moved' })).status).toBe(200);
      expectError(await ctx.api.get(eventPath('old-key')), 404, 'EVENT_NOT_FOUND');
      expect(await retrieveEvent(ctx.api, 'new-key')).toMatchObject({ id: created.id, key: 'new-key', name: 'Moved' });
      expect((await ctx.api.post(eventPath('new-key'), { eventKey: 'new-key' })).status).toBe(200);
      // The old key is free again.
      expect((await createEventRecord(ctx.api, await chart(), { eventKey: 'old-key' })).id).not.toBe(created.id);
    });

    it('moves an event into the past one way; a past event refuses every change but can be deleted', async () => {
      const created = await createEventRecord(ctx.api, await chart(), { name: 'Yesterday' });
      expect((await ctx.api.post(eventPath(created.key), { isInThePast: false })).status).toBe(200);
      expect((await retrieveEvent(ctx.api, created.key)).isInThePast).toBe(false);
      expect((await ctx.api.post(eventPath(created.key), { isInThePast: true })).status).toBe(200);
      const past = await retrieveEvent(ctx.api, created.key);
      expect(past.isInThePast).toBe(true);

      const refusals: [string, unknown][] = [
        ['', { isInThePast: false }],
        ['', { name: 'Again' }],
        ['', { isInThePast: true }],
        ['', { eventKey: 'elsewhere' }],
        ['/channels', { key: 'c1', name: 'Channel' }],
        ['/channels/replace', { channels: [] }],
        ['/actions/mark-as-not-for-sale', { objects: ['A-1'] }],
        ['/actions/mark-everything-as-for-sale', undefined],
        ['/actions/edit-for-sale-config', { notForSale: [{ object: 'A-1' }] }],
      ];
      for (const [path, body] of refusals) expectError(await ctx.api.post(eventPath(created.key, path), body), 400, 'EVENT_IN_THE_PAST');
      expect(await retrieveEvent(ctx.api, created.key)).toEqual(past);

      expect((await ctx.api.delete(eventPath(created.key))).status).toBe(204);
      expectError(await ctx.api.get(eventPath(created.key)), 404, 'EVENT_NOT_FOUND');
    });
  });

  describe('list', () => {
    it('lists event records newest first, page by page in both directions', async () => {
      const own = await ctx.freshCompany();
      const ownChart = (await uploadDrawing(own.api, rowsWithoutSections)).key;
      const ids: number[] = [];
      for (let i = 0; i < 7; i++) ids.unshift((await createEventRecord(own.api, ownChart, { name: `E${i}` })).id);
      const list = async (path: string) => {
        const response = await own.api.get<CursorPage & { items: EventRecord[] }>(path);
        expect(response.status, response.text).toBe(200);
        return response.body;
      };
      await expectCursorWalk(list, '/events', ids, 3);
      await expectPageEndingBefore(list, '/events', ids, 4, 2);

      const all = await list('/events');
      expect(all).toEqual({ items: expect.any(Array) });
      expect(all.items.map((e) => e.id)).toEqual(ids);
      expect(all.items[0]).toEqual(await retrieveEvent(own.api, all.items[0]!.key));
      for (const query of ['limit=0', 'limit=1001', 'limit=x', 'start_after_id=1&end_before_id=2', 'start_after_id=-1']) {
        expectError(await own.api.get(`/events?${query}`), 400, 'GENERAL_ERROR');
      }
    });
  });

  describe('move-to-new-chart-copy', () => {
    it("moves the event to a new copy of its chart's published version, keeping its bookings and settings", async () => {
      const original = await uploadDrawing(ctx.api, rowsWithoutSections);
      const created = await createEventRecord(ctx.api, original.key, {
        name: 'Moving night',
        channels: [{ key: 'c1', name: 'Channel 1', objects: ['A-3'] }],
        forSaleConfig: { forSale: false, objects: ['A-4'] },
      });
      expect((await ctx.api.post(eventPath(created.key, '/actions/book'), { objects: ['A-1'], orderId: 'kept' })).status).toBe(204);

      const response = await ctx.api.post(eventPath(created.key, '/actions/move-to-new-chart-copy'));
      expect(response.status, response.text).toBe(200);
      const moved = response.body as EventRecord;
      expect(moved.chartKey).not.toBe(original.key);
      expect(moved).toMatchObject({ id: created.id, key: created.key, name: 'Moving night', channels: created.channels, forSaleConfig: created.forSaleConfig });
      expect(await retrieveEvent(ctx.api, created.key)).toEqual(moved);

      // The copy has the same drawing and is in use; the old chart lost its only event.
      const copy = (await ctx.api.get(`/charts/${moved.chartKey}`)).body;
      expect(copy).toMatchObject({ status: 'PUBLISHED', name: `${rowsWithoutSections.name} (copy)` });
      expect((await ctx.api.get(`/charts/${moved.chartKey}/version/published`)).body.subChart).toEqual(
        (await ctx.api.get(`/charts/${original.key}/version/published`)).body.subChart,
      );
      expect((await ctx.api.get(`/charts/${original.key}`)).body.status).toBe('NOT_USED');

      // Bookings, channels and for-sale config still hold in the sales flow.
      const info = (await ctx.api.get(eventPath(created.key, '/objects?label=A-1&label=A-3&label=A-4'))).body;
      expect(info['A-1']).toMatchObject({ status: 'booked', orderId: 'kept' });
      expect(info['A-3']).toMatchObject({ channel: 'c1' });
      expect(info['A-4']).toMatchObject({ forSale: false });
      expectError(await ctx.api.post(eventPath(created.key, '/actions/book'), { objects: ['A-1'] }), 400, 'OBJECT_NOT_FREE');
      expect((await ctx.api.post(eventPath(created.key, '/actions/book'), { objects: ['A-2'] })).status).toBe(204);
    });

    it('unknown event → 404 EVENT_NOT_FOUND', async () => {
      expectError(await ctx.api.post(eventPath('nope', '/actions/move-to-new-chart-copy')), 404, 'EVENT_NOT_FOUND');
    });
  });

  describe('delete', () => {
    it('deletes with 204: the event is gone with its Redis keys, the key can be used again', async () => {
      const created = await createEventRecord(ctx.api, await chart(), {
        eventKey: 'to-delete',
        channels: [{ key: 'c1', name: 'Channel 1', objects: ['A-1'] }],
      });
      const stored = await storedEvent(ctx.server, ctx.company.workspace.id, 'to-delete');
      expect(await saleConfigOf(ctx.server, ctx.company.workspace.id, 'to-delete')).toEqual({ 'c:A-1': 'c1' });

      const response = await ctx.api.delete(eventPath('to-delete'));
      expect(response.status, response.text).toBe(204);
      expectError(await ctx.api.get(eventPath('to-delete')), 404, 'EVENT_NOT_FOUND');
      expect((await listAll()).map((e) => e.id)).not.toContain(created.id);
      expect(await redisKeysOf(ctx.server, stored)).toEqual([]);
      expectError(await ctx.api.delete(eventPath('to-delete')), 404, 'EVENT_NOT_FOUND');
      expect((await createEventRecord(ctx.api, await chart(), { eventKey: 'to-delete' })).id).not.toBe(created.id);
    });
  });
});
