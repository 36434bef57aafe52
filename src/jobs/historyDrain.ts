import { decodeHistoryEntry } from '../domain/statusChangeHistory.js';
import { streamEventId, type HistoryStreams } from '../inventory/historyStreams.js';
import type { StatusChangeHistory } from '../metadata/statusChangeHistory.js';

// Moves status changes from the events' history streams into MongoDB (docs/history.md):
// at least once, in batches, in stream order. A stream is trimmed only up to what MongoDB
// acknowledged, so nothing is lost while MongoDB or this process is down, and a batch
// stored twice (two drains on one stream, a crash between store and trim) is stored once.

/** Streams taken per run, and entries stored per MongoDB write. */
const STREAMS_PER_RUN = 200;
const BATCH = 1000;
/** A run leaves a stream with more than this for the next run, so one busy event does not starve the others. */
const BATCHES_PER_STREAM = 20;

export interface DrainRun {
  stored: number;
  /** Entries left in the streams this run took. */
  pending: number;
  /** Time (ms) of the oldest entry left, 0 when none. */
  oldest: number;
}

export class HistoryDrain {
  constructor(
    private readonly streams: HistoryStreams,
    private readonly history: StatusChangeHistory,
  ) {}

  /** Drains the pending streams; throws after giving back what it could not store. */
  async run(now = Date.now()): Promise<DrainRun> {
    const taken = await this.streams.takePending(STREAMS_PER_RUN);
    const result: DrainRun = { stored: 0, pending: 0, oldest: 0 };
    let failure: unknown;
    const unfinished: string[] = [];
    for (const key of taken) {
      try {
        if (failure) throw failure;
        result.stored += await this.drainStream(key);
      } catch (error) {
        failure ??= error;
      }
      const left = await this.streams.oldest(key, 1);
      if (left.length > 0) {
        unfinished.push(key);
        result.pending += await this.streams.length(key);
        const time = decodeHistoryEntry(0, left[0]!.id, left[0]!.c).date.getTime();
        if (result.oldest === 0 || time < result.oldest) result.oldest = time;
      }
    }
    await this.streams.giveBack(unfinished);
    await this.streams.recordProgress(result.stored, result.pending, result.oldest, now);
    if (failure) throw failure;
    return result;
  }

  /** Stores a stream's oldest entries, trimming behind each stored batch; returns how many. */
  private async drainStream(key: string): Promise<number> {
    const eventId = streamEventId(key);
    if (eventId === null) return 0;
    let stored = 0;
    for (let batch = 0; batch < BATCHES_PER_STREAM; batch++) {
      const entries = await this.streams.oldest(key, BATCH);
      if (entries.length === 0) break;
      await this.history.store(entries.map((entry) => decodeHistoryEntry(eventId, entry.id, entry.c)));
      await this.streams.trim(key, entries[entries.length - 1]!.id);
      stored += entries.length;
      if (entries.length < BATCH) break;
    }
    return stored;
  }
}
