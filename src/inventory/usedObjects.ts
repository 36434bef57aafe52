import type { RedisClient } from './redis.js';
import type { Scripts } from './scripts.js';
import { usedBucketKey, usedObjectsKey, type EventRef } from './eventKeys.js';
import { byUsedBucket, monthOf } from '../domain/usedBuckets.js';
import { FIELD_SEPARATOR } from '../domain/objectStates.js';
import { batchLabelsOf, ENTRY_SEPARATOR } from '../domain/statusChangeHistory.js';

// Used objects (billing, docs/seatsio-behaviour.md, "Usage"): each event keeps, per month, the objects
// passed to book, hold or change-object-status, spread over bucket keys and counted
// (lua/includes/usedObjects.lua). A workspace keeps which events and months have used
// objects, so usage is read without scanning keys.
//
// The status function does not count them: the history entry of each object a change uses
// carries a usage mark (lua/includes/historyEntries.lua), and the history drain counts the
// marked entries as it stores them (countDrained), so usage shows up one drain later
// (docs/history.md, "Used objects").

/** Whose usage an event's objects count in. */
export interface UsageOwner {
  /** The workspace's id. */
  _id: number;
  companyId: number;
}

/** What the drain needs to count an event's used objects: its bucket count and its owner. */
interface UsageMark {
  buckets: number;
  workspaceId: number;
  companyId: number;
}

const marks = new WeakMap<EventRef, string>();

/** MarkedEntries.marked: an entry without a usage mark, and the character of the first mark's place. */
export const UNMARKED = '.';
const FIRST_MARK = 0x100;
/** The character of a mark's place in MarkedEntries.marks (0-based); an event's entries have one mark. */
export const markPlace = (place: number): string => String.fromCharCode(FIRST_MARK + place);

/** The usage mark of an event's history entries, `<buckets>:<workspace id>:<company id>`, made once per event record. */
export function usageMark(event: EventRef, owner: UsageOwner): string {
  let mark = marks.get(event);
  if (mark === undefined) {
    mark = `${event.usedBuckets ?? 1}:${owner._id}:${owner.companyId}`;
    marks.set(event, mark);
  }
  return mark;
}

function parseUsageMark(mark: string): UsageMark | null {
  const [buckets, workspaceId, companyId] = mark.split(':').map(Number);
  if (!(buckets! >= 1 && workspaceId! >= 0 && companyId! >= 0)) return null;
  return { buckets: buckets!, workspaceId: workspaceId!, companyId: companyId! };
}

/**
 * A batch of history entries as the drain reads it (HistoryStreams.oldest): the entries'
 * texts joined by RS, and which of them carry a usage mark, one character each: UNMARKED
 * for none, markPlace(0) for the first of `marks`, markPlace(1) for the second, ...
 */
export interface MarkedEntries {
  entries: string;
  marked: string;
  marks: string[];
}

/** An entry's time (ms, its first field, from..to), read in place: the drain reads one for every marked change. */
function timeAt(entries: string, from: number, to: number): number {
  let time = 0;
  for (let i = from; i < to; i++) {
    const digit = entries.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number(entries.slice(from, to));
    time = time * 10 + digit;
  }
  return time;
}

/**
 * The used objects of a batch by month, each month under the mark of its first used change.
 * The entries are read in place, each entry's time and label (its first two fields) only
 * where it is marked: a batch has up to 1,000, and the drain runs beside the bookings.
 */
function groupedByMonth({ entries, marked, marks }: MarkedEntries): Map<string, { mark: UsageMark; labels: Iterable<string> }> {
  const byMonth = new Map<string, { mark: UsageMark; labels: Set<string> }>();
  for (let i = 0, at = 0; at < entries.length; i++) {
    const next = entries.indexOf(ENTRY_SEPARATOR, at);
    const end = next < 0 ? entries.length : next;
    const place = marked.charCodeAt(i) - FIRST_MARK;
    if (place >= 0) {
      const labelAt = entries.indexOf(FIELD_SEPARATOR, at) + 1;
      const month = monthOf(timeAt(entries, at, labelAt - 1));
      let group = byMonth.get(month);
      if (!group) {
        const mark = parseUsageMark(marks[place] ?? '');
        if (mark) byMonth.set(month, (group = { mark, labels: new Set() }));
      }
      group?.labels.add(entries.slice(labelAt, entries.indexOf(FIELD_SEPARATOR, labelAt)));
    }
    at = end + 1;
  }
  return byMonth;
}

/** The month of every change of the batch when each is used under the first mark, else undefined. */
function soleMonthIfAllMarked({ entries, marked }: MarkedEntries): string | undefined {
  let month: string | undefined;
  for (let i = 0, at = 0; at < entries.length; i++) {
    if (marked.charCodeAt(i) !== FIRST_MARK) return undefined;
    const next = entries.indexOf(ENTRY_SEPARATOR, at);
    const changeMonth = monthOf(timeAt(entries, at, entries.indexOf(FIELD_SEPARATOR, at)));
    if (month !== undefined && changeMonth !== month) return undefined;
    month = changeMonth;
    at = next < 0 ? entries.length : next + 1;
  }
  return month;
}

