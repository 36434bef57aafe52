import { scanKeys, type RedisClient } from './redis.js';
import { ENTRY_SEPARATOR, entryNumber, entryTimeAndLabel } from '../domain/statusChangeHistory.js';
import { keptHistoryKey, type EventRef } from './eventKeys.js';
import { markPlace, UNMARKED, type MarkedEntries } from './usedObjects.js';

// The events' history streams as the drain sees them (docs/history.md): which streams may
// hold entries not yet stored, reading a stream's oldest entries, and trimming what is
// stored. The status script writes the streams; nothing here writes an entry.

/** set: history stream keys that may hold entries not yet stored (a hint; the sweep finds the rest). */
const PENDING_KEY = 'history:pending';
/** hash: the drain's progress for /metrics and the bench (`stored`, `at`). */
const PROGRESS_KEY = 'history:drain';
const FLUSH_MS = 50;
const PROGRESS_SAMPLE = 50;
/**
 * How long a drain keeps a stream to itself at most. A drain's turn on a stream is a few
 * batches (src/jobs/historyDrain.ts), well under this; one that dies holding a stream
 * leaves it to the others after this long.
 */
const LEASE_MS = 10_000;

/** string: the drain that has a stream right now; tagged like the stream it guards. */
const leaseKey = (stream: string) => `${stream}:drainLease`;

/** Entries `first`..`last` of a stream (numbered without gaps), their `c` fields joined by ENTRY_SEPARATOR. */
export interface HistoryBatchText {
  first: number;
  last: number;
  entries: string;
  /** Its distinct labels, once worked out (batchLabelsOf): counting its used objects may need them before storing it does. */
  labels?: string[];
}

/**
 * A batch as the drain reads it: its text, and which entries carry a usage mark (their field's name),
 * objects a change used (UsedObjects.countDrained reads them).
 */
export interface DrainBatch extends HistoryBatchText, MarkedEntries {}

export interface DrainProgress {
  /** Changes stored since the deployment began. */
  stored: number;
  /** When a drain last finished a run (ms), 0 if none ever did. */
  at: number;
  /** Streams waiting to be drained. */
  pendingStreams: number;
  /** Time (ms) of the oldest change not stored, of those looked at; 0 when none waits. */
  oldestWaiting: number;
}

const SEPARATOR_BYTES = Buffer.from(ENTRY_SEPARATOR);

/** The name of an entry's field of changes when its objects were not used. */
const C_FIELD = 'c'.charCodeAt(0);
/** The usage mark an entry's one field is named by; undefined for `c` (lua/includes/historyEntries.lua). */
const usageMarkOf = (name: Buffer): Buffer | undefined => (name.length === 1 && name[0] === C_FIELD ? undefined : name);
const SEPARATOR_BYTE = SEPARATOR_BYTES[0]!;

/** How many changes an entry's `c` holds: they are joined by ENTRY_SEPARATOR. */
function changesIn(c: Buffer): number {
  let count = 1;
  for (let at = c.indexOf(SEPARATOR_BYTE); at >= 0; at = c.indexOf(SEPARATOR_BYTE, at + 1)) count++;
  return count;
}

export class HistoryStreams {
  /** Streams changed since the last flush, in this process. */
  private changed = new Set<string>();
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Changes per entry in the last batch read (oldest): a 2-seat booking's entry holds 2. */
  private changesPerEntry = 1;

  constructor(
    private readonly redis: RedisClient,
    /** The deployment's REDIS_KEY_PREFIX: SCAN patterns and replies carry it, commands add it. */
    private readonly keyPrefix: string,
    private readonly leaseMs = LEASE_MS,
  ) {}

  /**
   * Takes a stream for one drain; false while another drain has it. Drains of several
   * processes overlap when a run outlasts the drain interval, and without this they would
   * read, encode and insert the same batches, each stored once but paid for twice.
   */
  async take(key: string): Promise<boolean> {
    return (await this.redis.set(leaseKey(key), '1', 'PX', this.leaseMs, 'NX')) === 'OK';
  }

  /**
   * Gives a stream back. A plain DEL: if this drain outlasted its lease and another took
   * the stream meanwhile, that one loses its lease early, and the worst that follows is a
   * batch read twice, which is still stored once.
   */
  async giveBack(key: string): Promise<void> {
    await this.redis.del(leaseKey(key));
  }

  /**
   * Notes events whose streams got entries. The drain hears of them within FLUSH_MS, in one
   * command for all of them: a busy on-sale adds 20 small commands a second, not one per request.
   */
  noteChanged(events: EventRef[]): void {
    for (const event of events) this.noteChangedEvent(event);
  }

