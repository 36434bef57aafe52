import type { Redis } from 'ioredis';
import { usedObjectsKey, type EventRef } from './eventKeys.js';

// Used objects (billing, spec "Pricing note"): each event keeps, per month, the set of
// objects passed to book, hold or change-object-status (the script adds them). A workspace
// keeps which events and months have such sets, so usage is read without scanning keys.

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
  for (const event of events) pipeline.scard(usedObjectsKey(event, month));
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, count]) => {
    if (error) throw error;
    return Number(count);
  });
}

export async function usedObjects(redis: Redis, event: EventRef, month: string): Promise<string[]> {
  return (await redis.smembers(usedObjectsKey(event, month))).sort();
}
