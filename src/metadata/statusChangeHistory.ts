import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Db, type Filter } from 'mongodb';
import type { Page, PageRequest } from '../domain/pagination.js';
import type { StatusChangeRecord } from '../domain/statusChangeHistory.js';
import { containsFilter, paginateInOrder, type ListOrder } from './paginate.js';

// The stored status-change history (docs/history.md): one document per changed object,
// written by the drain (src/jobs/historyDrain.ts), read by the history routes.

export class StatusChangeHistory {
  private readonly collection: Collection<StatusChangeRecord>;

  constructor(db: Db) {
    this.collection = db.collection<StatusChangeRecord>('statusChanges');
  }

  /**
   * Stores changes; one already stored (same `_id`) is left as it is, so storing a batch
   * again after a failure part-way stores each change once. A plain insert first (the
   * usual case, and the fast one); when some were stored already, the batch again as
   * upserts that only insert: not every server goes on past the first duplicate of an
   * unordered insert.
   */
  async store(records: StatusChangeRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      await this.collection.insertMany(records, { ordered: false });
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError) || !onlyDuplicates(error)) throw error;
      const upserts: AnyBulkWriteOperation<StatusChangeRecord>[] = records.map((record) => ({
        updateOne: { filter: { _id: record._id }, update: { $setOnInsert: record }, upsert: true },
      }));
      await this.collection.bulkWrite(upserts, { ordered: false });
    }
  }

  /** A page of an event's changes, optionally of one object or of labels containing `filter`. */
  page(eventId: number, request: PageRequest, order: ListOrder, options: { label?: string; filter?: string }): Promise<Page<StatusChangeRecord & { id: number }>> {
    const filter: Filter<StatusChangeRecord> = { eventId };
    if (options.label !== undefined) filter.label = options.label;
    if (options.filter) Object.assign(filter, containsFilter(options.filter, ['label']));
    return paginateInOrder(this.collection, filter, request, order, 'id', (doc) => doc);
  }

  /** Forgets a deleted event's history. */
  async deleteEvent(eventId: number): Promise<void> {
    await this.collection.deleteMany({ eventId });
  }
}

const DUPLICATE_KEY = 11000;

/** Whether every write that failed failed as already stored (some servers report only the error's own code). */
function onlyDuplicates(error: MongoBulkWriteError): boolean {
  if (error.writeConcernError) return false;
  const failures = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
  if (failures.length === 0) return error.code === DUPLICATE_KEY;
  return failures.every((failure) => failure.code === DUPLICATE_KEY);
}
