import { decodeHistoryEntry, entryNumber, type HistoryEntry } from '../domain/statusChangeHistory.js';
import type { StatusChangeHistory } from '../metadata/statusChangeHistory.js';
import { historyKey, type EventRef } from './eventKeys.js';
import type { RedisClient } from './redis.js';
import type { Scripts } from './scripts.js';

// Reading an event's history as it is written, for the status stream (docs/status-stream.md):
// the entries of the event's history stream after the last one read, and the changes between
// two numbers from wherever they are now, the stream or, once the drain has stored and
// trimmed them, MongoDB. A follower polls (src/services/statusStreamHub.ts says how often)
// rather than blocking: a blocking read needs a connection of its own per followed event,
// and one that timed out on the client stays in progress on the server, holding up the next.
// A poll is a script (its key prefixed and routed by ioredis, even on a cluster) and one
// round trip, whether it finds entries or not.

/** Entries one read takes at most. */
const READ_COUNT = 1_000;

/** What one poll found: the entries after the follower's number, or how far the stream went. */
export interface HistoryPoll {
  entries: HistoryEntry[];
  /**
   * When there are no entries: the number of the last entry ever added (0 if none). Past
   * the follower's, the drain stored and trimmed entries before they were read.
   */
  lastWritten: number;
}

export class HistoryFollower {
  constructor(
    private readonly scripts: Scripts,
    private readonly event: EventRef,
  ) {}

  /** The entries after number `after`, oldest first, in one round trip (lua/history-after-1.lua). */
  async next(after: number): Promise<HistoryPoll> {
    const [lastWritten, page] = await this.scripts.historyAfter(historyKey(this.event), after, READ_COUNT);
    return { entries: page.map(([id, fields]) => decodeHistoryEntry(this.event._id, entryNumber(id), fields[1]!)), lastWritten };
  }
}

/** The entries numbered after `after` up to `upTo`, in order; null when some of them are nowhere any more. */
export type HistoryRange = (event: EventRef, after: number, upTo: number) => Promise<HistoryEntry[] | null>;

/** Reads a range from the event's stream, and the part the drain already moved from MongoDB. */
export function historyRange(redis: RedisClient, stored: StatusChangeHistory): HistoryRange {
  return async (event, after, upTo) => {
    if (upTo <= after) return [];
    const page = await redis.xrange(historyKey(event), `0-${after + 1}`, `0-${upTo}`);
    const inStream = page.map(([id, fields]) => decodeHistoryEntry(event._id, entryNumber(id), fields[1]!));
    const firstInStream = inStream[0]?.id ?? upTo + 1;
    const older = firstInStream > after + 1 ? await stored.between(event._id, after, firstInStream) : [];
    const changes = [...older, ...inStream];
    return changes.length === upTo - after ? changes : null;
  };
}
