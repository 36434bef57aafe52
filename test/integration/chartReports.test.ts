import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mixedVenue, rowsWithoutSections, withSections, withTables, withZones } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';

// Chart reports (docs/reports.md, "Chart reports"): the objects of a chart version as chart
// object info, by label, object type, category, section and zone, and their summaries;
// bookWholeTables true/false/chart; the published or the draft version; bad input.

const ctx = useServerWithCompany('shared');

type Report = Record<string, Record<string, any>[]>;
type Node = { count: number; [dimension: string]: any };

async function report<T = Report>(chartKey: string, type: string, query = ''): Promise<T> {
  const response = await ctx.api.get<T>(`/reports/charts/${encodeURIComponent(chartKey)}/${type}${query}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const sizes = (r: Report) => Object.fromEntries(Object.entries(r).map(([group, items]) => [group, items.length]));
const counts = (r: Record<string, Node>) => Object.fromEntries(Object.entries(r).map(([group, node]) => [group, node.count]));
const SAMPLE_SEATS = ['A', 'B', 'C', 'D'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`));

describe('chart reports', () => {
  it('byLabel: chart object info, without status or booking fields', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    const r = await report(chart.key, 'byLabel');
    expect(Object.keys(r).sort()).toEqual([...SAMPLE_SEATS, 'GA1', 'GA2'].sort());
    expect(r['A-1']).toEqual([
      expect.objectContaining({
        label: 'A-1',
        labels: { own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' } },
        ids: { own: '1', parent: 'A' },
        categoryKey: '9',
        categoryLabel: 'Cat1',
        objectType: 'seat',
        rightNeighbour: 'A-2',
        distanceToFocalPoint: 98.67842540608864,
      }),
    ]);
    for (const field of ['status', 'forSale', 'isAvailable', 'availabilityReason', 'numBooked', 'seasonStatusOverriddenQuantity']) {
      expect(r['A-1']![0], field).not.toHaveProperty(field);
    }
    expect(r.GA1![0]).toMatchObject({ objectType: 'generalAdmission', capacity: 100 });
  });

  it('byObjectType, byCategoryKey, byCategoryLabel with the groups always shown', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    expect(sizes(await report(chart.key, 'byObjectType'))).toEqual({ seat: 32, table: 0, booth: 0, generalAdmission: 2 });
    expect(sizes(await report(chart.key, 'byCategoryKey'))).toEqual({ '9': 17, '10': 17, string11: 0, NO_CATEGORY: 0 });
    expect(sizes(await report(chart.key, 'byCategoryLabel'))).toEqual({ Cat1: 17, Cat2: 17, Cat3: 0, NO_CATEGORY: 0 });
  });

  it('bySection and byZone', async () => {
    const chart = await uploadDrawing(ctx.api, withSections);
    const sections = await report(chart.key, 'bySection');
    expect(Object.keys(sections).sort()).toEqual(['Section A', 'Section B']);
    const zones = await report(chart.key, 'byZone');
    expect(sizes(zones)).toEqual({ upper: sections['Section B']!.length, NO_ZONE: sections['Section A']!.length });
    const zoned = await uploadDrawing(ctx.api, withZones);
    expect(Object.keys(await report(zoned.key, 'byZone')).sort()).toEqual(['NO_ZONE', 'north', 'south']);
  });

  it('bookWholeTables: true the tables, false their seats, chart as the chart says, absent every table and table seat', async () => {
    const chart = await uploadDrawing(ctx.api, withTables);
    const types = async (query: string) => sizes(await report(chart.key, 'byObjectType', query));
    expect(await types('?bookWholeTables=true')).toEqual({ seat: 0, table: 2, booth: 0, generalAdmission: 0 });
    expect(await types('?bookWholeTables=false')).toEqual({ seat: 12, table: 0, booth: 0, generalAdmission: 0 });
    expect(await types('?bookWholeTables=chart')).toEqual({ seat: 6, table: 1, booth: 0, generalAdmission: 0 });
    expect(await types('')).toEqual({ seat: 12, table: 2, booth: 0, generalAdmission: 0 });
    const summary = await report<Record<string, Node>>(chart.key, 'byObjectType/summary', '?bookWholeTables=true');
    // A table is one object, not the places at it.
    expect(counts(summary)).toEqual({ seat: 0, table: 2, booth: 0, generalAdmission: 0 });
  });

  it('a chart with sections, tables by seat and whole, booths and GA areas: what each bookWholeTables lists and counts', async () => {
    const chart = await uploadDrawing(ctx.api, mixedVenue);
    const sectionSeats = ['Section A-A-1', 'Section A-A-2', 'Section A-A-3', 'Section A-B-1', 'Section A-B-2', 'Section A-B-3', 'Section B-A-1', 'Section B-A-2', 'Section B-A-3', 'Section B-A-4'];
    const tableSeats = (table: string) => Array.from({ length: 6 }, (_, i) => `${table}-${i + 1}`);
    const labels = async (query: string) => Object.keys(await report(chart.key, 'byLabel', query)).sort();
    const others = ['B1', 'B2', 'Floor', 'Section B-Standing'];
    expect(await labels('')).toEqual([...sectionSeats, ...tableSeats('T1'), ...tableSeats('T2'), 'T1', 'T2', ...others].sort());
    expect(await labels('?bookWholeTables=true')).toEqual([...sectionSeats, 'T1', 'T2', ...others].sort());
    expect(await labels('?bookWholeTables=false')).toEqual([...sectionSeats, ...tableSeats('T1'), ...tableSeats('T2'), ...others].sort());
    expect(await labels('?bookWholeTables=chart')).toEqual([...sectionSeats, ...tableSeats('T1'), 'T2', ...others].sort());

    // Summaries count objects (a table is one), GA areas by their capacity, in every grouping.
    const byType = async (query: string) => counts(await report<Record<string, Node>>(chart.key, 'byObjectType/summary', query));
    expect(await byType('')).toEqual({ seat: 22, table: 2, booth: 2, generalAdmission: 70 });
    expect(await byType('?bookWholeTables=true')).toEqual({ seat: 10, table: 2, booth: 2, generalAdmission: 70 });
    expect(await byType('?bookWholeTables=false')).toEqual({ seat: 22, table: 0, booth: 2, generalAdmission: 70 });
    expect(await byType('?bookWholeTables=chart')).toEqual({ seat: 16, table: 1, booth: 2, generalAdmission: 70 });
    const bySection = await report<Record<string, Node>>(chart.key, 'bySection/summary', '?bookWholeTables=true');
    expect(bySection.NO_SECTION).toEqual({
      count: 24,
      byObjectType: { table: 2, booth: 2, generalAdmission: 20 },
      byCategoryKey: { '1': 20, '3': 2, '4': 2 },
      byCategoryLabel: { Stalls: 20, Tables: 2, Booths: 2 },
      byZone: { NO_ZONE: 24 },
    });
    expect(counts(bySection)).toEqual({ NO_SECTION: 24, 'Section A': 6, 'Section B': 54 });

    // By category key, no by-category-label split, and the other way round; the rest stay.
    const byKey = await report<Record<string, Node>>(chart.key, 'byCategoryKey/summary', '?bookWholeTables=true');
    expect(byKey['3']).toEqual({ count: 2, bySection: { NO_SECTION: 2 }, byObjectType: { table: 2 }, byZone: { NO_ZONE: 2 } });
    const byLabel = await report<Record<string, Node>>(chart.key, 'byCategoryLabel/summary', '?bookWholeTables=true');
    expect(byLabel.Balcony).toEqual({ count: 55, bySection: { 'Section A': 1, 'Section B': 54 }, byObjectType: { seat: 5, generalAdmission: 50 }, byZone: { NO_ZONE: 1, upper: 54 } });
  });

  it('summaries: places per group, split by the other chart dimensions', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    const byKey = await report<Record<string, Node>>(chart.key, 'byCategoryKey/summary');
    expect(counts(byKey)).toEqual({ '9': 116, '10': 116, string11: 0, NO_CATEGORY: 0 });
    expect(byKey['9']).toEqual({
      count: 116,
      bySection: { NO_SECTION: 116 },
      byObjectType: { seat: 16, generalAdmission: 100 },
      byZone: { NO_ZONE: 116 },
    });
    expect(counts(await report(chart.key, 'byObjectType/summary'))).toEqual({ seat: 32, table: 0, booth: 0, generalAdmission: 200 });
    const sectioned = await uploadDrawing(ctx.api, withSections);
    const bySection = await report<Record<string, Node>>(sectioned.key, 'bySection/summary');
    expect(bySection['Section B']!.byZone).toEqual({ upper: bySection['Section B']!.count });
    expect(bySection['Section B']).not.toHaveProperty('bySection');
    const byZone = await report<Record<string, Node>>(sectioned.key, 'byZone/summary');
    expect(byZone.upper).not.toHaveProperty('byZone');
    expect(counts(await report(sectioned.key, 'byCategoryLabel/summary'))).toMatchObject({ NO_CATEGORY: expect.any(Number) });
  });

  it('version=draft reads the draft; without a draft → 404', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    expectError(await ctx.api.get(`/reports/charts/${chart.key}/byLabel?version=draft`), 404, 'CHART_VERSION_NOT_FOUND');
    expectError(await ctx.api.get(`/reports/charts/${chart.key}/byCategoryKey/summary?version=draft`), 404, 'CHART_VERSION_NOT_FOUND');
    await createEvent(ctx.api, chart.key);
    const renamed = await ctx.api.post(`/charts/${chart.key}`, { categories: [{ key: 9, label: 'Cat1 renamed' }, { key: 10, label: 'Cat2' }] });
    expect(renamed.status, renamed.text).toBe(204);
    expect(Object.keys(await report(chart.key, 'byCategoryLabel', '?version=draft')).sort()).toEqual(['Cat1 renamed', 'Cat2', 'NO_CATEGORY']);
    expect(Object.keys(await report(chart.key, 'byCategoryLabel', '?version=published')).sort()).toEqual(['Cat1', 'Cat2', 'Cat3', 'NO_CATEGORY']);
    expect(counts(await report(chart.key, 'byCategoryLabel/summary', '?version=draft'))).toEqual({ 'Cat1 renamed': 116, Cat2: 116, NO_CATEGORY: 0 });
  });

  it('bad input: unknown chart 404, unknown type 404, bad bookWholeTables or version 400', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    expectError(await ctx.api.get(`/reports/charts/${randomUUID()}/byLabel`), 404, 'CHART_NOT_FOUND');
    expectError(await ctx.api.get(`/reports/charts/${randomUUID()}/byZone/summary`), 404, 'CHART_NOT_FOUND');
    for (const path of ['byStatus', 'byNothing', 'byLabel/summary', 'byChannel/summary']) {
      expectError(await ctx.api.get(`/reports/charts/${chart.key}/${path}`), 404, 'NOT_FOUND');
    }
    expectError(await ctx.api.get(`/reports/charts/${chart.key}/byLabel?bookWholeTables=yes`), 400, 'GENERAL_ERROR');
    expectError(await ctx.api.get(`/reports/charts/${chart.key}/byLabel?version=old`), 400, 'GENERAL_ERROR');
    expectError(await ctx.api.get(`/reports/charts/${chart.key}/byLabel?version=draft&version=published`), 400, 'GENERAL_ERROR');
    const other = await ctx.freshCompany();
    expectError(await other.api.get(`/reports/charts/${chart.key}/byLabel`), 404, 'CHART_NOT_FOUND');
  });
});
