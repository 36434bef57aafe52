import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { PageSelector, type Page, type PageRequest } from '../domain/pagination.js';
import { batchLabelsOf, compareChanges, decodeBatch, decodeBatchEntries, type HistoryEntry, type HistoryOrder, type StatusChangeRecord } from '../domain/statusChangeHistory.js';
import type { HistoryBatchText } from '../inventory/historyStreams.js';
import { yieldToEventLoop } from '../util/slices.js';
import { isDuplicateKey } from './counters.js';

// The stored status-change history (docs/history.md, "Stored in batches"): one document
// per batch of an event's changes as the drain read them from the event's stream (up to
// 1,000), written by src/jobs/historyDrain.ts and read by the history routes.

interface HistoryBatch {
  /** `<eventId>:<stream id of the batch's first change>`: a batch stored twice is stored once. */
  _id: string;
  eventId: number;
  /** The ids of its first and last change: a stream numbers its entries without gaps, so change i is first + i. */
  first: number;
  last: number;
  /** The labels it has changes of, so one object's history reads only its batches. */
  labels: string[];
  /**
   * The changes as the stream holds them (lua/includes/history.lua), joined by
   * ENTRY_SEPARATOR: the drain moves text without taking it apart; the routes decode it.
   */
  entries: string;
}

/** The collection of the stored history. */
export const HISTORY_COLLECTION = 'statusChanges';

/** Batches (up to 1,000 changes each) read from MongoDB at a time by a history page, and decoded between two turns of the event loop. */
const PAGE_READ_BATCHES = 2;

export class StatusChangeHistory {
  private readonly collection: Collection<HistoryBatch>;

  constructor(db: Db) {
    this.collection = db.collection<HistoryBatch>(HISTORY_COLLECTION);
  }

  /**
   * Stores consecutive batches of an event's stream entries, read from the head of its stream,
   * oldest first, in one write (an insert costs the drain about the same whatever its size:
   * docs/performance.md, "The drain"). Returns the id of the last change now stored
   * from that head, and how many changes this call inserted. The write is ordered: when a
   * batch was stored before (a drain that stopped before trimming, or another drain on the
   * same stream), the batches before it are stored, none after it, and `last` is the earlier
   * copy's last. The caller trims the stream up to `last` and reads on from there, so each
   * change is stored exactly once.
   */
  async store(eventId: number, batches: readonly HistoryBatchText[]): Promise<{ last: number; inserted: number }> {
    const changes = (upTo: number) => batches.slice(0, upTo).reduce((sum, batch) => sum + batch.last - batch.first + 1, 0);
    const documents = batches.map((batch) => {
      const { first, last, entries } = batch;
      return { _id: `${eventId}:0-${first}`, eventId, first, last, labels: batchLabelsOf(batch), entries };
    });
    let inserted = documents.length;
    try {
      await this.collection.insertMany(documents, { ordered: true });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // MongoDB stored the batches before the refused one. The in-memory wire server of
      // development and tests refuses an ordered write whole: from there, one at a time.
      for (inserted = error instanceof MongoBulkWriteError ? error.insertedCount : 0; inserted < documents.length; inserted++) {
        const document = documents[inserted]!;
        try {
          await this.collection.insertOne(document);
        } catch (one) {
          if (!isDuplicateKey(one)) throw one;
          const stored = await this.collection.findOne({ _id: document._id }, { projection: { last: 1 } });
          if (!stored) throw one;
          return { last: stored.last, inserted: changes(inserted) };
        }
      }
    }
    return { last: batches[batches.length - 1]!.last, inserted: changes(inserted) };
  }

  /**
   * A page of an event's changes, optionally of one object or of labels containing `filter`
   * (case-insensitively), in `order` (compareChanges says how ties go). An event's history
   * may hold hundreds of thousands of changes and any order may be asked for, so every
   * change is read, but not held: the batches come from MongoDB a few at a time, each
   * change is offered to a PageSelector that keeps only what can still be on the page, and
   * the event loop is let go between batches. Decoding and sorting 100,000 changes at once
   * held it for some 265 ms, and every booking of the process with it.
   */
  async page(eventId: number, request: PageRequest, order: HistoryOrder, options: { label?: string; filter?: string }): Promise<Page<StatusChangeRecord>> {
    const needle = options.filter?.toLowerCase();
    const listed = (change: StatusChangeRecord) => (options.label === undefined || change.label === options.label) && (!needle || change.label.toLowerCase().includes(needle));
    const compare = compareChanges(order);
    const cursor = request.direction === 'first' ? null : await this.change(eventId, request.cursor);
    const cursorItem = cursor && listed(cursor) ? cursor : null;
    const selector = new PageSelector(compare, request, cursorItem);
    // A cursor that names no change of the list: an empty page, without reading the rest.
    if (request.direction !== 'first' && !cursorItem) return selector.page();
    const batches = this.collection
      .find(options.label === undefined ? { eventId } : { eventId, labels: options.label }, { projection: { first: 1, entries: 1 } })
      .batchSize(PAGE_READ_BATCHES);
    let since = 0;
    for await (const batch of batches) {
      for (const change of decodeBatch(eventId, batch.first, batch.entries)) {
        if (listed(change)) selector.offer(change);
      }
      if (++since === PAGE_READ_BATCHES) {
        since = 0;
        await yieldToEventLoop();
      }
    }
    return selector.page();
  }

  /** One status change by its number, if it is stored (a for-sale entry is not one). */
  private async change(eventId: number, id: number): Promise<StatusChangeRecord | null> {
    const batch = await this.collection.findOne({ eventId, first: { $lte: id }, last: { $gte: id } }, { projection: { first: 1, entries: 1 } });
    return batch ? (decodeBatch(eventId, batch.first, batch.entries).find((change) => change.id === id) ?? null) : null;
  }

  /**
   * The stored entries numbered after `after` and before `before`, in order, for-sale entries
   * included (the status stream's catch-up: docs/status-stream.md, "Resume"). Reads only the
   * batches that hold them.
   */
  async between(eventId: number, after: number, before: number): Promise<HistoryEntry[]> {
    if (before <= after + 1) return [];
    const batches = await this.collection
      .find({ eventId, last: { $gt: after }, first: { $lt: before } }, { projection: { first: 1, entries: 1 } })
      .sort({ first: 1 })
      .toArray();
    return batches.flatMap((batch) => decodeBatchEntries(eventId, batch.first, batch.entries)).filter((entry) => entry.id > after && entry.id < before);
  }
}
