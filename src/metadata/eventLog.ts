import type { Collection, Db } from 'mongodb';
import type { Page, PageRequest } from '../domain/pagination.js';
import { insertWithNewId } from './counters.js';
import { paginate } from './paginate.js';

// The event log (docs/seatsio-behaviour.md, "Event log"): what admins changed in a workspace
// (charts created and published, events created, updated and deleted, the workspace
// created), oldest first.

export type EventLogType = 'chart.created' | 'chart.published' | 'event.created' | 'event.updated' | 'event.deleted' | 'workspace.created';

export interface EventLogEntry {
  _id: number;
  workspaceId: number;
  type: EventLogType;
  timestamp: Date;
  /** The key of the chart or event it is about. */
  key?: string;
}

export class EventLog {
  private readonly collection: Collection<EventLogEntry>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<EventLogEntry>('eventLog');
  }

  async record(workspaceId: number, type: EventLogType, key?: string): Promise<void> {
    await insertWithNewId(this.db, 'eventLog', (id) => this.collection.insertOne({ _id: id, workspaceId, type, timestamp: new Date(), ...(key === undefined ? {} : { key }) }));
  }

  page<T extends { id: number }>(workspaceId: number, request: PageRequest, toItem: (entry: EventLogEntry) => T): Promise<Page<T>> {
    return paginate(this.collection, { workspaceId }, request, toItem, true);
  }
}
