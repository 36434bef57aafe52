import { decodeHistoryEntry, entryChanges, type HistoryEntry } from '../domain/statusChangeHistory.js';
import type { FollowedEntry } from '../domain/statusStreamView.js';
import type { StatusChangeHistory } from '../metadata/statusChangeHistory.js';
import { historyKey, seasonFeedKey, type EventRef } from './eventKeys.js';
import type { RedisClient } from './redis.js';
import type { Scripts } from './scripts.js';

// Reading an event's history as it is written, for the status stream (docs/status-stream.md):
// the entries of the event's history stream after the last one read, and the changes between
// two numbers from wherever they are now, the stream or, once the drain has stored and
// trimmed them, MongoDB. A follower polls (once per tick: src/services/streamFollowers.ts)
// rather than blocking: a blocking read needs a connection of its own per followed event,
// and one that timed out on the client stays in progress on the server, holding up the next.
// A poll is a script (its key prefixed and routed by ioredis, even on a cluster) and one
// round trip, whether it finds entries or not. An event of a season is followed in its
// season's feed instead, which has every unit's entries in one sequence (docs/status-stream.md,
// "Seasons"); the follower's seq is then the feed's entry number.

/** Whether an event is followed in its season's feed rather than its own history. */
export const followsSeasonFeed = (event: EventRef) => event.season?.role === 'event';

/** Entries one read takes at most. */
const READ_COUNT = 1_000;

/** What one poll found: the entries after the follower's number, or how far the stream went. */
export interface HistoryPoll {
  entries: FollowedEntry[];
  /**
   * When there are no entries: the number of the last entry ever added (0 if none). Past
   * the follower's, the drain stored and trimmed entries before they were read.
   */
  lastWritten: number;
  /**
   * A season's feed only: its make-up changed (a mark among the entries read, from
   * src/inventory/seasonStore.ts, bump). The follower then reads the event anew; the
   * entries are left out.
   */
  makeUpChanged?: true;
}

export class HistoryFollower {
  private readonly feed: boolean;
  private readonly key: string;

  constructor(
    private readonly scripts: Scripts,
    private readonly event: EventRef,
  ) {
    this.feed = followsSeasonFeed(event);
    this.key = this.feed ? seasonFeedKey(event) : historyKey(event);
  }

  /** The entries after number `after`, oldest first, in one round trip (lua/history-after-1.lua). */
  async next(after: number): Promise<HistoryPoll> {
    const [lastWritten, page] = await this.scripts.historyAfter(this.key, after, READ_COUNT);
    if (this.feed && page.some(([, fields]) => fields[0] === 'm')) return { entries: [], lastWritten, makeUpChanged: true };
    const entries: FollowedEntry[] = [];
    for (const [id, fields] of page) for (const [seq, change] of entryChanges(id, fields[1]!)) entries.push(this.followed(seq, fields, change));
    return { entries, lastWritten };
  }

  /**
   * One change of an entry. A history entry's one field holds one or more changes (named `c`,
   * or by the entry's usage mark; older servers wrote `c` and the mark in a second field `u`); a
   * feed entry's `c` (one change), `e` (the unit) and, for an override change, `k`
   * (lua/includes/historyEntries.lua).
   */
  private followed(seq: number, fields: string[], change: string): FollowedEntry {
    if (!this.feed) return { seq, unit: this.event._id, kind: null, entry: decodeHistoryEntry(this.event._id, seq, change) };
    const unit = Number(fields[3]);
    return { seq, unit, kind: (fields[5] as 'o' | 's' | undefined) ?? null, entry: decodeHistoryEntry(unit, seq, change) };
  }
}

/** The entries numbered after `after` up to `upTo`, in order; null when some of them are nowhere any more. */
export type HistoryRange = (event: EventRef, after: number, upTo: number) => Promise<FollowedEntry[] | null>;

/**
 * Reads a range from the event's stream, and the part the drain already moved from MongoDB.
 * Not for an event of a season: what a feed entry shows in the event depends on the event's
 * view at that point, which only a follower that applied every entry since knows (null).
 */
export function historyRange(redis: RedisClient, stored: StatusChangeHistory): HistoryRange {
  return async (event, after, upTo) => {
    if (upTo <= after) return [];
    if (followsSeasonFeed(event)) return null;
    const key = historyKey(event);
    // From the entry that holds change after + 1: an entry holds the changes of several objects.
    const [holding] = await redis.xrevrange(key, `0-${after + 1}`, '-', 'COUNT', 1);
    const page = await redis.xrange(key, holding ? holding[0] : `0-${after + 1}`, `0-${upTo}`);
    const inStream: HistoryEntry[] = [];
    for (const [id, fields] of page) {
      for (const [seq, change] of entryChanges(id, fields[1]!)) if (seq > after && seq <= upTo) inStream.push(decodeHistoryEntry(event._id, seq, change));
    }
    const firstInStream = inStream[0]?.id ?? upTo + 1;
    const older = firstInStream > after + 1 ? await stored.between(event._id, after, firstInStream) : [];
    const entries = [...older, ...inStream];
    return entries.length === upTo - after ? entries.map((entry) => ({ seq: entry.id, unit: event._id, kind: null, entry })) : null;
  };
}
