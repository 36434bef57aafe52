import { describe, expect, it } from 'vitest';
import type { EventDoc } from '../../src/domain/event.js';
import { chartMembersJson, describeEventObject, EventFieldsCache, eventFields, eventObjectJson, objectStanding, sharedSnapshotJson, type ObjectSnapshot } from '../../src/domain/eventObjectInfo.js';
import { directRules, indexedRules } from '../../src/domain/eventObjectRules.js';
import { buildObjectIndex, describeObject, type ChartObject } from '../../src/domain/objectIndex.js';
import { areaState, FREE_OBJECT } from '../../src/domain/objectStates.js';
import {
  CSV_HEADER,
  csvField,
  csvRow,
  emptyGroups,
  groupOf,
  groupOfObject,
  EVENT_REPORT_TYPES,
  summaryReport,
  Tally,
  tallyChartObject,
  CHART_DIMENSIONS,
  EventTally,
  tallyLayout,
} from '../../src/domain/reports.js';
import { rowsWithoutSections, withBooths, withErrors, withFloors, withSections, withTables, withZones } from '../fixtures/drawings.js';

// Report grouping without servers (docs/reports.md): group keys, the groups always shown,
// tallies and the summaries read from them, GA places split by what they are, CSV quoting,
// and the precomputed sale rules agreeing with the direct ones.

const sample = buildObjectIndex(rowsWithoutSections);
type Settings = Pick<EventDoc, 'objectCategories' | 'categories' | 'tableBookingConfig' | 'channels' | 'forSaleConfig'>;
const plain: Settings = { objectCategories: {}, categories: [], tableBookingConfig: { mode: 'INHERIT' }, channels: [], forSaleConfig: null };

describe('group keys', () => {
  it('names missing values NO_*, availability available/not_available', () => {
    const info = { label: 'A-1', status: 'booked', objectType: 'seat', isAvailable: false, availabilityReason: 'booked' };
    expect(groupOf('byCategoryKey', info)).toBe('NO_CATEGORY');
    expect(groupOf('byCategoryLabel', info)).toBe('NO_CATEGORY');
    expect(groupOf('byOrderId', info)).toBe('NO_ORDER_ID');
    expect(groupOf('bySection', info)).toBe('NO_SECTION');
    expect(groupOf('byZone', info)).toBe('NO_ZONE');
    expect(groupOf('byChannel', info)).toBe('NO_CHANNEL');
    expect(groupOf('byAvailability', info)).toBe('not_available');
    expect(groupOf('byAvailability', { ...info, isAvailable: true })).toBe('available');
    expect(groupOf('byChannel', { ...info, channel: 'c1' })).toBe('c1');
    expect(groupOf('byStatus', info)).toBe('booked');
  });

  it('the groups always shown', () => {
    expect(emptyGroups('byObjectType', sample, sample.categories)).toEqual(['seat', 'table', 'booth', 'generalAdmission']);
    expect(emptyGroups('byCategoryKey', sample, sample.categories)).toEqual(['9', '10', 'string11', 'NO_CATEGORY']);
    expect(emptyGroups('byCategoryLabel', sample, sample.categories)).toEqual(['Cat1', 'Cat2', 'Cat3', 'NO_CATEGORY']);
    expect(emptyGroups('byZone', { zones: [{ key: 'north', label: 'N' }] }, [])).toEqual(['north', 'NO_ZONE']);
    expect(emptyGroups('byAvailabilityReason', sample, [])).toContain('disabled_by_social_distancing');
    for (const type of ['byStatus', 'bySection', 'byChannel', 'byAvailability', 'byOrderId', 'byLabel']) expect(emptyGroups(type, sample, sample.categories)).toEqual([]);
  });
});

