import { ApiError } from './errors.js';
import { seatStanding, type ObjectStanding } from './eventObjectInfo.js';
import type { ObjectRules } from './eventObjectRules.js';
import { HELD } from './objectStates.js';
import type { ChartObject, IndexedCategory, ObjectIndex } from './objectIndex.js';

// Event and chart reports without I/O (docs/reports.md): which group an object falls in for
// each report type, which empty groups every report shows, detailed reports (objects by
// group), summaries (places counted by group and, inside each group, by every other
// dimension) and deep summaries (one level further).
//
// Summaries count places: a seat, table or booth is 1, a GA area its capacity,
// split by what its places are (booked, held, free, off sale). They are built from tallies:
// the distinct combinations of every dimension's value with their places, so a 100,000-seat
// event is reduced to a few hundred combinations once and every summary is read from those.

/** The dimensions of a summary, in the order their sub-maps appear. */
export const EVENT_DIMENSIONS = [
  'bySection',
  'byObjectType',
  'byCategoryKey',
  'byCategoryLabel',
  'byStatus',
  'bySelectability',
  'byAvailability',
  'byAvailabilityReason',
  'byChannel',
  'byZone',
] as const;
export type EventDimension = (typeof EVENT_DIMENSIONS)[number];

export const CHART_DIMENSIONS = ['bySection', 'byObjectType', 'byCategoryKey', 'byCategoryLabel', 'byZone'] as const;
export type ChartDimension = (typeof CHART_DIMENSIONS)[number];

/** Event report types: the detailed ones, and those with a summary. */
export const EVENT_REPORT_TYPES = [
  'byStatus',
  'byObjectType',
  'byCategoryLabel',
  'byCategoryKey',
  'byLabel',
  'byOrderId',
  'bySection',
  'byZone',
  'byChannel',
  'byAvailability',
  'byAvailabilityReason',
] as const;
export type EventReportType = (typeof EVENT_REPORT_TYPES)[number];
export const EVENT_SUMMARY_TYPES = [
  'byStatus',
  'byObjectType',
  'byCategoryLabel',
  'byCategoryKey',
  'bySection',
  'byZone',
  'byChannel',
  'byAvailability',
  'byAvailabilityReason',
] as const satisfies readonly (EventReportType & EventDimension)[];
export type EventSummaryType = (typeof EVENT_SUMMARY_TYPES)[number];

export const CHART_REPORT_TYPES = ['byLabel', 'byObjectType', 'byCategoryLabel', 'byCategoryKey', 'bySection', 'byZone'] as const;
export type ChartReportType = (typeof CHART_REPORT_TYPES)[number];
export const CHART_SUMMARY_TYPES = ['byObjectType', 'byCategoryLabel', 'byCategoryKey', 'bySection', 'byZone'] as const satisfies readonly ChartDimension[];
export type ChartSummaryType = (typeof CHART_SUMMARY_TYPES)[number];

export const isOneOf = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

/** `type` if `list` has it; else 404 NOT_FOUND naming the report (`what`: "event", "event summary", ...). */
export function reportTypeIn<T extends string>(list: readonly T[], type: string, what: string): T {
  if (!isOneOf(list, type)) throw new ApiError(404, 'NOT_FOUND', `Unknown ${what} report type: ${type}`);
  return type;
}

export const NO_SECTION = 'NO_SECTION';
export const NO_CATEGORY = 'NO_CATEGORY';
export const NO_CHANNEL = 'NO_CHANNEL';
export const NO_ZONE = 'NO_ZONE';
export const NO_ORDER_ID = 'NO_ORDER_ID';
export const OBJECT_TYPES = ['seat', 'table', 'booth', 'generalAdmission'];
/** The availability reasons every by-availability-reason report lists, present or not. */
export const AVAILABILITY_REASONS = ['available', 'booked', 'disabled_by_social_distancing', 'not_for_sale', HELD];

/** The groups a report lists even when empty: every object type, category, zone (docs/reports.md, "Groups"). */
export function emptyGroups(type: string, index: Pick<ObjectIndex, 'zones'>, categories: IndexedCategory[]): string[] {
  switch (type) {
    case 'byObjectType':
      return OBJECT_TYPES;
    case 'byCategoryKey':
      return [...categories.map((c) => String(c.key)), NO_CATEGORY];
    case 'byCategoryLabel':
      return [...categories.map((c) => c.label), NO_CATEGORY];
    case 'byZone':
      return [...index.zones.map((z) => z.key), NO_ZONE];
    case 'byAvailabilityReason':
      return AVAILABILITY_REASONS;
    default:
      return [];
  }
}

