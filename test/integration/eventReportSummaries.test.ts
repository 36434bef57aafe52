import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mixedVenue, rowsWithoutSections, withSections, withTables, withZones } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { done, holdToken, newEvent } from '../support/events.js';
import { expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { createSeason, eventKeysOf } from '../support/seasons.js';

// Summary and deep summary event reports (docs/reports.md, "Summaries"): places per group
// (a seat 1, a table its seats, a GA area its capacity split by what its places are), and
// in each group the split by every other dimension; the groups always shown; deep
// summaries one level further.

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

type Node = { count: number; [dimension: string]: any };

async function summary(key: string, type: string, deep = false): Promise<Record<string, Node>> {
  const response = await ctx.api.get(`/reports/events/${encodeURIComponent(key)}/${type}/summary${deep ? '/deep' : ''}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

const counts = (report: Record<string, Node>) => Object.fromEntries(Object.entries(report).map(([group, node]) => [group, node.count]));

describe('summaries', () => {
  it('byStatus after booking A-1: the booked node exactly, and 231 free places (31 seats + 200 GA places)', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1'] });
    const report = await summary(event, 'byStatus');
    expect(report.booked).toEqual({
      count: 1,
      bySection: { NO_SECTION: 1 },
      byObjectType: { seat: 1 },
      byCategoryKey: { '9': 1 },
      byCategoryLabel: { Cat1: 1 },
      bySelectability: { not_selectable: 1 },
      byAvailability: { not_available: 1 },
      byAvailabilityReason: { booked: 1 },
      byChannel: { NO_CHANNEL: 1 },
      byZone: { NO_ZONE: 1 },
    });
    expect(report.free).toMatchObject({
      count: 231,
      byObjectType: { seat: 31, generalAdmission: 200 },
      byCategoryKey: { '9': 115, '10': 116 },
      byAvailability: { available: 231 },
    });
    expect(report.free).not.toHaveProperty('byStatus');
    expect(Object.keys(report).sort()).toEqual(['booked', 'free']);
  });

  it('a GA area counts its places by what they are: 5 booked + 3 held of 100', async () => {
    const token = await holdToken(ctx.api);
    await done(ctx.api, event, 'book', { objects: [{ objectId: 'GA1', quantity: 5 }] });
    await done(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 3 }], holdToken: token });
    const byStatus = await summary(event, 'byStatus');
    expect(counts(byStatus)).toEqual({ booked: 5, reservedByToken: 3, free: 224 });
    expect(byStatus.booked!.byObjectType).toEqual({ generalAdmission: 5 });
    expect(byStatus.free!.byObjectType).toEqual({ seat: 32, generalAdmission: 192 });
    const byReason = await summary(event, 'byAvailabilityReason');
    expect(counts(byReason)).toEqual({ available: 224, booked: 5, disabled_by_social_distancing: 0, not_for_sale: 0, reservedByToken: 3 });
    expect(counts(await summary(event, 'byAvailability'))).toEqual({ available: 224, not_available: 8 });
    // Detailed reports list the area once, under reservedByToken while any place is held.
    const detailed = (await ctx.api.get(`/reports/events/${encodeURIComponent(event)}/byStatus`)).body;
    expect(detailed.reservedByToken.filter((item: { label: string }) => item.label === 'GA1')).toHaveLength(1);
    expect(detailed.free.filter((item: { label: string }) => item.label === 'GA1')).toHaveLength(0);
  });

  it('byObjectType always has the four types; a table counts as one object', async () => {
    expect(counts(await summary(event, 'byObjectType'))).toEqual({ seat: 32, table: 0, booth: 0, generalAdmission: 200 });
    const key = (await newEvent(ctx.api, withTables, { tableBookingConfig: { mode: 'ALL_BY_TABLE' } })).key;
    await done(ctx.api, key, 'book', { objects: ['T1'] });
    const report = await summary(key, 'byObjectType');
    expect(counts(report)).toEqual({ seat: 0, table: 2, booth: 0, generalAdmission: 0 });
    expect(report.table!.byStatus).toEqual({ booked: 1, free: 1 });
    expect(report.seat).toEqual({
      count: 0,
      bySection: {},
      byCategoryKey: {},
      byCategoryLabel: {},
      byStatus: {},
      bySelectability: {},
      byAvailability: {},
      byAvailabilityReason: {},
      byChannel: {},
      byZone: {},
    });
  });

  it('a chart with sections, tables by seat and whole, booths and GA areas: objects counted, GA areas by places', async () => {
    const key = (await newEvent(ctx.api, mixedVenue)).key;
    await done(ctx.api, key, 'book', { objects: ['T2', 'T1-1', 'B1', 'Section A-A-1', { objectId: 'Floor', quantity: 5 }] });
    const byType = await summary(key, 'byObjectType');
    expect(counts(byType)).toEqual({ seat: 16, table: 1, booth: 2, generalAdmission: 70 });
    expect(byType.table!.byStatus).toEqual({ booked: 1 });
    expect(byType.seat!.byStatus).toEqual({ booked: 2, free: 14 });
    expect(counts(await summary(key, 'byStatus'))).toEqual({ booked: 9, free: 80 });
    const bySection = await summary(key, 'bySection');
    expect(counts(bySection)).toEqual({ NO_SECTION: 29, 'Section A': 6, 'Section B': 54 });
    expect(bySection.NO_SECTION!.byObjectType).toEqual({ seat: 6, table: 1, booth: 2, generalAdmission: 20 });
    const byKey = await summary(key, 'byCategoryKey');
    expect(byKey['3']).not.toHaveProperty('byCategoryLabel');
    expect(byKey['3']!.byObjectType).toEqual({ seat: 6, table: 1 });
  });

  it('byCategoryKey and byCategoryLabel: every category and NO_CATEGORY', async () => {
    await done(ctx.api, event, 'change-object-status', { objects: ['C-1', 'C-2'], status: 'sold-at-door' });
    const byKey = await summary(event, 'byCategoryKey');
    expect(counts(byKey)).toEqual({ '9': 116, '10': 116, string11: 0, NO_CATEGORY: 0 });
    expect(byKey['10']!.byStatus).toEqual({ 'sold-at-door': 2, free: 114 });
    // By key, no by-label split (the same split under another name), and the other way round.
    expect(byKey['10']).not.toHaveProperty('byCategoryKey');
    expect(byKey['10']).not.toHaveProperty('byCategoryLabel');
    expect(byKey['10']!.bySection).toEqual({ NO_SECTION: 116 });
    const byLabel = await summary(event, 'byCategoryLabel');
    expect(counts(byLabel)).toEqual({ Cat1: 116, Cat2: 116, Cat3: 0, NO_CATEGORY: 0 });
    expect(byLabel.Cat2).not.toHaveProperty('byCategoryKey');
    expect(byLabel.Cat2).not.toHaveProperty('byCategoryLabel');
    expect(byLabel.Cat2!.byStatus).toEqual({ 'sold-at-door': 2, free: 114 });
  });

  it('bySection, byZone (every zone and NO_ZONE, without a byZone split)', async () => {
    const key = (await newEvent(ctx.api, withSections)).key;
    const sections = await summary(key, 'bySection');
    expect(Object.keys(sections).sort()).toEqual(['Section A', 'Section B']);
    expect(sections['Section B']!.byObjectType.generalAdmission).toBe(50);
    expect(sections['Section B']!.byZone).toEqual({ upper: sections['Section B']!.count });
    const zones = await summary(key, 'byZone');
    expect(counts(zones)).toEqual({ upper: sections['Section B']!.count, NO_ZONE: sections['Section A']!.count });
    expect(zones.upper).not.toHaveProperty('byZone');
    const zoned = (await newEvent(ctx.api, withZones)).key;
    expect(Object.keys(await summary(zoned, 'byZone')).sort()).toEqual(['NO_ZONE', 'north', 'south']);
  });

  it('byChannel and for-sale config', async () => {
    const key = (await newEvent(ctx.api, rowsWithoutSections, {
      channels: [{ key: 'partners', name: 'Partners', objects: ['A-1', 'A-2', 'GA2'] }],
      forSaleConfig: { forSale: false, objects: ['D-1'], areaPlaces: { GA1: 30 } },
    })).key;
    const byChannel = await summary(key, 'byChannel');
    expect(counts(byChannel)).toEqual({ partners: 102, NO_CHANNEL: 130 });
    const byReason = await summary(key, 'byAvailabilityReason');
    expect(byReason.not_for_sale!.count).toBe(31);
    expect(byReason.not_for_sale!.byObjectType).toEqual({ seat: 1, generalAdmission: 30 });
    expect(byReason.not_for_sale!.byStatus).toEqual({ free: 31 });
    // 29 seats and the 70 places of GA1 left for sale.
    expect(byReason.available!.byChannel).toEqual({ partners: 102, NO_CHANNEL: 99 });
  });

  it('the summary of an event of a season shows the season’s bookings, not overridden ones', async () => {
    const chart = (await uploadDrawing(ctx.api, rowsWithoutSections)).key;
    const season = await createSeason(ctx.api, chart, { numberOfEvents: 1 });
    const [e1] = eventKeysOf(season) as [string];
    await done(ctx.api, season.key, 'book', { objects: ['A-1', 'A-2', { objectId: 'GA1', quantity: 10 }] });
    expect((await ctx.api.post(`/events/${encodeURIComponent(e1)}/actions/override-season-status`, { objects: ['A-2'] })).status).toBe(204);
    expect(counts(await summary(season.key, 'byStatus'))).toEqual({ booked: 12, free: 220 });
    const inEvent = await summary(e1, 'byAvailability');
    // A-1 and the 10 GA places the season took are not available in the event; A-2 is.
    expect(counts(inEvent)).toEqual({ available: 221, not_available: 11 });
  });
});

describe('deep summaries', () => {
  it('each split is a summary node without the two dimensions above it (a category key or label without the other too)', async () => {
    await done(ctx.api, event, 'book', { objects: ['A-1', 'C-1'] });
    const report = await summary(event, 'byStatus', true);
    expect(report.booked!.count).toBe(2);
    expect(report.booked!.byCategoryKey['9']).toEqual({
      count: 1,
      bySection: { NO_SECTION: 1 },
      byObjectType: { seat: 1 },
      bySelectability: { not_selectable: 1 },
      byAvailability: { not_available: 1 },
      byAvailabilityReason: { booked: 1 },
      byChannel: { NO_CHANNEL: 1 },
      byZone: { NO_ZONE: 1 },
    });
    expect(report.free!.byObjectType.generalAdmission).toMatchObject({ count: 200, byCategoryLabel: { Cat1: 100, Cat2: 100 } });
    const byType = await summary(event, 'byObjectType', true);
    expect(Object.keys(byType)).toEqual(['seat', 'table', 'booth', 'generalAdmission']);
    expect(byType.seat!.byStatus.booked).toMatchObject({ count: 2, byCategoryKey: { '9': 1, '10': 1 } });
  });

  it('every summary type has a deep summary', async () => {
    for (const type of ['byStatus', 'byObjectType', 'byCategoryLabel', 'byCategoryKey', 'bySection', 'byZone', 'byChannel', 'byAvailability', 'byAvailabilityReason']) {
      const flat = await summary(event, type);
      const deep = await summary(event, type, true);
      expect(counts(deep), type).toEqual(counts(flat));
    }
  });

  it('an unknown event → 404 EVENT_NOT_FOUND', async () => {
    expectError(await ctx.api.get(`/reports/events/${randomUUID()}/byStatus/summary/deep`), 404, 'EVENT_NOT_FOUND');
  });
});
