import { badRequest } from './errors.js';
import { knownObject } from './objectLabels.js';
import { categoryId, type ChartObject, type IndexedCategory, type ObjectIndex } from './objectIndex.js';
import type { EventDoc } from './event.js';
import { FIELD_SEPARATOR } from './objectStates.js';

// What an event makes of its chart's objects, without I/O: which category an object has
// (event overrides), whether a table is booked as a whole or by its seats, and which
// objects are in a channel or not for sale, as the fields the scripts read.

type EventSettings = Pick<EventDoc, 'objectCategories' | 'categories' | 'tableBookingConfig' | 'channels' | 'forSaleConfig'>;

/** The chart's categories followed by the event's own (docs/seatsio-behaviour.md, "Events"). */
export function eventCategories(event: Pick<EventDoc, 'categories'>, index: ObjectIndex): IndexedCategory[] {
  const own = new Set(event.categories.map((c) => categoryId(c.key)));
  return [...index.categories.filter((c) => !own.has(categoryId(c.key))), ...event.categories];
}

/** The object's category in this event: `objectCategories` wins over the drawing. */
export function categoryOf(event: EventSettings, index: ObjectIndex, object: ChartObject): IndexedCategory | null {
  const override = event.objectCategories[object.label];
  if (override === undefined) return object.category;
  const id = categoryId(override);
  return eventCategories(event, index).find((c) => categoryId(c.key) === id) ?? object.category;
}

/** Whether a table is booked as a whole in this event (docs/seatsio-behaviour.md, "Events"). */
export function bookedAsAWhole(event: Pick<EventDoc, 'tableBookingConfig'>, table: ChartObject): boolean {
  const { mode, tables } = event.tableBookingConfig;
  if (mode === 'ALL_BY_TABLE') return true;
  if (mode === 'ALL_BY_SEAT') return false;
  if (mode === 'CUSTOM' && tables?.[table.label]) return tables[table.label] === 'BY_TABLE';
  return table.bookAsAWhole;
}

/**
 * The object a label names, if clients may book it in this event: a table booked by its
 * seats is not, nor is a seat of a table booked as a whole. 400 otherwise.
 */
export function bookableObject(event: Pick<EventDoc, 'tableBookingConfig'>, index: ObjectIndex, label: string): ChartObject {
  const object = knownObject(index, label);
  const reason = notBookableReason(event, index, label);
  if (reason === 'SWITCHED_TO_BOOK_BY_SEAT') {
    throw badRequest('OBJECT_NOT_BOOKABLE', `Table ${label} is booked by seat in this event; book its seats instead`);
  }
  if (reason === 'SWITCHED_TO_BOOK_WHOLE_TABLE') {
    throw badRequest('OBJECT_NOT_BOOKABLE', `Seat ${label} is at a table booked as a whole in this event; book the table instead`);
  }
  return object;
}

/** Why a label is not something clients book in the event as its chart stands now. */
export type NotBookableReason = 'RENAMED_OR_DELETED' | 'SWITCHED_TO_BOOK_WHOLE_TABLE' | 'SWITCHED_TO_BOOK_BY_SEAT';

/** Null when the label is bookable in the event (the history says whether a change's object is still on the chart). */
export function notBookableReason(event: Pick<EventDoc, 'tableBookingConfig'>, index: ObjectIndex, label: string): NotBookableReason | null {
  const object = index.byLabel.get(label);
  if (!object) return 'RENAMED_OR_DELETED';
  if (object.objectType === 'table' && !bookedAsAWhole(event, object)) return 'SWITCHED_TO_BOOK_BY_SEAT';
  if (object.table >= 0 && bookedAsAWhole(event, index.objects[object.table]!)) return 'SWITCHED_TO_BOOK_WHOLE_TABLE';
  return null;
}

/** The objects clients book in this event: tables by their mode, GA areas, booths and free-standing seats. */
export function bookableObjects(event: Pick<EventDoc, 'tableBookingConfig'>, index: ObjectIndex): ChartObject[] {
  return index.objects.filter((object) => {
    if (object.objectType === 'table') return bookedAsAWhole(event, object);
    return object.table < 0 || !bookedAsAWhole(event, index.objects[object.table]!);
  });
}

/** Does a request's category entry name this category: its key, or its label case-insensitively (for-sale config, best available)? */
export function namesCategory(entry: string | number, category: IndexedCategory): boolean {
  return categoryId(entry) === categoryId(category.key) || String(entry).toLowerCase() === category.label.toLowerCase();
}

/** Does any of the entries name this category? */
const matchesCategory = (entries: (string | number)[], category: IndexedCategory | null): boolean =>
  category !== null && entries.some((entry) => namesCategory(entry, category));

