import { newCategories, type CategoryInput } from './categories.js';
import type { CategoryKey } from './drawing.js';
import { badRequest } from './errors.js';
import { eventCategories } from './eventObjectRules.js';
import { categoryId, indexCategory, type IndexedCategory, type ObjectIndex } from './objectIndex.js';
import { knownObject } from './objectLabels.js';
import type { EventChange, EventDoc, TableBooking, TableBookingConfig, TableBookingMode } from './event.js';

// The settings of an event as create and update take them (docs/seatsio-behaviour.md, "Events",
// "POST /events/{eventKey}"): date, table booking, event-level categories and the object
// categories that may name them. Pure: input and the chart's object index in, the fields
// to store out, 400 on anything the event could not honour.

export const FIRST_EVENT_DATE = '2014-01-01';
export const MAX_YEARS_AHEAD = 10;

/** A yyyy-MM-dd calendar date from 2014-01-01 to 10 years after `today` (UTC). */
export function checkEventDate(date: string, today: Date): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const parsed = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : null;
  // Date.UTC rolls 2021-02-30 over to March: only a date that reads back the same is real.
  if (!parsed || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) {
    throw badRequest('GENERAL_ERROR', `date must be a calendar date written yyyy-MM-dd, got "${date}"`);
  }
  const last = new Date(Date.UTC(today.getUTCFullYear() + MAX_YEARS_AHEAD, today.getUTCMonth(), today.getUTCDate()));
  const lastDate = last.toISOString().slice(0, 10);
  if (date < FIRST_EVENT_DATE || date > lastDate) {
    throw badRequest('GENERAL_ERROR', `date must be between ${FIRST_EVENT_DATE} and ${lastDate}, got ${date}`);
  }
  return date;
}

export interface TableBookingInput {
  tableBookingConfig?: { mode: TableBookingMode; tables?: Record<string, TableBooking> | null } | null;
  /** Deprecated: table label -> BY_TABLE | BY_SEAT, i.e. mode CUSTOM. */
  tableBookingModes?: Record<string, TableBooking> | null;
  /** Deprecated: true is mode ALL_BY_TABLE, false ALL_BY_SEAT. */
  bookWholeTables?: boolean | null;
}

export const INHERIT: TableBookingConfig = { mode: 'INHERIT' };

/**
 * The table booking config the input asks for, from the current field or one of the two
 * deprecated ones (never together: they could contradict each other). Undefined when the
 * input names none; null `tableBookingConfig` goes back to INHERIT.
 */
export function tableBookingFrom(input: TableBookingInput, index: ObjectIndex): TableBookingConfig | undefined {
  const given = (['tableBookingConfig', 'tableBookingModes', 'bookWholeTables'] as const).filter((f) => input[f] !== undefined);
  if (given.length > 1) throw badRequest('GENERAL_ERROR', `${given.join(' and ')} cannot be combined; use tableBookingConfig alone`);
  if (input.tableBookingModes) {
    // Tables the deprecated field does not name are booked by seat, whatever the chart says.
    const bySeat = Object.fromEntries(index.objects.filter((o) => o.objectType === 'table').map((t) => [t.label, 'BY_SEAT' as const]));
    return { mode: 'CUSTOM', tables: { ...bySeat, ...checkTables(input.tableBookingModes, index) } };
  }
  if (input.bookWholeTables !== undefined && input.bookWholeTables !== null) {
    return { mode: input.bookWholeTables ? 'ALL_BY_TABLE' : 'ALL_BY_SEAT' };
  }
  const config = input.tableBookingConfig;
  if (config === undefined) return undefined;
  if (config === null) return INHERIT;
  const tables = config.tables ?? {};
  if (config.mode !== 'CUSTOM') {
    if (Object.keys(tables).length > 0) throw badRequest('GENERAL_ERROR', `tableBookingConfig.tables is only for mode CUSTOM, not ${config.mode}`);
    return { mode: config.mode };
  }
  return { mode: 'CUSTOM', tables: checkTables(tables, index) };
}

