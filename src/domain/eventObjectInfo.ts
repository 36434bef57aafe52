import type { EventDoc } from './event.js';
import { directRules, type ObjectRules } from './eventObjectRules.js';
import { describeObject, distanceToFocalPoint, SEAT_PROPERTIES, type ChartObject, type IndexedCategory, type ObjectIndex, type ObjectTraits } from './objectIndex.js';
import { HELD, type AreaState, type ObjectState } from './objectStates.js';

// An object of an event as clients see it (docs/seatsio-behaviour.md, "Object info"): the chart's
// description of the object, the event's category and sale settings, and its state.

type EventSettings = Pick<EventDoc, 'objectCategories' | 'categories' | 'tableBookingConfig' | 'channels' | 'forSaleConfig'>;

export interface ObjectSnapshot {
  state: ObjectState | AreaState;
  /** Parsed extra data, when set. */
  extraData?: Record<string, unknown>;
  /** The event overrides its season's status of this object (docs/seasons.md, "Overrides"). */
  seasonStatusOverridden?: boolean;
  /** On a season: why an object free on it is unavailable there (taken in an event: its status; or not_for_sale). */
  unavailable?: string;
  /** GA in a unit of a season: places the other units keep from it (docs/seasons.md, "Rules"). */
  seasonTakenPlaces?: number;
}

const isArea = (state: ObjectState | AreaState): state is AreaState => 'nonFree' in state;

/** A GA area's places as object info counts them. */
export interface AreaPlaces {
  numBooked: number;
  numHeld: number;
  numFree: number;
  numNotForSale: number;
}

/** What an object's state and sale settings make of it: the status and availability object info shows. */
export interface ObjectStanding {
  status: string;
  forSale: boolean;
  isAvailable: boolean;
  availabilityReason: string;
  /** GA areas only. */
  places: AreaPlaces | null;
}

/** The standing of a seat, table or booth in `status` (outside seasons: nothing else makes it unavailable). */
export function seatStanding(status: string, notForSale: number): ObjectStanding {
  const selectable = status === 'free' || status === 'resale';
  return {
    status,
    forSale: notForSale === 0,
    isAvailable: selectable && notForSale === 0,
    availabilityReason: notForSale > 0 ? 'not_for_sale' : selectable ? 'available' : status,
    places: null,
  };
}

/**
 * The status a GA area shows (docs/seatsio-behaviour.md, "Object statuses"): held while any
 * of its places is held; otherwise free until all its places are taken, then the last
 * status set on it. Its places by what they are stay in numBooked, numHeld and numFree.
 */
export function areaStatus(state: AreaState, capacity: number): string {
  if (state.held > 0) return HELD;
  return state.nonFree < capacity ? 'free' : state.status;
}

/** The status and availability of an object, given its snapshot and how many of its places are off sale. */
export function objectStanding(object: ChartObject, snapshot: ObjectSnapshot, notForSale: number): ObjectStanding {
  const { state } = snapshot;
  let standing: ObjectStanding;
  if (isArea(state)) {
    const held = state.held;
    const free = Math.max(0, object.capacity - state.nonFree - held - notForSale - (snapshot.seasonTakenPlaces ?? 0));
    const status = areaStatus(state, object.capacity);
    standing = {
      status,
      forSale: notForSale < object.capacity,
      isAvailable: free > 0,
      availabilityReason: free > 0 ? 'available' : notForSale >= object.capacity ? 'not_for_sale' : status,
      places: { numBooked: state.nonFree, numHeld: held, numFree: free, numNotForSale: notForSale },
    };
  } else {
    standing = seatStanding(state.status, notForSale);
  }
  if (snapshot.unavailable && standing.isAvailable) {
    standing.isAvailable = false;
    standing.availabilityReason = snapshot.unavailable;
  }
  return standing;
}

/**
 * What object info adds to the chart's description of an object (describeObject): its
 * category in the event, status, availability, sale and booking fields, in that order.
 */
export function eventFields(object: ChartObject, snapshot: ObjectSnapshot, rules: ObjectRules): Record<string, unknown> {
  const category = rules.category(object);
  const info: Record<string, unknown> = { categoryKey: category ? String(category.key) : undefined, categoryLabel: category?.label };
  const standing = objectStanding(object, snapshot, rules.notForSale(object));
  const { state } = snapshot;
  if (isArea(state)) {
    Object.assign(info, standing.places);
    info.forSale = standing.forSale;
    if (state.holds && state.holds.size > 0) {
      info.holds = Object.fromEntries(
        [...state.holds].map(([token, byTicketType]) => [
          token,
          Object.fromEntries([...byTicketType].map(([ticketType, places]) => [ticketType || 'NO_TICKET_TYPE', places])),
        ]),
      );
    }
  } else {
    if (state.holdToken) info.holdToken = state.holdToken;
    if (state.orderId) info.orderId = state.orderId;
    if (state.ticketType) info.ticketType = state.ticketType;
    if (state.resaleListingId) info.resaleListingId = state.resaleListingId;
    info.forSale = standing.forSale;
  }
  info.isAvailable = standing.isAvailable;
  info.availabilityReason = standing.availabilityReason;
  info.status = standing.status;
  if (snapshot.extraData) info.extraData = snapshot.extraData;
  const channel = rules.channel(object.label);
  if (channel) info.channel = channel;
  info.seasonStatusOverriddenQuantity = snapshot.seasonStatusOverridden ? 1 : 0;
  return info;
}