/** The group of an object of an event in a detailed report of `type`: from the chart for the chart's dimensions, else from its event fields (eventFields). */
export function groupOfObject(type: EventReportType, object: ChartObject, fields: Record<string, unknown>): string {
  switch (type) {
    case 'byObjectType':
      return object.objectType;
    case 'byLabel':
      return object.label;
    case 'bySection':
      return object.section?.label ?? NO_SECTION;
    case 'byZone':
      return object.section?.zone || NO_ZONE;
    default:
      return groupOf(type, fields);
  }
}

/** The group of an object info in a detailed report of `type` (its fields as docs/seatsio-behaviour.md names them). */
export function groupOf(type: EventReportType | ChartReportType, info: Record<string, unknown>): string {
  const text = (field: string, missing: string) => (typeof info[field] === 'string' && info[field] !== '' ? (info[field] as string) : missing);
  switch (type) {
    case 'byStatus':
      return info.status as string;
    case 'byObjectType':
      return info.objectType as string;
    case 'byCategoryLabel':
      return text('categoryLabel', NO_CATEGORY);
    case 'byCategoryKey':
      return text('categoryKey', NO_CATEGORY);
    case 'byLabel':
      return info.label as string;
    case 'byOrderId':
      return text('orderId', NO_ORDER_ID);
    case 'bySection':
      return text('section', NO_SECTION);
    case 'byZone':
      return text('zone', NO_ZONE);
    case 'byChannel':
      return text('channel', NO_CHANNEL);
    case 'byAvailability':
      return info.isAvailable ? 'available' : 'not_available';
    case 'byAvailabilityReason':
      return info.availabilityReason as string;
  }
}

/** Places of one combination of dimension values. */
export interface TallyRow {
  /** One value per dimension, in the order of the tally's dimensions. */
  values: string[];
  places: number;
}

/** Places by distinct combination of dimension values. */
export class Tally<D extends string> {
  private readonly rows = new Map<string, TallyRow>();

  constructor(readonly dimensions: readonly D[]) {}

  add(values: string[], places: number): void {
    if (places <= 0) return;
    const key = values.join('\u001f');
    const row = this.rows.get(key);
    if (row) row.places += places;
    else this.rows.set(key, { values, places });
  }

  entries(): TallyRow[] {
    return [...this.rows.values()];
  }
}

/** The summary node leaves count numbers; deep summaries nest nodes one level. */
export interface SummaryNode {
  count: number;
  [dimension: string]: number | Record<string, number | SummaryNode>;
}

/**
 * The dimensions a summary by `group` leaves out: its own, and for a category's key or label
 * the other one too (the same split under another name), as seats.io's summaries do.
 */
function leftOutBy<D extends string>(group: D): D[] {
  if (group === 'byCategoryKey') return [group, 'byCategoryLabel' as D];
  if (group === 'byCategoryLabel') return [group, 'byCategoryKey' as D];
  return [group];
}

function node<D extends string>(rows: TallyRow[], dimensions: readonly D[], leaveOut: D[], depth: number): SummaryNode {
  const result: SummaryNode = { count: rows.reduce((n, row) => n + row.places, 0) };
  dimensions.forEach((dimension, i) => {
    if (leaveOut.includes(dimension)) return;
    const byValue = new Map<string, TallyRow[]>();
    for (const row of rows) {
      const value = row.values[i]!;
      const list = byValue.get(value);
      if (list) list.push(row);
      else byValue.set(value, [row]);
    }
    const sub: Record<string, number | SummaryNode> = {};
    for (const [value, list] of byValue) {
      sub[value] = depth > 0 ? node(list, dimensions, [...leaveOut, ...leftOutBy(dimension)], depth - 1) : list.reduce((n, row) => n + row.places, 0);
    }
    result[dimension] = sub;
  });
  return result;
}

/**
 * A summary by `group`: per group value (the `always` ones first, present or not), the
 * places and their split by every other dimension; `deep` splits each of those once more.
 */
export function summaryReport<D extends string>(tally: Tally<D>, group: D, always: string[], deep: boolean): Record<string, SummaryNode> {
  const at = tally.dimensions.indexOf(group);
  const byGroup = new Map<string, TallyRow[]>(always.map((value) => [value, []]));
  for (const row of tally.entries()) {
    const value = row.values[at]!;
    const list = byGroup.get(value);
    if (list) list.push(row);
    else byGroup.set(value, [row]);
  }
  const report: Record<string, SummaryNode> = {};
  const leaveOut = leftOutBy(group);
  for (const [value, rows] of byGroup) report[value] = node(rows, tally.dimensions, leaveOut, deep ? 1 : 0);
  return report;
}

/** What a summary counts of an object: a seat, table or booth is 1 (a table is one object, not its seats), a GA area its capacity. */
export const placesOf = (object: ChartObject): number => (object.objectType === 'generalAdmission' ? object.capacity : 1);

