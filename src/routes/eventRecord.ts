import { eventCategories } from '../domain/eventObjectRules.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import type { ChartDoc } from '../domain/chart.js';
import type { Channel, EventDoc } from '../domain/event.js';
import { eventsOf, seasonFields, type SeasonFamily } from '../domain/season.js';
import type { EventChart, EventService } from '../services/eventService.js';
import type { SeasonService } from '../services/seasonService.js';

// The event record (docs/seatsio-behaviour.md, "Events") as retrieve, list and update show it,
// with the season flags and keys of docs/seasons.md, "Records".

/**
 * The record of an event, season or partial season. Units of a season show the season's
 * channels (they inherit them) before any of their own.
 */
export function eventRecord(event: EventDoc, chart: ChartDoc, index: ObjectIndex, family: SeasonFamily | null = null): Record<string, unknown> {
  const inherited = family && event.season?.role !== 'top' ? family.top.channels : [];
  const record: Record<string, unknown> = {
    id: event._id,
    key: event.key,
    chartKey: event.chartKey,
    name: event.name,
    date: event.date,
    tableBookingConfig: event.tableBookingConfig,
    supportsBestAvailable: chart.published.hasFocalPoint,
    forSaleConfig: event.forSaleConfig,
    channels: [...inherited, ...event.channels].map(channelRecord),
    categories: eventCategories(event, index),
    createdOn: event.createdOn.toISOString(),
    updatedOn: event.updatedOn?.toISOString() ?? null,
    ...seasonFields(event, family),
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
export function createdEventRecord(event: EventDoc, chart: ChartDoc, index: ObjectIndex, family: SeasonFamily | null = null): Record<string, unknown> {
  return { eventKey: event.key, ...eventRecord(event, chart, index, family) };
}

/**
 * Records of events and seasons as the admin routes answer them: one (a season with its
 * `events`), or a page (seasons without them, as seats.io lists them). Each chart is read
 * and each season's family loaded once per call.
 */
export function eventRecords(events: Pick<EventService, 'chartOf'>, seasons: Pick<SeasonService, 'familyOf'>) {
  async function build(docs: EventDoc[], withEvents: boolean): Promise<Record<string, unknown>[]> {
    const charts = new Map<number, Promise<EventChart>>();
    const families = new Map<string, Promise<SeasonFamily | null>>();
    const chartOf = (doc: EventDoc) => {
      if (!charts.has(doc.chartId)) charts.set(doc.chartId, events.chartOf(doc));
      return charts.get(doc.chartId)!;
    };
    const familyOf = (doc: EventDoc) => {
      if (!families.has(doc.tag)) families.set(doc.tag, seasons.familyOf(doc));
      return families.get(doc.tag)!;
    };
    return Promise.all(
      docs.map(async (doc) => {
        const [{ chart, index }, family] = await Promise.all([chartOf(doc), familyOf(doc)]);
        const record = eventRecord(doc, chart, index, family);
        if (withEvents && family && doc.season?.role !== 'event') record.events = eventsOf(doc, family).map((e) => eventRecord(e, chart, index, family));
        return record;
      }),
    );
  }
  return {
    one: async (doc: EventDoc) => (await build([doc], true))[0]!,
    many: (docs: EventDoc[]) => build(docs, false),
  };
}
