import type { Collection, Db } from 'mongodb';
import type { EventChange, EventDoc, NewEvent, SeasonLink } from '../domain/event.js';
import type { Page, PageRequest } from '../domain/pagination.js';
import { insertWithNewId } from './counters.js';
import { setIfUnchanged } from './conditionalWrite.js';
import { paginate } from './paginate.js';

// The events collection (the event's fields are described in src/domain/event.ts).

export class Events {
  private readonly events: Collection<EventDoc>;

  constructor(private readonly db: Db) {
    this.events = db.collection<EventDoc>('events');
  }

  /**
   * Inserts the event; a taken key surfaces as MongoDB's duplicate-key error (E11000). Its
   * hash tag is its own id, or `tag` (its season's) for a unit of a season.
   */
  create(fields: NewEvent, tag?: string): Promise<EventDoc> {
    return insertWithNewId(this.db, 'events', async (id) => {
      const doc: EventDoc = { _id: id, ...fields, tag: tag ?? String(id), createdOn: new Date(), updatedOn: null, version: 1 };
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
  update(doc: EventDoc, change: EventChange): Promise<EventDoc | undefined> {
    return this.setIfAt(doc, change);
  }

  /** Moves the event to another chart if it is still at its version; undefined if it moved on. */
  moveToChart(doc: EventDoc, chartId: number, chartKey: string): Promise<EventDoc | undefined> {
    return this.setIfAt(doc, { chartId, chartKey });
  }

  /** Replaces the season link of a unit if it is still at its version; undefined if it moved on. */
  relink(doc: EventDoc, season: SeasonLink): Promise<EventDoc | undefined> {
    return this.setIfAt(doc, { season });
  }

  /** Sets the fields (and updatedOn) if the event is still at its version: the event as written, or undefined. */
  private async setIfAt(doc: EventDoc, change: Partial<EventDoc>): Promise<EventDoc | undefined> {
    const fields = { ...change, updatedOn: new Date() };
    return (await setIfUnchanged<EventDoc>(this.events, doc, fields)) ? { ...doc, ...fields, version: doc.version + 1 } : undefined;
  }

  /** The top-level season `topId` with its partial seasons and events. */
  seasonFamily(topId: number): Promise<EventDoc[]> {
    return this.events.find({ $or: [{ _id: topId }, { 'season.topId': topId }] }).toArray();
  }

  async delete(id: number): Promise<void> {
    await this.events.deleteOne({ _id: id });
  }

  list<T extends { id: number }>(workspaceId: number, request: PageRequest, toItem: (doc: EventDoc) => T): Promise<Page<T>> {
    return paginate(this.events, { workspaceId }, request, toItem);
  }

  /** Whether any event uses the chart. */
  async anyOnChart(chartId: number): Promise<boolean> {
    return (await this.events.countDocuments({ chartId }, { limit: 1 })) > 0;
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