/**
 * What an event's summaries need of each of its bookable objects that does not change with
 * its state, worked out once per loaded event: the id of its combination of section, object
 * type, category, channel and zone; its places; its places off sale; and the places of all
 * of them untouched (free, no record), from which a summary starts.
 */
export interface TallyLayout {
  objects: ChartObject[];
  /** Per chart object (by its position in the index): its position in `objects`, -1 when not bookable. */
  positionOf: Int32Array;
  /** The same for seats, tables and booths only (-1 for GA areas too): where a record read by label counts (EventTally.addSeat). */
  seatAt: Int32Array;
  /** Per object (in `objects` order): its combination's id in `combinations`. */
  combination: Int32Array;
  /** Per combination: [section, objectType, categoryKey, categoryLabel, channel, zone]. */
  combinations: string[][];
  places: Int32Array;
  notForSale: Int32Array;
  /** Per combination, the places of its seats, tables and booths untouched: [for sale, off sale]. */
  untouched: Float64Array;
}

export function tallyLayout(index: Pick<ObjectIndex, 'objects'>, objects: ChartObject[], rules: ObjectRules): TallyLayout {
  const ids = new Map<string, number>();
  const combinations: string[][] = [];
  const positionOf = new Int32Array(index.objects.length).fill(-1);
  const seatAt = new Int32Array(index.objects.length).fill(-1);
  const combination = new Int32Array(objects.length);
  const places = new Int32Array(objects.length);
  const notForSale = new Int32Array(objects.length);
  // Objects that share their traits (section, type, chart category) and keep their chart's
  // category with no channel share a combination: found by the traits, not by a text made
  // per object (that was most of an event's first summary on 100,000 seats).
  const byTraits = new Map<ChartObject['traits'], number>();
  objects.forEach((object, i) => {
    const category = rules.category(object);
    const channel = rules.channel(object.label);
    const plain = category === object.category && channel === null;
    let id = plain ? byTraits.get(object.traits) : undefined;
    if (id === undefined) {
      const values = [
        object.section?.label ?? NO_SECTION,
        object.objectType,
        category ? String(category.key) : NO_CATEGORY,
        category?.label ?? NO_CATEGORY,
        channel ?? NO_CHANNEL,
        object.section?.zone ?? NO_ZONE,
      ];
      const key = values.join('\u001f');
      id = ids.get(key);
      if (id === undefined) {
        ids.set(key, (id = combinations.length));
        combinations.push(values);
      }
      if (plain) byTraits.set(object.traits, id);
    }
    positionOf[object.position] = i;
    if (object.objectType !== 'generalAdmission') seatAt[object.position] = i;
    combination[i] = id;
    places[i] = placesOf(object);
    notForSale[i] = rules.notForSale(object);
  });
  const untouched = new Float64Array(combinations.length * 2);
  objects.forEach((object, i) => {
    if (object.objectType === 'generalAdmission') return;
    const at = untouchedSlot(combination[i]!, notForSale[i]!);
    untouched[at] = untouched[at]! + places[i]!;
  });
  return { objects, positionOf, seatAt, combination, combinations, places, notForSale, untouched };
}

const untouchedSlot = (combination: number, notForSale: number) => combination * 2 + (notForSale > 0 ? 1 : 0);

/**
 * The places of an event's objects by combination of EVENT_DIMENSIONS' values. It starts
 * with every seat, table and booth untouched (free, no record): only the others are
 * added, each moved out of the untouched count. A GA area is split by its places: booked
 * ones under its last non-free status, held ones under reservedByToken, free ones under
 * free (available, or not: off sale, or taken by its season).
 */
export class EventTally {
  /** Per combination, untouched places [for sale, off sale]. */
  private readonly untouchedPlaces: Float64Array;
  /** `combination \x1f status \x1f available \x1f reason` -> places. */
  private readonly others = new Map<string, number>();
  /** Seats, tables and booths by status (all their standing depends on, with their places off sale): per combination [for sale, off sale]. */
  private readonly seats = new Map<string, Float64Array>();

  constructor(private readonly layout: TallyLayout) {
    this.untouchedPlaces = Float64Array.from(layout.untouched);
  }

  /** Seat, table or booth `i` of the layout, outside seasons, in `status`: counted per status without working out its standing. */
  addSeat(i: number, status: string): void {
    const at = untouchedSlot(this.layout.combination[i]!, this.layout.notForSale[i]!);
    const places = this.layout.places[i]!;
    let counts = this.seats.get(status);
    if (!counts) this.seats.set(status, (counts = new Float64Array(this.untouchedPlaces.length)));
    counts[at] = counts[at]! + places;
    this.untouchedPlaces[at] = this.untouchedPlaces[at]! - places;
  }