const usedEventsKey = (workspaceId: number, month: string) => `usage:{ws${workspaceId}}:${month}`;
const usedMonthsKey = (workspaceId: number) => `usage:{ws${workspaceId}}:months`;
/** Workspaces of a company that ever used objects: usage outlives a deleted workspace. */
const usingWorkspacesKey = (companyId: number) => `usage:{co${companyId}}:workspaces`;

/**
 * How long a process trusts that it wrote an event's place in the workspace's lists
 * (recordEventInUse): the drain counts every batch of an on-sale, and the three SADDs
 * each batch repeated were as costly to send as the batch's count. Written again after
 * this long, so lists lost with a Redis restored from an older dump fill in again.
 */
const RECORDED_MS = 60_000;
/** Entries kept at most (the cache is cleared beyond): one per event, workspace and month drained. */
const RECORDED_MAX = 10_000;

export class UsedObjects {
  /** `<workspace>:<month>:<event>` -> when this process wrote them to the lists. */
  private readonly recorded = new Map<string, number>();

  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: Scripts,
  ) {}

  /**
   * Counts the used objects of one event's drained history entries, by the month of each
   * change. Safe to repeat for the same entries (a batch drained twice): a label already
   * counted adds nothing, and the workspace's lists are sets. The lists are written first,
   * so a crash after them loses nothing: the entries are counted again with the batch.
   */
  async countDrained(event: EventRef, batch: MarkedEntries & { labels?: string[] }): Promise<void> {
    // Nearly every batch of an on-sale: each change used, under one mark, in one month. Its
    // used objects are then the batch's distinct labels, which storing it needs too.
    const month = batch.marks.length === 1 ? soleMonthIfAllMarked(batch) : undefined;
    const mark = month === undefined ? null : parseUsageMark(batch.marks[0]!);
    const byMonth = mark ? new Map([[month!, { mark, labels: batchLabelsOf(batch) as Iterable<string> }]]) : groupedByMonth(batch);
    for (const [month, { mark, labels }] of byMonth) {
      await this.recordEventInUse({ _id: mark.workspaceId, companyId: mark.companyId }, month, event._id);
      const buckets = [...byUsedBucket(labels, mark.buckets)].map(([bucket, inBucket]) => [usedBucketKey(event, month, bucket), inBucket] as [string, string[]]);
      await this.scripts.countUsedObjects(usedObjectsKey(event, month), mark.buckets, buckets);
    }
  }

  /**
   * Records that the event has used objects in the month, in its workspace's lists, unless
   * this process did so within RECORDED_MS.
   */
  private async recordEventInUse(workspace: UsageOwner, month: string, eventId: number): Promise<void> {
    const key = `${workspace._id}:${month}:${eventId}`;
    const now = Date.now();
    if (now - (this.recorded.get(key) ?? -Infinity) < RECORDED_MS) return;
    // Two slots (workspace, company): separate commands, sent one after the other without
    // waiting (one pipeline may not span slots on a cluster); each SADD is idempotent.
    await Promise.all([
      this.redis.sadd(usedEventsKey(workspace._id, month), eventId),
      this.redis.sadd(usedMonthsKey(workspace._id), month),
      this.redis.sadd(usingWorkspacesKey(workspace.companyId), workspace._id),
    ]);
    if (this.recorded.size >= RECORDED_MAX) this.recorded.clear();
    this.recorded.set(key, now);
  }

  async workspacesInUse(companyId: number): Promise<number[]> {
    return (await this.redis.smembers(usingWorkspacesKey(companyId))).map(Number).sort((a, b) => a - b);
  }

  monthsInUse(workspaceId: number): Promise<string[]> {
    return this.redis.smembers(usedMonthsKey(workspaceId));
  }

  async eventsInUse(workspaceId: number, month: string): Promise<number[]> {
    return (await this.redis.smembers(usedEventsKey(workspaceId, month))).map(Number);
  }

  /** How many distinct objects of each event were used in the month. */
  async usedObjectCounts(events: EventRef[], month: string): Promise<number[]> {
    if (events.length === 0) return [];
    // One slot per event: separate commands, as above.
    const counts = await Promise.all(events.map((event) => this.redis.hget(usedObjectsKey(event, month), 'n')));
    return counts.map((count) => Number(count ?? 0));
  }

  /** The used objects of one event in the month, sorted. */
  async usedObjects(event: EventRef, month: string): Promise<string[]> {
    // The bucket count the script recorded: the event may be deleted, its record gone.
    const buckets = Number((await this.redis.hget(usedObjectsKey(event, month), 'b')) ?? 0);
    if (buckets === 0) return [];
    const pipeline = this.redis.pipeline();
    for (let bucket = 0; bucket < buckets; bucket++) pipeline.hkeys(usedBucketKey(event, month, bucket));
    const labels: string[] = [];
    for (const [error, keys] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      labels.push(...(keys as string[]));
    }
    return labels.sort();
  }
}