describe('tallies and summaries', () => {
  /** The event tally of the sample chart's objects as `states` says (label -> snapshot; the others untouched). */
  const eventTally = (states: Record<string, ObjectSnapshot>, settings: Settings = plain) => {
    const rules = indexedRules(settings, sample);
    const layout = tallyLayout(sample, sample.objects, rules);
    const tally = new EventTally(layout);
    sample.objects.forEach((object, i) => {
      const snapshot = states[object.label];
      if (!snapshot && object.objectType !== 'generalAdmission') return;
      const state = snapshot ?? { state: areaState(null) };
      tally.add(i, objectStanding(object, state, layout.notForSale[i]!), 'nonFree' in state.state ? state.state.status : '');
    });
    return tally.tally();
  };
  const countsOf = (report: Record<string, { count: number }>) => Object.fromEntries(Object.entries(report).map(([k, v]) => [k, v.count]));

  it('counts untouched objects per combination; a summary leaves its own dimension out (by category key, the label too)', () => {
    const tally = eventTally({ 'A-2': { state: { ...FREE_OBJECT, status: 'booked' } } });
    const report = summaryReport(tally, 'byCategoryKey', ['9', '10', 'NO_CATEGORY'], false);
    expect(report['9']).toMatchObject({ count: 116, byStatus: { free: 115, booked: 1 }, bySection: { NO_SECTION: 116 } });
    expect(report['9']).not.toHaveProperty('byCategoryKey');
    expect(report['9']).not.toHaveProperty('byCategoryLabel');
    expect(summaryReport(tally, 'byCategoryLabel', [], false).Cat1).not.toHaveProperty('byCategoryKey');
    expect(report.NO_CATEGORY).toMatchObject({ count: 0, byStatus: {} });
    // Combinations: (Cat1 seats, Cat2 seats, GA1, GA2) free, and A-2 booked.
    expect(tally.entries()).toHaveLength(5);
  });

  it("gives each object the combination of its own values, its event's category and channel too", () => {
    const channel = (key: string, objects: string[]) => ({ id: key, key, name: key, color: '#000', index: 0, objects, areaPlaces: {} });
    // A-1 gets another category than its row's seats; A-2 and B-2 are in channels; the rest share their traits' combination.
    const settings: Settings = { ...plain, objectCategories: { 'A-1': 10 }, channels: [channel('first', ['A-2', 'B-2']), channel('second', ['B-3'])] };
    const rules = indexedRules(settings, sample);
    const layout = tallyLayout(sample, sample.objects, rules);
    layout.objects.forEach((object, i) => {
      const category = rules.category(object);
      expect(layout.combinations[layout.combination[i]!], object.label).toEqual([
        object.section?.label ?? 'NO_SECTION',
        object.objectType,
        category ? String(category.key) : 'NO_CATEGORY',
        category?.label ?? 'NO_CATEGORY',
        rules.channel(object.label) ?? 'NO_CHANNEL',
        object.section?.zone ?? 'NO_ZONE',
      ]);
    });
    const idOf = (label: string) => layout.combination[layout.positionOf[sample.byLabel.get(label)!.position]!]!;
    expect(idOf('A-1')).not.toBe(idOf('A-3'));
    expect(idOf('A-2')).toBe(idOf('B-2'));
    expect(idOf('B-3')).not.toBe(idOf('B-2'));
    expect(idOf('A-3')).toBe(idOf('A-4'));
    // Every combination is made once.
    expect(new Set(layout.combinations.map((values) => values.join('|'))).size).toBe(layout.combinations.length);
  });

  it('addSeat counts a seat by its status as add does by its standing', () => {
    const settings: Settings = { ...plain, forSaleConfig: { forSale: false, objects: ['A-1', 'A-2'], categories: [], areaPlaces: {} } };
    const rules = indexedRules(settings, sample);
    const layout = tallyLayout(sample, sample.objects, rules);
    const statuses: Record<string, string> = { 'A-1': 'booked', 'A-3': 'booked', 'B-1': 'resale', 'C-1': 'vip', 'C-2': 'free' };
    const bySeat = new EventTally(layout);
    const byStanding = new EventTally(layout);
    for (const [label, status] of Object.entries(statuses)) {
      const i = layout.positionOf[sample.byLabel.get(label)!.position]!;
      bySeat.addSeat(i, status);
      byStanding.add(i, objectStanding(sample.objects[i]!, { state: { ...FREE_OBJECT, status } }, layout.notForSale[i]!), '');
    }
    for (const type of ['byStatus', 'byAvailabilityReason', 'byCategoryKey'] as const) {
      expect(summaryReport(bySeat.tally(), type, [], true)).toEqual(summaryReport(byStanding.tally(), type, [], true));
    }
    // GA areas are not in this tally; A-1 (booked, off sale) counts as not_for_sale, as its object info says.
    expect(countsOf(summaryReport(bySeat.tally(), 'byAvailabilityReason', [], false))).toEqual({ available: 28, not_for_sale: 2, booked: 1, vip: 1 });
  });

  it('splits a GA area by its places: booked under its last status, held, free, off sale', () => {
    const settings: Settings = { ...plain, forSaleConfig: { forSale: false, objects: ['A-1'], categories: [], areaPlaces: { GA1: 20 } } };
    const tally = eventTally({ GA1: { state: areaState(['7', '3', 'vip'].join('\u001f')) } }, settings);
    const byStatus = summaryReport(tally, 'byStatus', [], false);
    expect(countsOf(byStatus)).toEqual({ vip: 7, reservedByToken: 3, free: 222 });
    expect(byStatus.free!.byAvailabilityReason).toEqual({ available: 70 + 100 + 31, not_for_sale: 20 + 1 });
    const deep = summaryReport(tally, 'byStatus', [], true);
    expect((deep.free!.byObjectType as Record<string, unknown>).generalAdmission).toMatchObject({
      count: 190,
      byAvailabilityReason: { available: 170, not_for_sale: 20 },
      byAvailability: { available: 170, not_available: 20 },
    });
    const available = (deep.free!.byAvailability as Record<string, object>).available;
    expect(available).not.toHaveProperty('byStatus');
    expect(available).not.toHaveProperty('byAvailability');
  });

  it('chart tallies: a table counts as one object, sections and zones', () => {
    const tables = buildObjectIndex(withTables);
    const tally = new Tally(CHART_DIMENSIONS);
    for (const object of tables.objects.filter((o) => o.objectType === 'table')) tallyChartObject(tally, object);
    expect(summaryReport(tally, 'byObjectType', ['seat', 'table'], false).table!.count).toBe(2);
    const sections = buildObjectIndex(withSections);
    const bySection = new Tally(CHART_DIMENSIONS);
    for (const object of sections.objects) tallyChartObject(bySection, object);
    expect(Object.keys(summaryReport(bySection, 'byZone', [], false)).sort()).toEqual(['NO_ZONE', 'upper']);
  });
});