export function describeEventObject(
  event: EventSettings,
  index: ObjectIndex,
  object: ChartObject,
  snapshot: ObjectSnapshot,
  rules: ObjectRules = directRules(event, index),
): Record<string, unknown> {
  // The event's category replaces the chart's in place; the other fields follow.
  return Object.assign(describeObject(index, object), eventFields(object, snapshot, rules));
}

/**
 * The chart's description of an object as JSON members (no braces), without its category
 * (the event's may differ): the part of an object info's JSON that never changes. The
 * members and their order are describeObject's, written directly: through describeObject
 * and JSON.stringify it took 0.3 s per 100,000 objects, which big reports spent on every
 * report or kept as text (some 50 MB per 100,000-object chart version).
 * test/unit/reports.test.ts checks it against JSON.stringify(describeObject(...)).
 */
export function chartMembersJson(index: ObjectIndex, object: ChartObject): string {
  const q = JSON.stringify;
  const parts = traitParts(object.traits);
  const own = q(object.ownLabel);
  let json = `"label":${q(object.label)},"labels":{"own":{"label":${own}${parts.afterOwnLabel}${own}${parts.afterOwnId}`;
  if (object.objectType === 'seat') {
    json += SEAT_FLAGS_JSON[object.seatFlags]!;
    if (object.left >= 0) json += `,"leftNeighbour":${q(index.objects[object.left]!.label)}`;
    if (object.right >= 0) json += `,"rightNeighbour":${q(index.objects[object.right]!.label)}`;
  }
  json += parts.last;
  if (index.focalPoint) json += `,"distanceToFocalPoint":${q(distanceToFocalPoint(object, index.focalPoint))}`;
  return json;
}

/** What chartMembersJson writes the same for every object of one ObjectTraits: made once per traits record (a row, a table). */
interface TraitParts {
  /** From the own label's type to the own id. */
  afterOwnLabel: string;
  /** From the own id to the seat properties. */
  afterOwnId: string;
  /** After the neighbours, before the distance. */
  last: string;
}

const traitPartsOf = new WeakMap<ObjectTraits, TraitParts>();

function traitParts(traits: ObjectTraits): TraitParts {
  let parts = traitPartsOf.get(traits);
  if (parts) return parts;
  const q = JSON.stringify;
  const { objectType, parent, section, floor } = traits;
  let afterOwnLabel = `,"type":"${objectType}"}`;
  if (parent) afterOwnLabel += `,"parent":{"label":${q(parent.label)},"type":"${parent.type}"}`;
  if (section) afterOwnLabel += `,"section":${q(section.label)}`;
  if (traits.entrance !== null) afterOwnLabel += `,"entrance":{"label":${q(traits.entrance)}}`;
  afterOwnLabel += '},"ids":{"own":';
  let afterOwnId = `,"parent":${parent ? q(parent.label) : 'null'}${section ? `,"section":${q(section.label)}` : ''}},"objectType":"${objectType}"`;
  if (section) afterOwnId += `,"section":${q(section.label)}`;
  if (traits.entrance !== null) afterOwnId += `,"entrance":${q(traits.entrance)}`;
  let last = '';
  if (objectType === 'generalAdmission') {
    const area = traits.generalAdmission!;
    last += `,"capacity":${q(traits.capacity)},"bookAsAWhole":${traits.bookAsAWhole},"variableOccupancy":${q(area.variableOccupancy)},"minOccupancy":${q(area.minOccupancy)},"maxOccupancy":${q(traits.capacity)}`;
  }
  if (objectType === 'table') last += `,"numSeats":${q(traits.capacity)},"bookAsAWhole":${traits.bookAsAWhole}`;
  if (section?.zone) last += `,"zone":${q(section.zone)}`;
  if (floor) last += `,"floor":{"name":${q(floor.name)},"displayName":${q(floor.displayName)}}`;
  traitPartsOf.set(traits, (parts = { afterOwnLabel, afterOwnId, last }));
  return parts;
}

/** The seat properties' members for each combination of SEAT_PROPERTIES bits, in describeObject's order. */
const SEAT_FLAGS_JSON = Array.from({ length: 1 << SEAT_PROPERTIES.length }, (_, flags) =>
  SEAT_PROPERTIES.map(([, name], bit) => `,"${name}":${(flags & (1 << bit)) !== 0}`).join(''),
);

/** Event fields as the JSON members that follow the chart's in an object info, with its closing brace. */
const fieldsText = (fields: Record<string, unknown>): string => JSON.stringify(fields).slice(1);

