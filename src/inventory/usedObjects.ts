import type { RedisClient } from './redis.js';
import { usedBucketKey, usedObjectsKey, type EventRef } from './eventKeys.js';

// Used objects (billing, docs/seatsio-behaviour.md, "Usage"): each event keeps, per month, the objects
// passed to book, hold or change-object-status, spread over bucket keys and counted (the
// script writes them, lua/includes/usedObjects.lua). A workspace keeps which events and
// months have used objects, so usage is read without scanning keys.

const usedEventsKey = (workspaceId: number, month: string) => `usage:{ws${workspaceId}}:${month}`;
const usedMonthsKey = (workspaceId: number) => `usage:{ws${workspaceId}}:months`;
/** Workspaces of a company that ever used objects: usage outlives a deleted workspace. */
const usingWorkspacesKey = (companyId: number) => `usage:{co${companyId}}:workspaces`;

export class UsedObjects {
  constructor(private readonly redis: RedisClient) {}

  /** Records that these events have used objects in the month (once per event and month). */
  async recordEventsInUse(workspace: { _id: number; companyId: number }, month: string, eventIds: number[]): Promise<void> {
    // Two slots (workspace, company): separate commands, sent together by auto-pipelining
    // (one pipeline may not span slots on a cluster); each SADD is idempotent.
    await Promise.all([
      this.redis.sadd(usedEventsKey(workspace._id, month), ...eventIds),
      this.redis.sadd(usedMonthsKey(workspace._id), month),
      this.redis.sadd(usingWorkspacesKey(workspace.companyId), workspace._id),
    ]);
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