/** The key of the channel an object is in, if any. */
export function channelOf(event: Pick<EventDoc, 'channels'>, label: string): string | null {
  return event.channels.find((channel) => channel.objects.includes(label))?.key ?? null;
}

/** How many of an object's places the for-sale config takes off sale (0 when all are for sale). */
export function notForSalePlaces(event: EventSettings, index: ObjectIndex, object: ChartObject): number {
  const config = event.forSaleConfig;
  if (!config) return 0;
  return placesOffSale(config, object, config.objects.includes(object.label), categoryOf(event, index, object));
}

/** notForSalePlaces, given whether the config's object list names the object and the object's category. */
function placesOffSale(config: NonNullable<EventSettings['forSaleConfig']>, object: ChartObject, listed: boolean, category: IndexedCategory | null): number {
  const inList = listed || matchesCategory(config.categories, category);
  const areaPlaces = config.areaPlaces[object.label];
  const places = object.objectType === 'generalAdmission' ? object.capacity : 1;
  if (config.forSale) {
    // Only what is listed is for sale; area places listed are the places for sale.
    return inList ? 0 : areaPlaces !== undefined ? Math.max(0, object.capacity - areaPlaces) : places;
  }
  return inList ? places : areaPlaces !== undefined ? Math.min(object.capacity, areaPlaces) : 0;
}

/**
 * The event's channels and for-sale config as the scripts read them, one hash:
 * - `c:<label>` = the key of the channel the object is in;
 * - `a:<label>` = the places of a GA area assigned to channels (areaPlaces):
 *   `channel \x1f places \x1f channel \x1f places ...`;
 * - `n:<label>` = how many of its places are not for sale (1 for a seat, table or booth;
 *   up to the capacity for a GA area).
 * Objects in neither have no field, so an event with neither has an empty hash.
 */
export function saleConfigFields(event: EventSettings, index: ObjectIndex): Map<string, string> {
  const fields = new Map<string, string>();
  const allotments = new Map<string, string[]>();
  for (const channel of event.channels) {
    for (const label of channel.objects) fields.set(`c:${label}`, channel.key);
    for (const [label, places] of Object.entries(channel.areaPlaces ?? {})) {
      allotments.set(label, [...(allotments.get(label) ?? []), channel.key, String(places)]);
    }
  }
  for (const [label, entries] of allotments) fields.set(`a:${label}`, entries.join(FIELD_SEPARATOR));
  if (!event.forSaleConfig) return fields;
  for (const object of index.objects) {
    const notForSale = notForSalePlaces(event, index, object);
    if (notForSale > 0) fields.set(`n:${object.label}`, String(notForSale));
  }
  return fields;
}

/** The places not for sale by label, read back from a sale config hash (its `n:<label>` fields, saleConfigFields). */
export function notForSaleOfFields(fields: Record<string, string>): Map<string, number> {
  const places = new Map<string, number>();
  for (const [field, value] of Object.entries(fields)) if (field.startsWith('n:')) places.set(field.slice(2), Number(value));
  return places;
}

/** What an event makes of one object: its category, its places off sale, its channel. */
export interface ObjectRules {
  category(object: ChartObject): IndexedCategory | null;
  notForSale(object: ChartObject): number;
  channel(label: string): string | null;
}

/**
 * Whether the event gives any object a category of its own (objectCategories). Most do not:
 * then every object has its chart category, and the rules need no look-up by label.
 */
export function overridesCategories(event: Pick<EventDoc, 'objectCategories'>): boolean {
  for (const _ in event.objectCategories) return true;
  return false;
}

/** The rules read straight from the event's settings: for describing a few objects. */
export function directRules(event: EventSettings, index: ObjectIndex): ObjectRules {
  const overrides = overridesCategories(event);
  return {
    category: (object) => (overrides ? categoryOf(event, index, object) : object.category),
    notForSale: (object) => notForSalePlaces(event, index, object),
    channel: (label) => channelOf(event, label),
  };
}

/**
 * The same rules with the channels' and for-sale config's object lists turned into maps
 * once: describing every object of a big event must not scan those lists per object.
 */
export function indexedRules(event: EventSettings, index: ObjectIndex): ObjectRules {
  const channels = new Map<string, string>();
  // channelOf answers the first channel listing an object.
  for (const channel of [...event.channels].reverse()) for (const label of channel.objects) channels.set(label, channel.key);
  const config = event.forSaleConfig;
  const listed = new Set(config?.objects ?? []);
  const overrides = overridesCategories(event);
  const category = (object: ChartObject) => (overrides && event.objectCategories[object.label] !== undefined ? categoryOf(event, index, object) : object.category);
  return {
    category,
    notForSale: (object) => (config ? placesOffSale(config, object, listed.has(object.label), category(object)) : 0),
    channel: (label) => channels.get(label) ?? null,
  };
}
