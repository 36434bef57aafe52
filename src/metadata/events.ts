import type { Collection, Db } from 'mongodb';
import { insertWithNewId } from './counters.js';

// Events as far as charts need them: which events use a chart (chart status, expand=events).
// The events feature extends this record with its configuration.

export interface EventDoc {
  _id: number;
  workspaceId: number;
  chartId: number;
  key: string;
  /** How tables are booked; absent means INHERIT (the chart's own settings). */
  tableBookingConfig?: { mode: 'INHERIT' | 'CUSTOM' | 'ALL_BY_SEAT' | 'ALL_BY_TABLE'; tables?: Record<string, 'BY_TABLE' | 'BY_SEAT'> };
  createdOn: Date;
}

export class Events {
  private readonly events: Collection<EventDoc>;

  constructor(private readonly db: Db) {
    this.events = db.collection<EventDoc>('events');
  }

  create(fields: Omit<EventDoc, '_id' | 'createdOn'>): Promise<EventDoc> {
    return insertWithNewId(this.db, 'events', async (id) => {
      const doc: EventDoc = { _id: id, ...fields, createdOn: new Date() };
      await this.events.insertOne(doc);
      return doc;
    });
  }

  /** The newest `limit` events of a chart, newest first. */
  listByChart(chartId: number, limit: number): Promise<EventDoc[]> {
    return this.events.find({ chartId }).sort({ _id: -1 }).limit(limit).toArray();
  }
}
