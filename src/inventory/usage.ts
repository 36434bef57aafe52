import type { Redis } from 'ioredis';
import { usedBucketKey, usedObjectsKey, type EventRef } from './eventKeys.js';

// Used objects (billing, spec "Pricing note"): each event keeps, per month, the objects
// passed to book, hold or change-object-status, spread over bucket keys and counted (the
// script writes them, lua/includes/usedObjects.lua). A workspace keeps which events and
// months have used objects, so usage is read without scanning keys.

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
  for (const event of events) pipeline.hget(usedObjectsKey(event, month), 'n');
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, count]) => {
    if (error) throw error;
    return Number(count ?? 0);
  });
}

/** The used objects of one event in the month, sorted. */
export async function usedObjects(redis: Redis, event: EventRef, month: string): Promise<string[]> {
  // The bucket count the script recorded: the event may be deleted, its record gone.
  const buckets = Number((await redis.hget(usedObjectsKey(event, month), 'b')) ?? 0);
  if (buckets === 0) return [];
  const pipeline = redis.pipeline();
  for (let bucket = 0; bucket < buckets; bucket++) pipeline.hkeys(usedBucketKey(event, month, bucket));
  const labels: string[] = [];
  for (const [error, keys] of (await pipeline.exec()) ?? []) {
    if (error) throw error;
    labels.push(...(keys as string[]));
  }
  return labels.sort();
}

/** Labels per bucket key: Redis keeps a hash of up to 128 short fields as a compact listpack. */
const LABELS_PER_BUCKET = 48;
const MAX_BUCKETS = 8192;

/** Bucket keys for an event of `objectCount` objects, fixed when the event is created. */
export function usedBucketsFor(objectCount: number): number {
  let buckets = 1;
  while (buckets * LABELS_PER_BUCKET < objectCount && buckets < MAX_BUCKETS) buckets *= 2;
  return buckets;
}

const TRAILING_NUMBER = /^(.*\D)?(\d+)$/;

/**
 * The bucket of a label: FNV-1a of the label with its trailing number divided by 16, so
 * seats next to each other in a row (A-1 .. A-15) share a bucket and a request for a few
 * of them writes one bucket key, not one per seat. Only this writer needs the spread.
 */
function usedBucket(label: string, buckets: number): number {
  const numbered = TRAILING_NUMBER.exec(label);
  const key = numbered ? `${numbered[1] ?? ''}#${Math.floor(Number(numbered[2]) / 16)}` : label;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % buckets;
}

/** The labels grouped by their bucket: bucket number -> labels. */
export function byUsedBucket(labels: Iterable<string>, buckets: number): Map<number, string[]> {
  const grouped = new Map<number, string[]>();
  for (const label of labels) {
    const bucket = usedBucket(label, buckets);
    const list = grouped.get(bucket);
    if (list) list.push(label);
    else grouped.set(bucket, [label]);
  }
  return grouped;
}
