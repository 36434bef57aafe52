import type { Redis } from 'ioredis';
import { usedObjectsKey, type EventRef } from './eventKeys.js';

// Used objects (billing, spec "Pricing note"): each event keeps, per month, the objects
// passed to book, hold or change-object-status (the script adds them to a hash of label
// buckets and counts them, lua/includes/usedObjects.lua). A workspace keeps which events
// and months have such hashes, so usage is read without scanning keys.

const usedEventsKey = (workspaceId: number, month: string) => `usage:{ws${workspaceId}}:${month}`;
const usedMonthsKey = (workspaceId: number) => `usage:{ws${workspaceId}}:months`;
/** Workspaces of a company that ever used objects: usage outlives a deleted workspace. */
const usingWorkspacesKey = (companyId: number) => `usage:{co${companyId}}:workspaces`;

/** Records that these events have used objects in the month (once per event and month). */
export async function recordEventsInUse(
  redis: Redis,
  workspace: { _id: number; companyId: number },
  month: string,
  eventIds: number[],
): Promise<void> {
  // Three slots (workspace, company): a pipeline, not a transaction; each SADD is idempotent.
  await redis
    .pipeline()
    .sadd(usedEventsKey(workspace._id, month), ...eventIds)
    .sadd(usedMonthsKey(workspace._id), month)
    .sadd(usingWorkspacesKey(workspace.companyId), workspace._id)
    .exec();
}

export async function workspacesInUse(redis: Redis, companyId: number): Promise<number[]> {
  return (await redis.smembers(usingWorkspacesKey(companyId))).map(Number).sort((a, b) => a - b);
}

export function monthsInUse(redis: Redis, workspaceId: number): Promise<string[]> {
  return redis.smembers(usedMonthsKey(workspaceId));
}

export async function eventsInUse(redis: Redis, workspaceId: number, month: string): Promise<number[]> {
  return (await redis.smembers(usedEventsKey(workspaceId, month))).map(Number);
}

/** How many distinct objects of each event were used in the month. */
export async function usedObjectCounts(redis: Redis, events: EventRef[], month: string): Promise<number[]> {
  if (events.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const event of events) pipeline.hget(usedObjectsKey(event, month), USED_COUNT);
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, count]) => {
    if (error) throw error;
    return Number(count ?? 0);
  });
}

const USED_COUNT = '#';
const SEP = '\u001f';
/** Buckets of an event-month's used objects: about 100 labels each at 100,000 used objects. */
const USED_BUCKETS = 1024;

/** FNV-1a of the label's UTF-16 code units: any fixed spread will do, only this writer uses it. */
function usedBucket(label: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
  return String((hash >>> 0) % USED_BUCKETS);
}

/** The labels grouped by their bucket, as lua/includes/usedObjects.lua takes them. */
export function usedBuckets(labels: Iterable<string>): [string, string[]][] {
  const buckets = new Map<string, string[]>();
  for (const label of labels) {
    const bucket = usedBucket(label);
    const list = buckets.get(bucket);
    if (list) list.push(label);
    else buckets.set(bucket, [label]);
  }
  return [...buckets];
}

export async function usedObjects(redis: Redis, event: EventRef, month: string): Promise<string[]> {
  const buckets = await redis.hgetall(usedObjectsKey(event, month));
  const labels: string[] = [];
  for (const [field, value] of Object.entries(buckets)) {
    if (field !== USED_COUNT) for (const label of value.split(SEP)) if (label !== '') labels.push(label);
  }
  return labels.sort();
}
