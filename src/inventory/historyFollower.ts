import { decodeHistoryEntry, entryNumber, type StatusChangeRecord } from '../domain/statusChangeHistory.js';
import type { StatusChangeHistory } from '../metadata/statusChangeHistory.js';
import { historyKey, type EventRef } from './eventKeys.js';
import type { RedisClient } from './redis.js';

// Reading an event's history as it is written, for the status stream (docs/status-stream.md):
// a blocking read of the event's history stream on a connection of its own (a blocking
// read holds its connection), and the changes between two numbers from wherever they are
// now, the stream or, once the drain has stored and trimmed them, MongoDB.

/** How long one blocking read waits for a new entry before it is sent again. */
const BLOCK_MS = 5_000;
/** A read that has not answered this long after its BLOCK_MS is taken for lost (a dead connection). */
const READ_TIMEOUT_MARGIN_MS = 5_000;
/** Entries one read takes at most. */
const READ_COUNT = 1_000;

export class HistoryFollower {
  private closed = false;
  private connection: RedisClient;

  constructor(
    /** Makes the follower's own connection (blockingConnection), again after a failed read. */
    private readonly connect: (timeoutMs: number) => RedisClient,
    private readonly event: EventRef,
  ) {
    this.connection = connect(BLOCK_MS + READ_TIMEOUT_MARGIN_MS);
  }

  /** The entries after number `after` (waiting up to BLOCK_MS for one; none after that), oldest first. */
  async next(after: number): Promise<StatusChangeRecord[]> {
    if (this.closed) return [];
    let reply: [string, [string, string[]][]][] | null;
    try {
      reply = (await this.connection.xread('COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', historyKey(this.event), `0-${after}`)) as typeof reply;
    } catch (error) {
      // A read that failed may still be in progress on the server: the next goes on a new connection.
      if (!this.closed) {
        this.connection.disconnect();
        this.connection = this.connect(BLOCK_MS + READ_TIMEOUT_MARGIN_MS);
      }
      throw error;
    }
    if (!reply) return [];
    return reply[0]![1].map(([id, fields]) => decodeHistoryEntry(this.event._id, entryNumber(id), fields[1]!));
  }

  async close(): Promise<void> {
    this.closed = true;
    // A blocking read in flight is cut off with the connection.
    this.connection.disconnect();
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