describe('sale rules', () => {
  it('the indexed rules answer as the direct ones', () => {
    const channel = (key: string, objects: string[]) => ({ id: key, key, name: key, color: '#000', index: 0, objects, areaPlaces: {} });
    const settings: Settings = {
      ...plain,
      objectCategories: { 'A-1': 10 },
      channels: [channel('first', ['A-1', 'B-2']), channel('second', ['B-2', 'C-3'])],
      forSaleConfig: { forSale: false, objects: ['D-1'], categories: ['Cat2'], areaPlaces: { GA1: 5 } },
    };
    const direct = directRules(settings, sample);
    const indexed = indexedRules(settings, sample);
    for (const object of sample.objects) {
      expect(indexed.category(object), object.label).toEqual(direct.category(object));
      expect(indexed.notForSale(object), object.label).toBe(direct.notForSale(object));
      expect(indexed.channel(object.label), object.label).toBe(direct.channel(object.label));
      const snapshot = { state: FREE_OBJECT };
      expect(describeEventObject(settings, sample, object, snapshot, indexed)).toEqual(describeEventObject(settings, sample, object, snapshot));
    }
  });
});

describe('object info as JSON for big reports', () => {
  it('the chart part is, byte for byte, the members JSON.stringify writes of describeObject without the category', () => {
    const drawings = { rowsWithoutSections, withSections, withTables, withBooths, withFloors, withZones, withErrors };
    const flagged = structuredClone(withSections);
    const seat = flagged.subChart!.sections![0]!.subChart.rows![0]!.seats![0]!;
    Object.assign(seat, { accessible: true, restrictedView: true, label: 'quote"d \\ \u00e9', entrance: 'E\n1' });
    const withoutFocalPoint = { ...structuredClone(withTables), focalPoint: null, subChart: { ...structuredClone(withTables).subChart, focalPoint: null } };
    for (const [name, drawing] of Object.entries({ ...drawings, flagged, withoutFocalPoint })) {
      const index = buildObjectIndex(drawing);
      expect(index.objects.length, name).toBeGreaterThan(0);
      for (const object of index.objects) {
        const { categoryKey: _key, categoryLabel: _label, ...rest } = describeObject(index, object);
        expect(chartMembersJson(index, object), `${name} ${object.label}`).toBe(JSON.stringify(rest).slice(1, -1));
      }
    }
  });

  it('the chart part plus the event fields are the members of the object info; groups read from them match', () => {
    const settings: Settings = {
      ...plain,
      objectCategories: { 'A-1': 10 },
      channels: [{ id: 'c', key: 'c', name: 'c', color: '#000', index: 0, objects: ['A-2'], areaPlaces: {} }],
      forSaleConfig: { forSale: false, objects: ['B-1'], categories: [], areaPlaces: { GA2: 10 } },
    };
    const rules = indexedRules(settings, sample);
    const holds = new Map([['token-1', new Map([['', 2]])]]);
    const states: Record<string, ObjectSnapshot> = {
      'A-3': { state: { ...FREE_OBJECT, status: 'reservedByToken', holdToken: 'token-1', orderId: 'o', ticketType: 't' }, extraData: { a: 'x,"y"' } },
      GA1: { state: areaState(['5', '2', 'booked'].join('\u001f'), holds) },
      GA2: { state: areaState(null, new Map()) },
    };
    for (const object of sample.objects) {
      const snapshot = states[object.label] ?? { state: FREE_OBJECT };
      const info = describeEventObject(settings, sample, object, snapshot, rules);
      const fields = eventFields(object, snapshot, rules);
      expect(JSON.parse(eventObjectJson(chartMembersJson(sample, object), fields)), object.label).toEqual(JSON.parse(JSON.stringify(info)));
      for (const type of EVENT_REPORT_TYPES) expect(groupOfObject(type, object, fields), `${object.label} ${type}`).toBe(groupOf(type, info));
    }
    const sections = buildObjectIndex(withSections);
    for (const object of sections.objects) {
      const fields = eventFields(object, { state: FREE_OBJECT }, indexedRules(plain, sections));
      const info = describeEventObject(plain, sections, object, { state: FREE_OBJECT });
      for (const type of ['bySection', 'byZone'] as const) expect(groupOfObject(type, object, fields)).toBe(groupOf(type, info));
    }
  });

  it('event fields shared by objects whose state is a status alone: the same fields and text as made one by one, made once per category, sale, channel and status', () => {
    const settings: Settings = {
      ...plain,
      objectCategories: { 'A-3': 10 },
      channels: [{ id: 'c', key: 'c', name: 'c', color: '#000', index: 0, objects: ['A-2', 'A-3'], areaPlaces: {} }],
      forSaleConfig: { forSale: false, objects: ['B-2'], categories: [], areaPlaces: { GA2: 10 } },
    };
    const rules = indexedRules(settings, sample);
    const booked = { state: { ...FREE_OBJECT, status: 'booked' } };
    const snapshots: ObjectSnapshot[] = [
      { state: FREE_OBJECT },
      booked,
      { state: { ...FREE_OBJECT, status: 'booked', orderId: 'o-1' } },
      { state: { ...FREE_OBJECT, status: 'reservedByToken', holdToken: 'token-1' } },
      { state: { ...FREE_OBJECT, status: 'booked', ticketType: 'adult' } },
      { state: { ...FREE_OBJECT, status: 'resale', resaleListingId: 'l-1' } },
      { state: FREE_OBJECT, extraData: { a: 1 } },
      { state: FREE_OBJECT, unavailable: 'booked' },
      { state: FREE_OBJECT, seasonStatusOverridden: true },
      { state: areaState(['5', '2', 'booked'].join('\u001f'), new Map([['token-1', new Map([['', 2]])]])) },
    ];
    const cache = new EventFieldsCache(rules);
    for (const object of sample.objects) {
      for (const snapshot of snapshots) {
        const fields = eventFields(object, snapshot, rules);
        const shared = cache.of(object, snapshot);
        expect(shared.fields, object.label).toEqual(fields);
        expect(shared.text(), object.label).toBe(JSON.stringify(fields).slice(1));
      }
    }
    // Seats of one category, sale, channel and status share one entry; any of the four apart, not.
    const [a1, a2, a3, b1, b2] = ['A-1', 'A-2', 'A-3', 'B-1', 'B-2'].map((label) => sample.byLabel.get(label)!);
    expect(cache.of(a1!, booked)).toBe(cache.of(b1!, { state: { ...FREE_OBJECT, status: 'booked' } }));
    for (const other of [a2!, a3!, b2!]) expect(cache.of(other, booked), other.label).not.toBe(cache.of(a1!, booked));
    expect(cache.of(a1!, { state: FREE_OBJECT })).not.toBe(cache.of(a1!, booked));
    expect(cache.of(a1!, snapshots[2]!)).not.toBe(cache.of(a1!, snapshots[2]!));
  });

  it('objects sharing one snapshot: each worded as eventObjectJson words it, keyed as an object of their details lists them', () => {
    const settings: Settings = {
      ...plain,
      // In order, A-1 to A-2 changes the channel only, A-2 to A-3 the category only, B-1 to B-2 the sale only.
      objectCategories: { 'A-3': 10 },
      channels: [{ id: 'c', key: 'c', name: 'c', color: '#000', index: 0, objects: ['A-2', 'A-3'], areaPlaces: {} }],
      forSaleConfig: { forSale: false, objects: ['B-2'], categories: [], areaPlaces: {} },
    };
    const seats = ['A-1', 'A-2', 'A-3', 'B-1', 'B-2'].map((label) => sample.byLabel.get(label)!);
    // Labels JavaScript takes as array indexes come first in an object's keys, in numeric order.
    const relabelled = (object: ChartObject, label: string): ChartObject => Object.assign(Object.create(Object.getPrototypeOf(object) as object) as ChartObject, object, { label });
    const numbered = [seats[0]!, relabelled(seats[1]!, '12'), relabelled(seats[2]!, '3'), relabelled(seats[3]!, '012'), relabelled(seats[4]!, '4294967295')];
    /** What the general way answers: each object's text in an object keyed by label, written in its key order. */
    const keyed = (details: Record<string, string>) => `{${Object.keys(details).map((label) => `${JSON.stringify(label)}:${details[label]}`).join(',')}}`;
    for (const snapshot of [{ state: { ...FREE_OBJECT, status: 'booked' } }, { state: { ...FREE_OBJECT, status: 'reservedByToken', holdToken: 'token-1' } }]) {
      for (const rules of [directRules(settings, sample), directRules(plain, sample)]) {
        for (const objects of [seats, numbered]) {
          const details: Record<string, string> = {};
          for (const object of objects) details[object.label] = eventObjectJson(chartMembersJson(sample, object), eventFields(object, snapshot, rules));
          const json = sharedSnapshotJson(sample, objects, snapshot, rules);
          expect(json).toBe(keyed(details));
          expect(Object.keys(JSON.parse(json))).toEqual(Object.keys(details));
        }
      }
    }
    expect(Object.keys(JSON.parse(sharedSnapshotJson(sample, numbered, { state: FREE_OBJECT }, directRules(plain, sample))))).toEqual(['3', '12', 'A-1', '012', '4294967295']);
    expect(sharedSnapshotJson(sample, [], { state: FREE_OBJECT }, directRules(plain, sample))).toBe('{}');
    expect(() => sharedSnapshotJson(sample, seats, { state: areaState(null, new Map()) }, directRules(plain, sample))).toThrow();
  });
});

describe('CSV', () => {
  it('quotes fields with commas, quotes and line breaks (RFC 4180); objects as JSON', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvField(undefined)).toBe('');
    expect(csvField(false)).toBe('false');
    expect(csvField({ a: 'x,y' })).toBe('"{""a"":""x,y""}"');
    expect(CSV_HEADER.startsWith('label,objectType,status,')).toBe(true);
    expect(csvRow({ label: 'A-1', objectType: 'seat', status: 'booked' }).startsWith('A-1,seat,booked,')).toBe(true);
    expect(csvRow({ label: 'A-1' }).endsWith('\r\n')).toBe(true);
  });
});
