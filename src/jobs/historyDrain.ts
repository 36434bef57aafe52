import { historyKey, historyKeyEvent, type EventRef } from '../inventory/eventKeys.js';
import type { DrainBatch, HistoryStreams } from '../inventory/historyStreams.js';
import type { UsedObjects } from '../inventory/usedObjects.js';
import type { StatusChangeHistory } from '../metadata/statusChangeHistory.js';

// Moves status changes from the events' history streams into MongoDB (docs/history.md):
// at least once, in batches, in stream order. A stream is trimmed only up to what MongoDB
// acknowledged, so nothing is lost while MongoDB or this process is down, and a batch
// read twice (a crash between store and trim, a drain that outlasted its lease) is stored
// once. One drain at a time works on a stream: a drain skips a stream another has taken.
// A stream stays on the pending list until a drain finds it empty.
// The drain also counts the used objects (billing) of the entries that carry a usage mark,
// before storing them, so a MongoDB outage does not hold usage back (src/inventory/usedObjects.ts;
// a batch counted twice counts once).

/**
 * Streams taken per run, and changes stored per MongoDB write at most (in whole stream
 * entries, each of at most as many changes: lua/includes/historyEntries.lua, MAX_ENTRY_OBJECTS).
 */
const STREAMS_PER_RUN = 200;
const BATCH = 1000;
/** A run leaves a stream with more than this for the next run, so one busy event does not starve the others. */
const BATCHES_PER_STREAM = 20;
/**
 * Batches read ahead and stored in one MongoDB write (still a document each): an insert cost
 * the drain about 1 ms of CPU whatever its size (docs/performance.md, "The drain").
 */
const BATCHES_PER_WRITE = 5;

export interface DrainRun {
  stored: number;
  /** Streams left with entries, for the next run. */
  unfinished: number;
  /** Streams skipped because another drain had them. */
  busy: number;
}

export class HistoryDrain {
  constructor(
    private readonly streams: HistoryStreams,
    private readonly history: StatusChangeHistory,
    private readonly usedObjects: UsedObjects,
  ) {}

  /** Drains the pending streams; throws when MongoDB refused (what it did not store stays listed). */
  async run(now = Date.now()): Promise<DrainRun> {
    const keys = await this.streams.pending(STREAMS_PER_RUN);
    let stored = 0;
    let unfinished = 0;
    let busy = 0;
    try {
      for (const key of keys) {
        const drained = await this.drainIfFree(key);
        if (!drained) busy++;
        else {
          stored += drained.stored;
          if (!drained.empty) unfinished++;
        }
      }
    } finally {
      await this.streams.recordRun(stored, now);
    }
    return { stored, unfinished, busy };
  }

  /**
   * Drains a stream unless another drain has it (null then), taking it off the pending list
   * when it is found empty; the stream is given back whatever happens.
   */
  private async drainIfFree(key: string): Promise<{ stored: number; empty: boolean } | null> {
    if (!(await this.streams.take(key))) return null;
    try {
      const drained = await this.drainStream(key);
      if (drained.empty) await this.streams.drained(key);
      return drained;
    } finally {
      await this.streams.giveBack(key);
    }
  }

  /**
   * Counts the used objects of an event's entries the drain has not reached: the event is
   * being deleted, and its stream with it (usage is a billing record and outlives the event;
   * the history of a deleted event does not).
   */
  async countUndrained(event: EventRef): Promise<void> {
    const key = historyKey(event);
    for (let after = 0; ; ) {
      const batch = await this.streams.oldest(key, BATCH, after);
      if (!batch) return;
      if (batch.marks.length > 0) await this.usedObjects.countDrained(event, batch);
      after = batch.last;
    }
  }

  /**
   * Stores a stream's oldest entries, up to BATCHES_PER_WRITE batches a write, trimming behind
   * each write; returns how many changes it stored, and whether it found the stream's end.
   */
  private async drainStream(key: string): Promise<{ stored: number; empty: boolean }> {
    const event = historyKeyEvent(key);
    if (event === null) return { stored: 0, empty: true };
    let stored = 0;
    for (let read = 0; read < BATCHES_PER_STREAM; ) {
      const batches: DrainBatch[] = [];
      let end = false;
      for (let after = 0; batches.length < BATCHES_PER_WRITE && read < BATCHES_PER_STREAM; read++) {
        const batch = await this.streams.oldest(key, BATCH, after);
        if (!batch) {
          end = true;
          break;
        }
        // Counted before it is stored, so a MongoDB outage does not hold usage back.
        if (batch.marks.length > 0) await this.usedObjects.countDrained(event, batch);
        batches.push(batch);
        after = batch.last;
      }
      if (batches.length === 0) return { stored, empty: true };
      const { last, inserted } = await this.history.store(event._id, batches);
      await this.streams.trim(key, last);
      stored += inserted;
      // Read to its end and all of it stored: no need to read an empty stream again to know.
      if (end && last === batches[batches.length - 1]!.last) return { stored, empty: true };
    }
    return { stored, empty: false };
  }
}
