import type { EventDoc } from './event.js';
import { categoryOf, channelOf, notForSalePlaces } from './eventObjectRules.js';
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

export function describeEventObject(
  event: EventSettings,
  index: ObjectIndex,
  object: ChartObject,
  snapshot: ObjectSnapshot,
): Record<string, unknown> {
  const info = describeObject(index, object);
  const category = categoryOf(event, index, object);
  info.categoryKey = category ? String(category.key) : undefined;
  info.categoryLabel = category?.label;
  const notForSale = notForSalePlaces(event, index, object);
  const { state } = snapshot;
  let status: string;
  if (isArea(state)) {
    const held = state.held;
    const free = Math.max(0, object.capacity - state.nonFree - held - notForSale - (snapshot.seasonTakenPlaces ?? 0));
    const full = state.nonFree + held >= object.capacity;
    status = full ? (state.nonFree > 0 ? state.status : HELD) : 'free';
    info.numBooked = state.nonFree;
    info.numHeld = held;
    info.numFree = free;
    info.numNotForSale = notForSale;
    info.forSale = notForSale < object.capacity;
    if (state.holds && state.holds.size > 0) {
      info.holds = Object.fromEntries(
        [...state.holds].map(([token, byTicketType]) => [
          token,
          Object.fromEntries([...byTicketType].map(([ticketType, places]) => [ticketType || 'NO_TICKET_TYPE', places])),
        ]),
      );
    }
    info.isAvailable = free > 0;
    info.availabilityReason = free > 0 ? 'available' : notForSale >= object.capacity ? 'not_for_sale' : status;
  } else {
    status = state.status;
    if (state.holdToken) info.holdToken = state.holdToken;
    if (state.orderId) info.orderId = state.orderId;
    if (state.ticketType) info.ticketType = state.ticketType;
    if (state.resaleListingId) info.resaleListingId = state.resaleListingId;
    info.forSale = notForSale === 0;
    const selectable = status === 'free' || status === 'resale';
    info.isAvailable = selectable && notForSale === 0;
    info.availabilityReason = notForSale > 0 ? 'not_for_sale' : selectable ? 'available' : status;
  }
  info.status = status;
  if (snapshot.unavailable && info.isAvailable) {
    info.isAvailable = false;
    info.availabilityReason = snapshot.unavailable;
  }
  if (snapshot.extraData) info.extraData = snapshot.extraData;
  const channel = channelOf(event, object.label);
  if (channel) info.channel = channel;
  info.seasonStatusOverriddenQuantity = snapshot.seasonStatusOverridden ? 1 : 0;
  return info;
}
