import type { Redis } from 'ioredis';
import { EVENT_KEY_NAMES, eventKeys, forSaleEditsKey, type EventRef } from './eventKeys.js';

// The parts of an event's inventory that admin routes write: the channel and for-sale
// fields the scripts check, the daily limit on for-sale changes, and removal with the event.

/** Replaces the event's channel and for-sale fields (see saleConfigFields) in one step. */
export async function writeSaleConfig(redis: Redis, event: EventRef, fields: Map<string, string>): Promise<void> {
  const key = eventKeys(event).saleConfig;
  const multi = redis.multi().del(key);
  if (fields.size > 0) multi.hset(key, fields);
  await multi.exec();
}

/** Removes every inventory key of a deleted event. Used-object sets stay: they are billing records. */
export async function deleteInventory(redis: Redis, event: EventRef): Promise<void> {
  const keys = eventKeys(event);
  await redis.del(...EVENT_KEY_NAMES.map((name) => keys[name]));
}

export const FOR_SALE_EDITS_PER_DAY = 10;

export interface RateLimitInfo {
  allowed: boolean;
  rateLimitRemainingCalls: number;
  /** Start of the next UTC day, when the count starts again. */
  rateLimitResetDate: Date;
}

/** The UTC day of `now` and the start of the next one, when the count starts again. */
function dayOf(now: number): { day: string; reset: Date } {
  const day = new Date(now).toISOString().slice(0, 10);
  const reset = new Date(`${day}T00:00:00.000Z`);
  reset.setUTCDate(reset.getUTCDate() + 1);
  return { day, reset };
}

function limitInfo(count: number, reset: Date, counting: boolean): RateLimitInfo {
  return {
    // Counting: this call is already in `count`. Peeking: one more must still fit.
    allowed: counting ? count <= FOR_SALE_EDITS_PER_DAY : count < FOR_SALE_EDITS_PER_DAY,
    rateLimitRemainingCalls: Math.max(0, FOR_SALE_EDITS_PER_DAY - count),
    rateLimitResetDate: reset,
  };
}

/** Counts one for-sale change of the event today; `allowed` false past the daily limit. */
export async function countForSaleEdit(redis: Redis, event: EventRef, now: number): Promise<RateLimitInfo> {
  const { day, reset } = dayOf(now);
  const key = forSaleEditsKey(event, day);
  const results = await redis.multi().incr(key).pexpireat(key, reset.getTime()).exec();
  return limitInfo(Number(results?.[0]?.[1] ?? FOR_SALE_EDITS_PER_DAY + 1), reset, true);
}

/** Today's count without counting (free calls, and checking a batch before counting any of it). */
export async function forSaleEditsLeft(redis: Redis, event: EventRef, now: number): Promise<RateLimitInfo> {
  const { day, reset } = dayOf(now);
  return limitInfo(Number((await redis.get(forSaleEditsKey(event, day))) ?? 0), reset, false);
}
