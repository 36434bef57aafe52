import type { Collection, Db } from 'mongodb';
import type { CategoryKey } from '../domain/drawing.js';
import type { IndexedCategory } from '../domain/objectIndex.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import { insertWithNewId } from './counters.js';
import { setIfUnchanged } from './conditionalWrite.js';
import { paginate } from './paginate.js';

// Events: the configuration of one sale on a chart. Object statuses are not here: they
// live in Redis (src/inventory), under the hash tag `tag` kept on the record so the sales
// flow builds every key without a lookup.

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
  /** Redis hash tag of the event's inventory keys: its own id, or its season's. */
  tag: string;
  /** Bucket keys of its used objects per month, from its chart's size at creation (usage.ts). */
  usedBuckets?: number;
  createdOn: Date;
  updatedOn: Date | null;
  /** Bumped on every change; writes are conditional on it. */
  version: number;
}

export type NewEvent = Omit<EventDoc, '_id' | 'tag' | 'createdOn' | 'updatedOn' | 'version'>;
export type EventChange = Partial<Omit<EventDoc, '_id' | 'workspaceId' | 'chartId' | 'chartKey' | 'tag' | 'createdOn' | 'version'>>;

export class Events {
  private readonly events: Collection<EventDoc>;

  constructor(private readonly db: Db) {
    this.events = db.collection<EventDoc>('events');
  }

  /** Inserts the event; a taken key surfaces as MongoDB's duplicate-key error (E11000). */
  create(fields: NewEvent): Promise<EventDoc> {
    return insertWithNewId(this.db, 'events', async (id) => {
      const doc: EventDoc = { _id: id, ...fields, tag: String(id), createdOn: new Date(), updatedOn: null, version: 1 };
      await this.events.insertOne(doc);
      return doc;
    });
  }

  findByKey(workspaceId: number, key: string): Promise<EventDoc | null> {
    return this.events.findOne({ workspaceId, key });
  }

  findById(id: number): Promise<EventDoc | null> {
    return this.events.findOne({ _id: id });
  }

  /** Applies the change if the event is still at `version`; false if it moved on meanwhile. */
  async update(doc: EventDoc, change: EventChange): Promise<EventDoc | undefined> {
    const fields = { ...change, updatedOn: new Date() };
    return (await setIfUnchanged<EventDoc>(this.events, doc, fields)) ? { ...doc, ...fields, version: doc.version + 1 } : undefined;
  }

  async delete(id: number): Promise<void> {
    await this.events.deleteOne({ _id: id });
  }

  list<T extends { id: number }>(workspaceId: number, request: PageRequest, toItem: (doc: EventDoc) => T): Promise<Page<T>> {
    return paginate(this.events, { workspaceId }, request, toItem);
  }

  /** Every event of a chart. */
  onChart(chartId: number): Promise<EventDoc[]> {
    return this.events.find({ chartId }).toArray();
  }

  /** The newest `limit` events of a chart, newest first. */
  listByChart(chartId: number, limit: number): Promise<EventDoc[]> {
    return this.events.find({ chartId }).sort({ _id: -1 }).limit(limit).toArray();
  }
}