  /** Object `i` of the layout as it stands; `areaStatus`: a GA area's last status set. */
  add(i: number, standing: ObjectStanding, areaStatus: string): void {
    const combination = this.layout.combination[i]!;
    if (!standing.places) {
      const at = untouchedSlot(combination, this.layout.notForSale[i]!);
      this.untouchedPlaces[at] = this.untouchedPlaces[at]! - this.layout.places[i]!;
    }
    const add = (status: string, available: boolean, reason: string, places: number) => {
      if (places <= 0) return;
      const key = `${combination}\u001f${status}\u001f${available ? 1 : 0}\u001f${reason}`;
      this.others.set(key, (this.others.get(key) ?? 0) + places);
    };
    const area = standing.places;
    if (!area) {
      add(standing.status, standing.isAvailable, standing.availabilityReason, this.layout.places[i]!);
      return;
    }
    const bookedAs = areaStatus === 'free' || areaStatus === HELD ? 'booked' : areaStatus;
    add(bookedAs, false, bookedAs, area.numBooked);
    add(HELD, false, HELD, area.numHeld);
    add('free', true, 'available', area.numFree);
    const rest = Math.max(0, this.layout.places[i]! - area.numBooked - area.numHeld - area.numFree);
    const offSale = Math.min(rest, area.numNotForSale);
    add('free', false, 'not_for_sale', offSale);
    add('free', false, 'booked', rest - offSale);
  }

  /** The tally in EVENT_DIMENSIONS order. */
  tally(): Tally<EventDimension> {
    const tally = new Tally(EVENT_DIMENSIONS);
    const row = (combination: number, status: string, available: boolean, reason: string, places: number) => {
      const [section, objectType, categoryKey, categoryLabel, channel, zone] = this.layout.combinations[combination]!;
      const availability = available ? ['selectable', 'available'] : ['not_selectable', 'not_available'];
      tally.add([section!, objectType!, categoryKey!, categoryLabel!, status, ...availability, reason, channel!, zone!], places);
    };
    for (let c = 0; c < this.layout.combinations.length; c++) {
      row(c, 'free', true, 'available', this.untouchedPlaces[c * 2]!);
      row(c, 'free', false, 'not_for_sale', this.untouchedPlaces[c * 2 + 1]!);
    }
    for (const [status, counts] of this.seats) {
      const [forSale, offSale] = [seatStanding(status, 0), seatStanding(status, 1)];
      for (let c = 0; c < this.layout.combinations.length; c++) {
        row(c, status, forSale.isAvailable, forSale.availabilityReason, counts[c * 2]!);
        row(c, status, offSale.isAvailable, offSale.availabilityReason, counts[c * 2 + 1]!);
      }
    }
    for (const [key, places] of this.others) {
      const [combination, status, available, reason] = key.split('\u001f');
      row(Number(combination), status!, available === '1', reason!, places);
    }
    return tally;
  }
}

/** Adds a chart object's places to a chart tally (CHART_DIMENSIONS order). */
export function tallyChartObject(tally: Tally<ChartDimension>, object: ChartObject): void {
  tally.add(
    [
      object.section?.label ?? NO_SECTION,
      object.objectType,
      object.category ? String(object.category.key) : NO_CATEGORY,
      object.category?.label ?? NO_CATEGORY,
      object.section?.zone ?? NO_ZONE,
    ],
    placesOf(object),
  );
}

/** Object infos sorted by label (the flat report), by UTF-16 code units like any string sort. */
export function byLabelOrder<T extends { label?: unknown }>(items: T[]): T[] {
  return items.sort((a, b) => ((a.label as string) < (b.label as string) ? -1 : (a.label as string) > (b.label as string) ? 1 : 0));
}

/** The columns of the CSV flat report: object info fields, objects and arrays as JSON. */
export const CSV_COLUMNS = [
  'label',
  'objectType',
  'status',
  'categoryKey',
  'categoryLabel',
  'section',
  'zone',
  'entrance',
  'channel',
  'orderId',
  'ticketType',
  'holdToken',
  'resaleListingId',
  'forSale',
  'isAvailable',
  'availabilityReason',
  'capacity',
  'numBooked',
  'numHeld',
  'numFree',
  'numNotForSale',
  'numSeats',
  'seasonStatusOverriddenQuantity',
  'extraData',
  'holds',
] as const;

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF; quotes doubled. */
export function csvField(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line of an object info, CRLF-terminated. */
export function csvLine(values: unknown[]): string {
  return values.map(csvField).join(',') + '\r\n';
}

export const csvRow = (info: Record<string, unknown>): string => csvLine(CSV_COLUMNS.map((column) => info[column]));
export const CSV_HEADER = csvLine([...CSV_COLUMNS]);
