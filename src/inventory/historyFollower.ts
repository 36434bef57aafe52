import { decodeHistoryEntry, entryNumber, type StatusChangeRecord } from '../domain/statusChangeHistory.js';
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

/** Entries one read takes at most. */
const READ_COUNT = 1_000;

export class HistoryFollower {
  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: Scripts,
    private readonly event: EventRef,
  ) {}

  /** The entries after number `after` (none if none yet), oldest first. */
  async next(after: number): Promise<StatusChangeRecord[]> {
    const reply = (await this.redis.xread('COUNT', READ_COUNT, 'STREAMS', historyKey(this.event), `0-${after}`)) as [string, [string, string[]][]][] | null;
    if (!reply) return [];
    return reply[0]![1].map(([id, fields]) => decodeHistoryEntry(this.event._id, entryNumber(id), fields[1]!));
  }

  /**
   * The number of the last entry ever written to the stream (0 if none): when the drain has
   * stored and trimmed every entry before the follower read them, the stream is empty and
   * only this tells that there were some.
   */
  lastWritten(): Promise<number> {
    return this.scripts.streamLastEntry(historyKey(this.event));
  }
}

/** The changes numbered after `after` up to `upTo`, in order; null when some of them are nowhere any more. */
export type HistoryRange = (event: EventRef, after: number, upTo: number) => Promise<StatusChangeRecord[] | null>;

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
