import type { EventDoc } from './event.js';
import { directRules, type ObjectRules } from './eventObjectRules.js';
import { describeObject, type ChartObject, type ObjectIndex } from './objectIndex.js';
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

/** The status and availability of an object, given its snapshot and how many of its places are off sale. */
export function objectStanding(object: ChartObject, snapshot: ObjectSnapshot, notForSale: number): ObjectStanding {
  const { state } = snapshot;
  let standing: ObjectStanding;
  if (isArea(state)) {
    const held = state.held;
    const free = Math.max(0, object.capacity - state.nonFree - held - notForSale - (snapshot.seasonTakenPlaces ?? 0));
    const full = state.nonFree + held >= object.capacity;
    const status = full ? (state.nonFree > 0 ? state.status : HELD) : 'free';
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
 * (the event's may differ): the part of an object info's JSON that never changes, which
 * big reports keep per chart version (src/services/objectInfoService.ts).
 */
export function chartMembersJson(index: ObjectIndex, object: ChartObject): string {
  const { categoryKey: _key, categoryLabel: _label, ...rest } = describeObject(index, object);
  return JSON.stringify(rest).slice(1, -1);
}

/** Object info as JSON from chartMembersJson and eventFields: the members JSON.stringify(describeEventObject(...)) has. */
export const eventObjectJson = (chartMembers: string, fields: Record<string, unknown>): string => `{${chartMembers},${JSON.stringify(fields).slice(1)}`;
