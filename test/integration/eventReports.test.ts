import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rowsWithoutSections, withSections, withTables, withZones } from '../fixtures/drawings.js';
import { createChart, uploadDrawing } from '../support/charts.js';
import { done, holdToken, newEvent, objectInfos } from '../support/events.js';
import { basic, expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// Detailed event reports (docs/reports.md): every bookable object of the event grouped by
// status, object type, category, label, order, section, zone, channel, availability; one
// entry per object (a GA area is one entry), each an EventObjectInfo; the groups every
// report shows even when empty; the filtered variant; the flat list and its CSV; gzip
// always; bad report types and events. Summaries: eventReportSummaries.test.ts.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

type Report = Record<string, { label: string; status: string; [field: string]: unknown }[]>;

async function byStatus(key: string, status?: string): Promise<Report> {
  const path = `/reports/events/${encodeURIComponent(key)}/byStatus${status === undefined ? '' : `/${encodeURIComponent(status)}`}`;
  const response = await ctx.api.get<Report>(path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const labelsOf = (items: { label: string }[] | undefined) => (items ?? []).map((item) => item.label).sort();

const SAMPLE_SEATS = ['A', 'B', 'C', 'D'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`));

describe('byStatus', () => {
  it('an untouched event: every object under "free", a GA area once', async () => {
    const report = await byStatus(event);
    expect(Object.keys(report)).toEqual(['free']);
    expect(labelsOf(report.free)).toEqual([...SAMPLE_SEATS, 'GA1', 'GA2'].sort());
  });

  it('only the statuses present, each object in exactly one group', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2', { objectId: 'GA1', quantity: 5 }] });
    await done(ctx.api, event, 'hold', { objects: ['A-3'], holdToken: token });
    await done(ctx.api, event, 'change-object-status', { objects: ['B-1', 'B-2'], status: 'sold-at-door' });
    const report = await byStatus(event);
    expect(Object.keys(report).sort()).toEqual(['booked', 'free', 'reservedByToken', 'sold-at-door']);
    expect(labelsOf(report.booked)).toEqual(['A-1', 'A-2']);
    expect(labelsOf(report.reservedByToken)).toEqual(['A-3']);
    expect(labelsOf(report['sold-at-door'])).toEqual(['B-1', 'B-2']);
    // A GA area with some places booked is still free, and counts as one entry.
    expect(labelsOf(report.free)).toContain('GA1');
    expect(report.free!.filter((item) => item.label === 'GA1')).toHaveLength(1);
    const all = Object.values(report).flatMap(labelsOf);
    expect(all).toHaveLength(SAMPLE_SEATS.length + 2);
    expect(new Set(all).size).toBe(all.length);
  });

  it('items are full EventObjectInfo, the same as object info', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'C-1', ticketType: 'adult', extraData: { n: 1 } }], orderId: 'o-9' });
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 4 }], holdToken: token });
    const report = await byStatus(event);
    const infos = await objectInfos(ctx.api, event, ['C-1', 'GA2']);
    expect(report.booked).toEqual([infos['C-1']]);
    expect(report.booked![0]).toMatchObject({ status: 'booked', orderId: 'o-9', ticketType: 'adult', extraData: { n: 1 }, categoryKey: '10' });
    expect(report.reservedByToken).toEqual([infos['GA2']]);
    expect(infos['GA2']).toMatchObject({ numHeld: 4, holds: { [token]: { NO_TICKET_TYPE: 4 } } });
  });

  it('a full GA area is listed under its status', async () => {
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 100 }] });
    const report = await byStatus(event);
    expect(labelsOf(report.booked)).toEqual(['GA1']);
    expect(report.booked![0]).toMatchObject({ numBooked: 100, numFree: 0 });
    expect(labelsOf(report.free)).not.toContain('GA1');
  });

  it('a hold whose token expired is free again', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['D-4'], holdToken: token });
    expect(labelsOf((await byStatus(event)).reservedByToken)).toEqual(['D-4']);
    const expired = await ctx.api.post(`/hold-tokens/${token}`, { expiresInMinutes: 0 });
    expect(expired.status, expired.text).toBe(200);
    const report = await byStatus(event);
    expect(report).not.toHaveProperty('reservedByToken');
    expect(labelsOf(report.free)).toContain('D-4');
  });

  it('a GA area full of held places is reservedByToken; free again once the token expired', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 100 }], holdToken: token });
    expect(labelsOf((await byStatus(event)).reservedByToken)).toEqual(['GA2']);
    expect((await ctx.api.post(`/hold-tokens/${token}`, { expiresInMinutes: 0 })).status).toBe(200);
    const report = await byStatus(event);
    expect(report).not.toHaveProperty('reservedByToken');
    expect(report.free!.find((item) => item.label === 'GA2')).toMatchObject({ numHeld: 0, numFree: 100 });
  });

  // seats.io's reports show a GA area with any place held as reservedByToken, however many
  // of its places are booked or free (docs/seatsio-behaviour.md, "Object statuses").
  it('a GA area with places booked and some held by a token is reservedByToken, its places split as before', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 5 }] });
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token });
    const key = encodeURIComponent(event);
    for (const type of ['byLabel', 'byObjectType', 'byCategoryLabel', 'bySection', 'byAvailability', 'byChannel']) {
      const response = await ctx.api.get<Report>(`/reports/events/${key}/${type}`);
      expect(response.status, response.text).toBe(200);
      const ga1 = Object.values(response.body).flat().find((item) => item.label === 'GA1');
      expect(ga1, type).toMatchObject({ status: 'reservedByToken', numBooked: 5, numHeld: 3, numFree: 92, numNotForSale: 0, capacity: 100, isAvailable: true });
    }
    const report = await byStatus(event);
    expect(labelsOf(report.reservedByToken)).toEqual(['GA1']);
    const flat = await ctx.api.get<Report[string]>(`/reports/events/${key}`);
    expect(flat.body.find((item) => item.label === 'GA1')!.status).toBe('reservedByToken');
    // The summaries still count the places by what they are.
    const summary = await ctx.api.get(`/reports/events/${key}/byStatus/summary`);
    expect(summary.body.booked.byObjectType.generalAdmission).toBe(5);
    expect(summary.body.reservedByToken.byObjectType.generalAdmission).toBe(3);

    // Once the hold is gone, the area is free again (5 of 100 booked is not full).
    expect((await ctx.api.post(`/hold-tokens/${token}`, { expiresInMinutes: 0 })).status).toBe(200);
    const after = await byStatus(event);
    expect(after).not.toHaveProperty('reservedByToken');
    expect(after.free!.find((item) => item.label === 'GA1')).toMatchObject({ status: 'free', numBooked: 5, numHeld: 0, numFree: 95 });
  });

  it('a GA area with places booked only, or none taken, is free; full and held, reservedByToken', async () => {
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 40 }] });
    const report = await byStatus(event);
    expect(report.free!.find((item) => item.label === 'GA1')).toMatchObject({ status: 'free', numBooked: 40, numHeld: 0, numFree: 60 });
    expect(report.free!.find((item) => item.label === 'GA2')).toMatchObject({ status: 'free', numBooked: 0, numHeld: 0, numFree: 100 });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA2', quantity: 99 }] });
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA2', quantity: 1 }], holdToken: await holdToken(ctx.api) });
    expect((await byStatus(event)).reservedByToken).toEqual([expect.objectContaining({ label: 'GA2', numBooked: 99, numHeld: 1, numFree: 0, isAvailable: false })]);
  });

  it('released objects go back to free; an emptied group disappears', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['D-1'], status: 'broken' });
    expect(Object.keys(await byStatus(event)).sort()).toEqual(['broken', 'free']);
    await done(ctx.api, event, 'release', { objects: ['D-1'] });
    expect(Object.keys(await byStatus(event))).toEqual(['free']);
  });

  it('an event on an empty chart (POST /charts without a body) → {}', async () => {
    const chart = await createChart(ctx.api);
    const created = await ctx.api.post('/events', { chartKey: chart.key });
    expect(created.status, created.text).toBe(200);
    expect(await byStatus(created.body.key)).toEqual({});
    expect(await byStatus(created.body.key, 'free')).toEqual({ free: [] });
  });

  it('labels of sections', async () => {
    const key = (await newEvent(ctx.api, withSections)).key;
    await done(ctx.api, key, 'book', { objects: ['Section B-A-2', { objectId: 'Section B-Standing', quantity: 50 }] });
    const report = await byStatus(key);
    expect(labelsOf(report.booked)).toEqual(['Section B-A-2', 'Section B-Standing']);
    expect(report.booked!.find((item) => item.label === 'Section B-A-2')).toMatchObject({
      labels: { section: 'Section B' },
      ids: { section: 'Section B' },
    });
  });

  describe('tables, by the event’s booking mode', () => {
    const seatsOf = (table: string) => Array.from({ length: 6 }, (_, i) => `${table}-${i + 1}`);

    it('ALL_BY_TABLE: the tables appear, not their seats', async () => {
      const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } })).key;
      await done(ctx.api, key, 'book', { objects: ['T1'] });
      const report = await byStatus(key);
      expect(labelsOf(report.booked)).toEqual(['T1']);
      expect(labelsOf(report.free)).toEqual(['T2']);
      expect(report.booked![0]).toMatchObject({ objectType: 'table', numSeats: 6 });
    });

    it('ALL_BY_TABLE: a table still shows the chart’s bookAsAWhole (false for T1), as the seats.io Go SDK test expects', async () => {
      const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } })).key;
      const t1 = (await byStatus(key)).free!.find((item) => item.label === 'T1');
      expect(t1).toMatchObject({ objectType: 'table', bookAsAWhole: false, numSeats: 6 });
    });

    it('ALL_BY_SEAT: the seats appear, not the tables', async () => {
      const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'ALL_BY_SEAT' } })).key;
      await done(ctx.api, key, 'book', { objects: ['T2-1'] });
      const report = await byStatus(key);
      expect(labelsOf(report.booked)).toEqual(['T2-1']);
      expect(labelsOf(report.free)).toEqual([...seatsOf('T1'), ...seatsOf('T2').slice(1)].sort());
    });

    it('INHERIT: as the chart says (T1 by seat, T2 as a whole)', async () => {
      const key = (await newEvent(ctx.api, withTables)).key;
      const report = await byStatus(key);
      expect(labelsOf(report.free)).toEqual([...seatsOf('T1'), 'T2'].sort());
    });

    it('CUSTOM: per table', async () => {
      const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } } })).key;
      const report = await byStatus(key);
      expect(labelsOf(report.free)).toEqual(['T1', ...seatsOf('T2')].sort());
    });
  });

  describe('filtered: /byStatus/{status}', () => {
    it('returns only that group', async () => {
      await done(ctx.api, event, 'book', { objects: ['A-5', 'A-6'] });
      await done(ctx.api, event, 'change-object-status', { objects: ['A-7'], status: 'vip' });
      const booked = await byStatus(event, 'booked');
      expect(Object.keys(booked)).toEqual(['booked']);
      expect(labelsOf(booked.booked)).toEqual(['A-5', 'A-6']);
      const free = await byStatus(event, 'free');
      expect(Object.keys(free)).toEqual(['free']);
      expect(free.free).toHaveLength(SAMPLE_SEATS.length + 2 - 3);
      expect(labelsOf((await byStatus(event, 'vip')).vip)).toEqual(['A-7']);
    });

    it('a status no object has → {status: []}', async () => {
      expect(await byStatus(event, 'booked')).toEqual({ booked: [] });
      expect(await byStatus(event, 'nobody-has-this')).toEqual({ 'nobody-has-this': [] });
    });

    it('a URI-encoded custom status', async () => {
      await done(ctx.api, event, 'change-object-status', { objects: ['B-5'], status: 'on hold/phone' });
      const report = await byStatus(event, 'on hold/phone');
      expect(Object.keys(report)).toEqual(['on hold/phone']);
      expect(labelsOf(report['on hold/phone'])).toEqual(['B-5']);
    });
  });

  it('unknown event → 404 EVENT_NOT_FOUND (both variants)', async () => {
    expectError(await ctx.api.get(`/reports/events/${randomUUID()}/byStatus`), 404, 'EVENT_NOT_FOUND');
    expectError(await ctx.api.get(`/reports/events/${randomUUID()}/byStatus/booked`), 404, 'EVENT_NOT_FOUND');
  });

  it('an event of another company is not found', async () => {
    const other = await ctx.freshCompany();
    expectError(await other.api.get(`/reports/events/${encodeURIComponent(event)}/byStatus`), 404, 'EVENT_NOT_FOUND');
  });
});

async function report(key: string, type: string, filter?: string): Promise<Report> {
  const path = `/reports/events/${encodeURIComponent(key)}/${type}${filter === undefined ? '' : `/${encodeURIComponent(filter)}`}`;
  const response = await ctx.api.get<Report>(path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const groupSizes = (r: Report) => Object.fromEntries(Object.entries(r).map(([group, items]) => [group, items.length]));

describe('the other detailed reports', () => {
  it('byObjectType lists all four types, empty ones as []', async () => {
    expect(groupSizes(await report(event, 'byObjectType'))).toEqual({ seat: 32, table: 0, booth: 0, generalAdmission: 2 });
    const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } } })).key;
    expect(groupSizes(await report(key, 'byObjectType'))).toEqual({ seat: 6, table: 1, booth: 0, generalAdmission: 0 });
  });

  it('byCategoryKey and byCategoryLabel list every category and NO_CATEGORY', async () => {
    expect(groupSizes(await report(event, 'byCategoryKey'))).toEqual({ '9': 17, '10': 17, string11: 0, NO_CATEGORY: 0 });
    expect(groupSizes(await report(event, 'byCategoryLabel'))).toEqual({ Cat1: 17, Cat2: 17, Cat3: 0, NO_CATEGORY: 0 });
    // T2's seats have no category of their own but their table's; T1's seats take key 1 from their table.
    const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'ALL_BY_SEAT' } })).key;
    const byKey = await report(key, 'byCategoryKey');
    expect(Object.keys(byKey).sort()).toEqual(['1', '2', 'NO_CATEGORY']);
    expect(byKey['1']!.length + byKey['2']!.length + byKey.NO_CATEGORY!.length).toBe(12);
  });

  it('byLabel: one group per object', async () => {
    const r = await report(event, 'byLabel');
    expect(Object.keys(r).sort()).toEqual([...SAMPLE_SEATS, 'GA1', 'GA2'].sort());
    expect(r['A-1']).toEqual([expect.objectContaining({ label: 'A-1', status: 'free' })]);
    expect(await report(event, 'byLabel', 'B-2')).toEqual({ 'B-2': [expect.objectContaining({ label: 'B-2' })] });
  });

  it('byOrderId: NO_ORDER_ID for objects without one (GA areas too)', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1', 'A-2'], orderId: 'order-1' });
    await done(ctx.api, event, 'book', { objects: ['B-1', { objectId: 'GA1', quantity: 2 }], orderId: 'order-2' });
    const r = await report(event, 'byOrderId');
    expect(Object.keys(r).sort()).toEqual(['NO_ORDER_ID', 'order-1', 'order-2']);
    expect(labelsOf(r['order-1'])).toEqual(['A-1', 'A-2']);
    expect(labelsOf(r['order-2'])).toEqual(['B-1']);
    expect(r.NO_ORDER_ID).toHaveLength(34 - 3);
    expect(labelsOf((await report(event, 'byOrderId', 'order-2'))['order-2'])).toEqual(['B-1']);
    // Released: out of its order.
    await done(ctx.api, event, 'release', { objects: ['A-2'] });
    expect(labelsOf((await report(event, 'byOrderId', 'order-1'))['order-1'])).toEqual(['A-1']);
  });

  it('bySection and byZone', async () => {
    const key = (await newEvent(ctx.api, withSections)).key;
    const sections = await report(key, 'bySection');
    expect(Object.keys(sections).sort()).toEqual(['Section A', 'Section B']);
    expect(sections['Section B']!.every((item) => item.section === 'Section B')).toBe(true);
    expect(groupSizes(await report(event, 'bySection'))).toEqual({ NO_SECTION: 34 });
    const zones = await report(key, 'byZone');
    expect(Object.keys(zones).sort()).toEqual(['NO_ZONE', 'upper']);
    expect(zones.upper).toHaveLength(sections['Section B']!.length);
    expect(zones.NO_ZONE).toHaveLength(sections['Section A']!.length);
    expect(zones.upper!.every((item) => item.zone === 'upper')).toBe(true);
  });

  it('byZone lists every zone of the chart and NO_ZONE', async () => {
    const key = (await newEvent(ctx.api, withZones)).key;
    const zones = await report(key, 'byZone');
    expect(Object.keys(zones).sort()).toEqual(['NO_ZONE', 'north', 'south']);
    expect(zones.north!.length).toBeGreaterThan(0);
    expect(zones.NO_ZONE).toEqual([]);
    expect(await report(key, 'byZone', 'south')).toEqual({ south: zones.south });
  });

  it('byChannel: the channel key, NO_CHANNEL for the rest; items carry channel', async () => {
    const key = (await newEvent(ctx.api, rowsWithoutSections, {
      channels: [
        { key: 'partners', name: 'Partners', objects: ['A-1', 'A-2', 'GA1'] },
        { key: 'vip', name: 'VIP', objects: ['D-8'] },
      ],
    })).key;
    const r = await report(key, 'byChannel');
    expect(groupSizes(r)).toEqual({ partners: 3, vip: 1, NO_CHANNEL: 30 });
    expect(r.vip![0]).toMatchObject({ label: 'D-8', channel: 'vip' });
    expect(r.NO_CHANNEL!.every((item) => !('channel' in item))).toBe(true);
    expect(groupSizes(await report(key, 'byChannel', 'partners'))).toEqual({ partners: 3 });
  });

  it('byAvailability and byAvailabilityReason: booked, held, custom, not for sale, resale, a full GA area', async () => {
    const key = (await newEvent(ctx.api, rowsWithoutSections, { forSaleConfig: { forSale: false, objects: ['D-1', 'D-2'] } })).key;
    const token = await holdToken(ctx.api);
    await done(ctx.api, key, 'book', { objects: ['A-1', { objectId: 'GA2', quantity: 100 }] });
    await done(ctx.api, key, 'hold', { objects: ['A-2'], holdToken: token });
    await done(ctx.api, key, 'change-object-status', { objects: ['A-3'], status: 'vip' });
    await done(ctx.api, key, 'book', { objects: ['A-4'] });
    await done(ctx.api, key, 'put-up-for-resale', { objects: ['A-4'] });
    const reasons = await report(key, 'byAvailabilityReason');
    expect(Object.keys(reasons).sort()).toEqual(['available', 'booked', 'disabled_by_social_distancing', 'not_for_sale', 'reservedByToken', 'vip']);
    expect(labelsOf(reasons.booked)).toEqual(['A-1', 'GA2']);
    expect(labelsOf(reasons.reservedByToken)).toEqual(['A-2']);
    expect(reasons.reservedByToken![0]).toMatchObject({ holdToken: token, status: 'reservedByToken' });
    expect(labelsOf(reasons.vip)).toEqual(['A-3']);
    expect(labelsOf(reasons.not_for_sale)).toEqual(['D-1', 'D-2']);
    expect(reasons.disabled_by_social_distancing).toEqual([]);
    // Resale objects are available.
    expect(reasons.available!.find((item) => item.label === 'A-4')).toMatchObject({ status: 'resale', isAvailable: true });
    expect(reasons.available).toHaveLength(34 - 6);
    const availability = await report(key, 'byAvailability');
    expect(groupSizes(availability)).toEqual({ available: 28, not_available: 6 });
    expect(groupSizes(await report(key, 'byAvailability', 'not_available'))).toEqual({ not_available: 6 });
    expect(await report(key, 'byAvailabilityReason', 'nothing-like-this')).toEqual({ 'nothing-like-this': [] });
  });

  it('items are the object info: hold tokens, GA holds, resale listing, extra data, order, ticket type', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'hold', { objects: ['B-3', { objectId: 'GA1', quantity: 2, ticketType: 'child' }], holdToken: token });
    await done(ctx.api, event, 'change-object-status', { objects: ['C-5'], status: 'resale', resaleListingId: 'listing-1' });
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'C-6', ticketType: 'adult', extraData: { name: 'Ann' } }], orderId: 'o-1' });
    const infos = await objectInfos(ctx.api, event, ['B-3', 'GA1', 'C-5', 'C-6']);
    const byLabel = await report(event, 'byLabel');
    for (const label of ['B-3', 'GA1', 'C-5', 'C-6']) expect(byLabel[label]).toEqual([infos[label]]);
    expect(infos['B-3']).toMatchObject({ holdToken: token });
    expect(infos['GA1']).toMatchObject({ numHeld: 2, holds: { [token]: { child: 2 } } });
    expect(infos['C-5']).toMatchObject({ status: 'resale', resaleListingId: 'listing-1' });
    expect(infos['C-6']).toMatchObject({ orderId: 'o-1', ticketType: 'adult', extraData: { name: 'Ann' }, seasonStatusOverriddenQuantity: 0 });
  });
});

describe('the flat list and its CSV', () => {
  it('every bookable object once, sorted by label, each the object info', async () => {
    await done(ctx.api, event, 'book', { objects: ['C-2'], orderId: 'x' });
    const response = await ctx.api.get(`/reports/events/${encodeURIComponent(event)}`);
    expect(response.status, response.text).toBe(200);
    const labels = response.body.map((item: { label: string }) => item.label);
    expect(labels).toEqual([...SAMPLE_SEATS, 'GA1', 'GA2'].sort());
    expect(response.body.find((item: { label: string }) => item.label === 'C-2')).toEqual((await objectInfos(ctx.api, event, ['C-2']))['C-2']);
  });

  it('an empty chart → []', async () => {
    const chart = await createChart(ctx.api);
    const created = await ctx.api.post('/events', { chartKey: chart.key });
    expect((await ctx.api.get(`/reports/events/${created.body.key}`)).body).toEqual([]);
    expect(parseCsv((await ctx.api.get(`/reports/events/${created.body.key}.csv`)).text)).toHaveLength(1);
  });

  it('.csv: a header row, one row per object in label order, RFC 4180 quoting', async () => {
    await done(ctx.api, event, 'book', {
      objects: [{ objectId: 'A-1', extraData: { note: 'says "hi", twice\nthen leaves' } }],
      orderId: 'order,1',
    });
    const response = await ctx.api.get(`/reports/events/${encodeURIComponent(event)}.csv`);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(response.text.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(response.text);
    const header = rows[0]!;
    expect(header.slice(0, 3)).toEqual(['label', 'objectType', 'status']);
    expect(rows.slice(1).map((row) => row[0])).toEqual([...SAMPLE_SEATS, 'GA1', 'GA2'].sort());
    const a1 = Object.fromEntries(header.map((column, i) => [column, rows[1]![i]]));
    expect(a1).toMatchObject({ label: 'A-1', status: 'booked', orderId: 'order,1', categoryKey: '9', categoryLabel: 'Cat1', isAvailable: 'false' });
    expect(JSON.parse(a1.extraData!)).toEqual({ note: 'says "hi", twice\nthen leaves' });
    const ga1 = Object.fromEntries(header.map((column, i) => [column, rows.find((row) => row[0] === 'GA1')![i]]));
    expect(ga1).toMatchObject({ objectType: 'generalAdmission', capacity: '100', numFree: '100', orderId: '' });
  });
});

/** A strict RFC 4180 parser: rows of fields, CRLF line ends, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
        else if (text[i] === '"') {
          i++;
          break;
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') field += text[i++];
    }
    row.push(field);
    if (text[i] === ',') i++;
    else if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      rows.push(row);
      row = [];
    } else throw new Error(`malformed CSV at ${i}: ${JSON.stringify(text.slice(i, i + 20))}`);
  }
  return rows;
}

describe('seasons', () => {
  it('a season key is accepted; an event shows the season’s bookings, and its overrides with seasonStatusOverriddenQuantity', async () => {
    const chart = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
    const season = await createSeason(ctx.api, chart, { numberOfEvents: 2 });
    const [e1, e2] = eventKeysOf(season) as [string, string];
    await done(ctx.api, season.key, 'book', { objects: ['A-1', 'A-2', { objectId: 'GA1', quantity: 10 }] });
    await done(ctx.api, e2, 'book', { objects: ['B-1'] });
    expect((await ctx.api.post(`/events/${encodeURIComponent(e1)}/actions/override-season-status`, { objects: ['A-2'] })).status).toBe(204);

    const onSeason = await report(season.key, 'byStatus');
    expect(labelsOf(onSeason.booked)).toEqual(['A-1', 'A-2']);
    // B-1 is free on the season but taken in one of its events.
    expect(onSeason.free!.find((item) => item.label === 'B-1')).toMatchObject({ isAvailable: false, availabilityReason: 'booked' });

    const inEvent = await report(e1, 'byLabel');
    expect(inEvent['A-1']![0]).toMatchObject({ status: 'booked', seasonStatusOverriddenQuantity: 0 });
    expect(inEvent['A-2']![0]).toMatchObject({ status: 'free', isAvailable: true, seasonStatusOverriddenQuantity: 1 });
    expect(inEvent['GA1']![0]).toMatchObject({ numFree: 90 });
    const infos = await objectInfos(ctx.api, e1, ['A-1', 'A-2', 'GA1', 'B-1']);
    for (const label of ['A-1', 'A-2', 'GA1', 'B-1']) expect(inEvent[label]).toEqual([infos[label]]);
    const flat = (await ctx.api.get(`/reports/events/${encodeURIComponent(e1)}`)).body as Report[string];
    expect(flat.find((item) => item.label === 'A-2')).toEqual(infos['A-2']);
  });
});

describe('gzip and bad input', () => {
  /** A request with node:http, which does not decompress: the Content-Encoding is seen as sent. */
  function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(ctx.server.url + path, { headers: { authorization: basic(ctx.company.workspace.secretKey), ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('every report answers gzip, without Accept-Encoding and however small', async () => {
    const key = encodeURIComponent(event);
    for (const path of [`/reports/events/${key}`, `/reports/events/${key}.csv`, `/reports/events/${key}/byStatus`, `/reports/events/${key}/byStatus/nobody`, `/reports/events/${key}/byStatus/summary`, `/reports/events/${key}/byStatus/summary/deep`]) {
      const response = await raw(path);
      expect(response.status, path).toBe(200);
      expect(response.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(response.body).length).toBeGreaterThan(0);
    }
    expect(JSON.parse(gunzipSync((await raw(`/reports/events/${key}/byStatus/nobody`)).body).toString())).toEqual({ nobody: [] });
    // Other routes still only when asked.
    expect((await raw(`/events/${key}`)).headers['content-encoding']).toBeUndefined();
  });

  it('unknown report types → 404 NOT_FOUND; no summary of byLabel or byOrderId', async () => {
    const key = encodeURIComponent(event);
    for (const path of [`/reports/events/${key}/byNothing`, `/reports/events/${key}/byNothing/x`, `/reports/events/${key}/byNothing/summary`, `/reports/events/${key}/byLabel/summary`, `/reports/events/${key}/byOrderId/summary/deep`, `/reports/events/${key}/bySelectability/summary`]) {
      expectError(await ctx.api.get(path), 404, 'NOT_FOUND');
    }
  });

  it('unknown event → 404 EVENT_NOT_FOUND on every report', async () => {
    const key = randomUUID();
    for (const path of [`/reports/events/${key}`, `/reports/events/${key}.csv`, `/reports/events/${key}/byChannel`, `/reports/events/${key}/byChannel/x`, `/reports/events/${key}/byZone/summary`, `/reports/events/${key}/byZone/summary/deep`]) {
      expectError(await ctx.api.get(path), 404, 'EVENT_NOT_FOUND');
    }
  });
});
