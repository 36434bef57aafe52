import type { CategoryKey } from './drawing.js';
import type { IndexedCategory } from './objectIndex.js';

// An event: the configuration of one sale on a chart, as the domain rules read it and the
// metadata store keeps it. Object statuses are not here: they live in Redis
// (src/inventory), under the hash tag `tag` kept on the event so the sales flow builds
// every key without a lookup.

export type TableBookingMode = 'INHERIT' | 'CUSTOM' | 'ALL_BY_SEAT' | 'ALL_BY_TABLE';
export type TableBooking = 'BY_TABLE' | 'BY_SEAT';

export interface TableBookingConfig {
  mode: TableBookingMode;
  /** Only with mode CUSTOM: table label -> how it is booked. */
  tables?: Record<string, TableBooking>;
}

export interface Channel {
  id: string;
  key: string;
  name: string;
  /** Optional on the wire: null when the client gave none (the SDK tests expect null back). */
  color: string | null;
  /** Null when the client gave none; then the event record leaves it out. */
  index: number | null;
  objects: string[];
  areaPlaces: Record<string, number>;
}

export interface ForSaleConfig {
  forSale: boolean;
  objects: string[];
  areaPlaces: Record<string, number>;
  /** Category keys or labels as the caller gave them. */
  categories: (string | number)[];
}

export interface EventDoc {
  _id: number;
  workspaceId: number;
  chartId: number;
  chartKey: string;
  key: string;
  name: string | null;
  date: string | null;
  tableBookingConfig: TableBookingConfig;
  /** Object label -> category key (chart or event-level), overriding the drawing. */
  objectCategories: Record<string, CategoryKey>;
  /** Event-level categories, added to the chart's. */
  categories: IndexedCategory[];
  channels: Channel[];
  forSaleConfig: ForSaleConfig | null;
  isInThePast: boolean;
  /** Its place in a season (src/domain/season.ts); absent for an event outside any season. */
  season?: SeasonLink;
  /** Redis hash tag of the event's inventory keys: its own id, or its season's. */
  tag: string;
  /** Bucket keys of its used objects per month, from its chart's size at creation (src/domain/usedBuckets.ts). */
  usedBuckets?: number;
  createdOn: Date;
  updatedOn: Date | null;
  /** Bumped on every change; writes are conditional on it. */
  version: number;
}

export type NewEvent = Omit<EventDoc, '_id' | 'tag' | 'createdOn' | 'updatedOn' | 'version'>;
export type EventChange = Partial<Omit<EventDoc, '_id' | 'workspaceId' | 'chartId' | 'chartKey' | 'tag' | 'createdOn' | 'version' | 'season'>>;

/**
 * Where a document stands in a season (docs/seasons.md): the top-level season itself, one
 * of its partial seasons (a subset of its events), or one of its events. Every one of them
 * shares the top-level season's hash tag.
 */
export type SeasonLink =
  | { role: 'top'; forSalePropagated: boolean }
  | { role: 'partial'; topId: number; eventIds: number[] }
  | { role: 'event'; topId: number };