  /** noteChanged for one event. */
  noteChangedEvent(event: EventRef): void {
    this.changed.add(keptHistoryKey(event));
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, FLUSH_MS);
  }

  /** Adds the noted streams to the pending set now (a failed add is tried again with the next). */
  flush(): Promise<void> {
    if (this.changed.size === 0 || this.flushing) return this.flushing ?? Promise.resolve();
    const keys = [...this.changed];
    // A new Set rather than clear(), which would link the old table to the new one and keep
    // both alive (src/inventory/atMostOnce.ts, Batches).
    this.changed = new Set();
    this.flushing = this.redis
      .sadd(PENDING_KEY, ...keys)
      .then(() => undefined)
      .catch(() => keys.forEach((key) => this.changed.add(key)))
      .finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /**
   * Up to `count` pending streams. They stay listed while they are drained (so /metrics sees
   * a drain stuck on MongoDB as behind) until `drained` takes each off.
   */
  async pending(count: number): Promise<string[]> {
    return this.redis.srandmember(PENDING_KEY, count);
  }

  /**
   * Takes a stream found empty off the list. Checked again after: an entry added meanwhile
   * may have had its hint merged into the listing just removed, so the stream goes back.
   */
  async drained(key: string): Promise<void> {
    await this.redis.srem(PENDING_KEY, key);
    if ((await this.redis.xlen(key)) > 0) await this.redis.sadd(PENDING_KEY, key);
  }

  private async markPending(keys: string[]): Promise<void> {
    if (keys.length > 0) await this.redis.sadd(PENDING_KEY, ...keys);
  }

  /** Marks every history stream with entries as pending: after a crash, a hint may be lost. */
  async sweep(): Promise<number> {
    let found = 0;
    for await (const keys of scanKeys(this.redis, `${this.keyPrefix}inv:*:history`, 'stream')) {
      const names = keys.map((key) => key.slice(this.keyPrefix.length));
      const lengths = await Promise.all(names.map((key) => this.redis.xlen(key)));
      const pending = names.filter((_, i) => lengths[i]! > 0);
      found += pending.length;
      await this.markPending(pending);
    }
    return found;
  }

  /**
   * The oldest changes of a stream (after number `after`, when given), at most `count` of
   * them in whole entries (an entry holds one or more changes: lua/includes/historyEntries.lua),
   * or null when it has none. A plain XRANGE, taken apart here rather than in a script: Redis
   * is what every booking waits for, and a script that joined the batch cost Redis about 2 µs
   * more per booking (docs/performance.md, "The drain"). Read as bytes, with no
   * object made per change: the texts are joined as they came and decoded once, and each
   * change's usage mark is one character of `marked`.
   */
  async oldest(key: string, count: number, after = 0): Promise<DrainBatch | null> {
    // As many entries as should hold `count` changes, by the last batch's changes per entry:
    // entries read past the limit are read again with the next batch.
    const read = Math.max(1, Math.min(count, Math.floor(count / this.changesPerEntry)));
    const page = (await this.redis.xrangeBuffer(key, after > 0 ? `0-${after + 1}` : '-', '+', 'COUNT', read)) as unknown as [Buffer, Buffer[]][];
    if (page.length === 0) return null;
    // An entry's one field is its changes, named `c`, or by its usage mark when its objects
    // were used; an entry written before that has `c` and a second field `u`, the mark
    // (lua/includes/historyEntries.lua).
    const texts: Buffer[] = [];
    let marked = '';
    const marks: string[] = [];
    let lastMark: Buffer | undefined;
    let lastPlace = '';
    let changes = 0;
    let entries = 0;
    for (const [, fields] of page) {
      const c = fields[1]!;
      const inEntry = changesIn(c);
      // Whole entries only, and no more than `count` changes unless the first entry has more.
      if (changes > 0 && changes + inEntry > count) break;
      if (changes > 0) texts.push(SEPARATOR_BYTES);
      texts.push(c);
      changes += inEntry;
      entries++;
      const mark = fields.length > 2 ? fields[3] : usageMarkOf(fields[0]!);
      let place = UNMARKED;
      if (mark !== undefined) {
        if (lastMark === undefined || !mark.equals(lastMark)) {
          const text = mark.toString();
          const known = marks.indexOf(text);
          lastPlace = markPlace(known < 0 ? marks.push(text) - 1 : known);
          lastMark = mark;
        }
        place = lastPlace;
      }
      marked += inEntry === 1 ? place : place.repeat(inEntry);
    }
    this.changesPerEntry = changes / entries;
    // A stream numbers its changes without gaps, so the batch's last follows from its count.
    const first = entryNumber(page[0]![0].toString());
    return { first, last: first + changes - 1, entries: Buffer.concat(texts).toString(), marked, marks };
  }

  /** Removes the entries up to and including number `lastStored`; later ones stay. */
  async trim(key: string, lastStored: number): Promise<void> {
    await this.redis.xtrim(key, 'MINID', `0-${lastStored + 1}`);
  }

  async recordRun(stored: number, at: number): Promise<void> {
    await this.redis.multi().hincrby(PROGRESS_KEY, 'stored', stored).hset(PROGRESS_KEY, 'at', at).exec();
  }

  /**
   * The drain's progress for /metrics: its counters, and the oldest change waiting among
   * up to PROGRESS_SAMPLE pending streams (exact while fewer wait; a backlog that big is
   * behind anyway).
   */
  async progress(): Promise<DrainProgress> {
    const [fields, pendingStreams, sample] = await Promise.all([
      this.redis.hgetall(PROGRESS_KEY),
      this.redis.scard(PENDING_KEY),
      this.redis.srandmember(PENDING_KEY, PROGRESS_SAMPLE),
    ]);
    const firsts = await Promise.all(sample.map((key) => this.oldest(key, 1)));
    let oldestWaiting = 0;
    for (const first of firsts) {
      if (!first) continue;
      const time = entryTimeAndLabel(first.entries).time;
      if (oldestWaiting === 0 || time < oldestWaiting) oldestWaiting = time;
    }
    return { stored: Number(fields.stored ?? 0), at: Number(fields.at ?? 0), pendingStreams, oldestWaiting };
  }
}