/** Object info as JSON from chartMembersJson and the event fields' text (fieldsText). */
export const objectInfoJson = (chartMembers: string, fields: string): string => `{${chartMembers},${fields}`;

/** Object info as JSON from chartMembersJson and eventFields: the members JSON.stringify(describeEventObject(...)) has. */
export const eventObjectJson = (chartMembers: string, fields: Record<string, unknown>): string => objectInfoJson(chartMembers, fieldsText(fields));

/** An object's event fields, and their text for objectInfoJson (made when asked). */
export interface FieldsAndText {
  fields: Record<string, unknown>;
  text: () => string;
}

/**
 * The event fields of many objects of one event and one reading of its state (a big
 * report), each with its text. A seat, table or booth whose state is a status alone (no
 * hold token, order id, ticket type, resale listing, extra data or season mark: every free
 * object of a venue, and most sold ones) has the same fields as every other such object of
 * its category, places off sale, channel and status: those are made and written once per
 * report, not once per object (some 0.1 s of a 100,000-object detailed report). The fields
 * are shared: callers only read them.
 */
export class EventFieldsCache {
  private readonly shared = new Map<IndexedCategory | null, Map<string, FieldsAndText>>();

  constructor(private readonly rules: ObjectRules) {}

  of(object: ChartObject, snapshot: ObjectSnapshot): FieldsAndText {
    if (!isStatusAlone(snapshot)) return withText(eventFields(object, snapshot, this.rules));
    const { rules } = this;
    const category = rules.category(object);
    let byRest = this.shared.get(category);
    if (!byRest) this.shared.set(category, (byRest = new Map()));
    const key = `${rules.notForSale(object)}\u0000${rules.channel(object.label) ?? ''}\u0000${(snapshot.state as ObjectState).status}`;
    let entry = byRest.get(key);
    if (!entry) {
      const fields = eventFields(object, snapshot, rules);
      const text = fieldsText(fields);
      byRest.set(key, (entry = { fields, text: () => text }));
    }
    return entry;
  }
}

const withText = (fields: Record<string, unknown>): FieldsAndText => ({ fields, text: () => fieldsText(fields) });

/** A seat's, table's or booth's snapshot that says nothing but its status (what eventFields then reads of it). */
function isStatusAlone(snapshot: ObjectSnapshot): boolean {
  const { state } = snapshot;
  if (isArea(state)) return false;
  return (
    state.holdToken === null &&
    state.orderId === null &&
    state.ticketType === null &&
    state.resaleListingId === null &&
    snapshot.extraData === undefined &&
    snapshot.unavailable === undefined &&
    !snapshot.seasonStatusOverridden
  );
}

/**
 * The info of objects that all have one seat-like snapshot (a best-available choice worded
 * from the state its change leaves, StatusChangeService.applyPlainAsJson), as the JSON text of
 * an object keyed by label: eventObjectJson's text of each, in the order an object keyed by
 * those labels lists them (array-index labels such as "7" first, in numeric order, then the
 * rest as given), which is the order the general way's answer has. Written straight as text:
 * an object keyed by labels would give V8 a new hidden class for nearly every label sold.
 * For such a snapshot an object's event fields depend on nothing but its category, places off
 * sale and channel (eventFields), and the objects of one choice mostly share those: each run
 * of objects with the same three is worded once, not once per object.
 */
export function sharedSnapshotJson(index: ObjectIndex, objects: readonly ChartObject[], snapshot: ObjectSnapshot, rules: ObjectRules): string {
  if (isArea(snapshot.state)) throw new Error('sharedSnapshotJson words seats, tables and booths only');
  let json = '';
  let fields = '';
  let category: IndexedCategory | null | undefined;
  let notForSale = -1;
  let channel: string | null | undefined;
  for (const object of inKeyOrder(objects)) {
    const ownCategory = rules.category(object);
    const ownNotForSale = rules.notForSale(object);
    const ownChannel = rules.channel(object.label);
    if (ownCategory !== category || ownNotForSale !== notForSale || ownChannel !== channel) {
      fields = fieldsText(eventFields(object, snapshot, rules));
      category = ownCategory;
      notForSale = ownNotForSale;
      channel = ownChannel;
    }
    json += `${json === '' ? '{' : ','}${JSON.stringify(object.label)}:{${chartMembersJson(index, object)},${fields}`;
  }
  return json === '' ? '{}' : `${json}}`;
}

/** A label JavaScript takes as an array index ("0" to "4294967294", no leading zero): such keys come first in an object, in numeric order. */
const isArrayIndex = (label: string): boolean => /^(?:0|[1-9][0-9]{0,9})$/.test(label) && Number(label) < 4294967295;

/** The objects in the order an object keyed by their labels lists its keys. */
function inKeyOrder(objects: readonly ChartObject[]): readonly ChartObject[] {
  if (!objects.some((object) => isArrayIndex(object.label))) return objects;
  const indexed = objects.filter((object) => isArrayIndex(object.label)).sort((a, b) => Number(a.label) - Number(b.label));
  return [...indexed, ...objects.filter((object) => !isArrayIndex(object.label))];
}
