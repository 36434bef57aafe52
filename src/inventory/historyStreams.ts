import type { Redis } from 'ioredis';
import { eventKeys, type EventRef } from './eventKeys.js';

// The events' history streams as the drain sees them (docs/history.md): which streams may
// hold entries not yet stored, reading a stream's oldest entries, and trimming what is
// stored. The status script writes the streams; nothing here writes an entry.

/** set: history stream keys that may hold entries not yet stored (a hint; the sweep finds the rest). */
const PENDING_KEY = 'history:pending';
/** hash: the drain's progress for /metrics and the bench (`stored`, `pending`, `oldest`, `at`). */
const PROGRESS_KEY = 'history:drain';
const FLUSH_MS = 50;
const STREAM_PATTERN = /^inv:\{[^}]*\}:(\d+):history$/;

export interface HistoryEntry {
  /** `0-<n>` (lua/includes/history.lua). */
  id: string;
  c: string;
}

export interface DrainProgress {
  /** Changes stored since the deployment began. */
  stored: number;
  /** Entries left in the streams the last drain looked at. */
  pending: number;
  /** Time (ms) of the oldest entry it left, 0 when it left none. */
  oldest: number;
  /** When the last drain finished (ms). */
  at: number;
}

/** The event id a history stream key belongs to, or null for another key. */
export function streamEventId(key: string): number | null {
  const match = STREAM_PATTERN.exec(key);
  return match ? Number(match[1]) : null;
}

export class HistoryStreams {
  /** Streams changed since the last flush, in this process. */
  private readonly changed = new Set<string>();
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    /** The deployment's REDIS_KEY_PREFIX: SCAN patterns and replies carry it, commands add it. */
    private readonly keyPrefix: string,
  ) {}

  /**
   * Notes events whose streams got entries. The drain hears of them within FLUSH_MS, in one
   * command for all of them: a busy on-sale adds 20 small commands a second, not one per request.
   */
  noteChanged(events: EventRef[]): void {
    for (const event of events) this.changed.add(eventKeys(event).history);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, FLUSH_MS);
  }

  /** Adds the noted streams to the pending set now (a failed add is tried again with the next). */
  flush(): Promise<void> {
    if (this.changed.size === 0 || this.flushing) return this.flushing ?? Promise.resolve();
    const keys = [...this.changed];
    this.changed.clear();
    this.flushing = this.redis
      .sadd(PENDING_KEY, ...keys)
      .then(() => undefined)
      .catch(() => keys.forEach((key) => this.changed.add(key)))
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Takes up to `count` pending streams; the caller gives back any it does not finish. */
  async takePending(count: number): Promise<string[]> {
    return (await this.redis.spop(PENDING_KEY, count)) ?? [];
  }

  async giveBack(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.redis.sadd(PENDING_KEY, ...keys);
  }

  /** Marks every history stream with entries as pending: after a crash, a hint may be lost. */
  async sweep(): Promise<number> {
    let cursor = '0';
    let found = 0;
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.keyPrefix}inv:*:history`, 'COUNT', 1000, 'TYPE', 'stream');
      cursor = next;
      const names = keys.map((key) => key.slice(this.keyPrefix.length));
      const lengths = await Promise.all(names.map((key) => this.redis.xlen(key)));
      const pending = names.filter((_, i) => lengths[i]! > 0);
      found += pending.length;
      await this.giveBack(pending);
    } while (cursor !== '0');
    return found;
  }

  /** The oldest `count` entries of a stream. */
  async oldest(key: string, count: number): Promise<HistoryEntry[]> {
    const entries = await this.redis.xrange(key, '-', '+', 'COUNT', count);
    return entries.map(([id, fields]) => ({ id, c: fields[fields.indexOf('c') + 1] ?? '' }));
  }

  /** Removes the entries up to and including `lastStored`; later ones stay. */
  async trim(key: string, lastStored: string): Promise<void> {
    const n = Number(lastStored.slice(2));
    await this.redis.xtrim(key, 'MINID', `0-${n + 1}`);
  }

  async length(key: string): Promise<number> {
    return this.redis.xlen(key);
  }

  async recordProgress(stored: number, pending: number, oldest: number, at: number): Promise<void> {
    await this.redis.multi().hincrby(PROGRESS_KEY, 'stored', stored).hset(PROGRESS_KEY, 'pending', pending, 'oldest', oldest, 'at', at).exec();
  }

  async progress(): Promise<DrainProgress> {
    const fields = await this.redis.hgetall(PROGRESS_KEY);
    return { stored: Number(fields.stored ?? 0), pending: Number(fields.pending ?? 0), oldest: Number(fields.oldest ?? 0), at: Number(fields.at ?? 0) };
  }
}