function checkTables(tables: Record<string, TableBooking>, index: ObjectIndex): Record<string, TableBooking> {
  for (const label of Object.keys(tables)) {
    if (knownObject(index, label).objectType !== 'table') throw badRequest('GENERAL_ERROR', `${label} is not a table`);
  }
  return { ...tables };
}

/** Event-level categories: the same rules as a chart's (key, label, CSS colour, unique keys). */
export function eventLevelCategories(inputs: CategoryInput[]): IndexedCategory[] {
  return newCategories(inputs).map(indexCategory);
}

/** 400 unless every label is an object of the chart and every key a category of the event. */
export function checkObjectCategories(
  objectCategories: Record<string, CategoryKey>,
  index: ObjectIndex,
  categories: IndexedCategory[],
): Record<string, CategoryKey> {
  for (const label of Object.keys(objectCategories)) knownObject(index, label);
  checkCategoryReferences(objectCategories, index, categories);
  return { ...objectCategories };
}

/** 400 unless every category key named is one of the chart's or one of `categories` (the event's own). */
function checkCategoryReferences(objectCategories: Record<string, CategoryKey>, index: ObjectIndex, categories: IndexedCategory[]): void {
  const known = new Set(eventCategories({ categories }, index).map((c) => categoryId(c.key)));
  for (const [label, key] of Object.entries(objectCategories)) {
    if (!known.has(categoryId(key))) {
      throw badRequest('CATEGORY_NOT_FOUND', `objectCategories: ${label} names category ${JSON.stringify(key)}, which neither the chart nor the event has`);
    }
  }
}

export interface EventSettingsInput extends TableBookingInput {
  name?: string | null;
  date?: string | null;
  objectCategories?: Record<string, CategoryKey> | null;
  categories?: CategoryInput[] | null;
}

export type EventSettings = Pick<EventDoc, 'name' | 'date' | 'tableBookingConfig' | 'objectCategories' | 'categories'>;

/** The settings of a new event; what the input leaves out gets its default. */
export function newEventSettings(input: EventSettingsInput, index: ObjectIndex, today: Date): EventSettings {
  const categories = eventLevelCategories(input.categories ?? []);
  return {
    name: input.name ?? null,
    date: input.date === undefined || input.date === null ? null : checkEventDate(input.date, today),
    tableBookingConfig: tableBookingFrom(input, index) ?? INHERIT,
    objectCategories: checkObjectCategories(input.objectCategories ?? {}, index, categories),
    categories,
  };
}

export interface EventUpdateInput extends EventSettingsInput {
  eventKey?: string;
  /** Only the event's own chart: moving an event to another chart is not supported. */
  chartKey?: string;
  isInThePast?: boolean;
}

/**
 * What an update changes: only the fields given. `categories` and `objectCategories` given
 * as null or empty remove the overrides. Object categories are checked against the
 * categories the event has afterwards, so removing a category still in use is refused.
 */
export function eventUpdate(event: EventDoc, input: EventUpdateInput, index: ObjectIndex, today: Date): EventChange {
  // Refused rather than ignored: a client asking to move the event must not get a 204 for it.
  if (input.chartKey !== undefined && input.chartKey !== event.chartKey) {
    throw badRequest('GENERAL_ERROR', `moving event ${event.key} to another chart (${input.chartKey}) is not supported`);
  }
  const change: EventChange = {};
  if (input.eventKey !== undefined && input.eventKey !== event.key) change.key = input.eventKey;
  if (input.name !== undefined) change.name = input.name;
  if (input.date !== undefined) change.date = input.date === null ? null : checkEventDate(input.date, today);
  const tableBooking = tableBookingFrom(input, index);
  if (tableBooking) change.tableBookingConfig = tableBooking;
  if (input.categories !== undefined) change.categories = eventLevelCategories(input.categories ?? []);
  if (input.objectCategories !== undefined) {
    change.objectCategories = checkObjectCategories(input.objectCategories ?? {}, index, change.categories ?? event.categories);
  } else if (change.categories) {
    // The labels were checked when they were set; what may have gone is a category they name.
    checkCategoryReferences(event.objectCategories, index, change.categories);
  }
  // One way: an event is moved into the past, never back (a past event refuses every change).
  if (input.isInThePast === true) change.isInThePast = true;
  return change;
}
