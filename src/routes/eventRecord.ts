import { eventCategories } from '../domain/eventObjectRules.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import type { ChartDoc } from '../domain/chart.js';
import type { Channel, EventDoc } from '../domain/event.js';

// The event record (docs/seatsio-behaviour.md, "Events") as retrieve, list and update show it.
// Events here are never seasons: the season flags are all false until seasons exist.

export function eventRecord(event: EventDoc, chart: ChartDoc, index: ObjectIndex): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id: event._id,
    key: event.key,
    chartKey: event.chartKey,
    name: event.name,
    date: event.date,
    tableBookingConfig: event.tableBookingConfig,
    supportsBestAvailable: chart.published.hasFocalPoint,
    forSaleConfig: event.forSaleConfig,
    channels: event.channels.map(channelRecord),
    categories: eventCategories(event, index),
    createdOn: event.createdOn.toISOString(),
    updatedOn: event.updatedOn?.toISOString() ?? null,
    isSeason: false,
    isTopLevelSeason: false,
    isPartialSeason: false,
    isEventInSeason: false,
    isInThePast: event.isInThePast,
    // Deprecated, still read by older clients: tableBookingConfig.mode says the same.
    bookWholeTables: event.tableBookingConfig.mode === 'ALL_BY_TABLE',
  };
  // Absent, not {}, when the event overrides no object's category.
  if (Object.keys(event.objectCategories).length > 0) record.objectCategories = event.objectCategories;
  return record;
}

/** A channel as clients see it: `index` absent when none was given (seats.io omits it), `color` null. */
function channelRecord(channel: Channel): Omit<Channel, 'index'> | Channel {
  const { index, ...rest } = channel;
  return index === null ? rest : channel;
}

/** The create response names the key `eventKey` (docs/seatsio-behaviour.md, "Events"); SDKs read `key`, so both. */
export function createdEventRecord(event: EventDoc, chart: ChartDoc, index: ObjectIndex): Record<string, unknown> {
  return { eventKey: event.key, ...eventRecord(event, chart, index) };
}
