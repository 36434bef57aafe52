import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { rowsWithoutSections, withSections, withTables } from '../fixtures/drawings.js';
import { createChart } from '../support/charts.js';
import { done, holdToken, newEvent, objectInfos } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';

// The by-status event report (docs/seatsio-behaviour.md, "Reports"): every bookable object of the event grouped
// by status, only statuses present, one entry per object (a GA area is one entry), each an
// EventObjectInfo. The filtered variant returns only the group asked for.

const ctx = useServerWithCompany();
let event: string;

beforeEach(async () => {
  event = (await newEvent(ctx.api, rowsWithoutSections)).key;
});

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
    expect(report.free!.find((item) => item.label === 'GA2')).toEqual(infos['GA2']);
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
