import type { RedisClient } from './redis.js';
import type { Scripts } from './scripts.js';
import { dayOf, FOR_SALE_EDITS_PER_DAY, limitInfo, type RateLimitInfo } from '../domain/forSaleLimit.js';
import { EVENT_KEY_NAMES, eventKeys, forSaleEditsKey, seasonFeedKey, seasonInventoryKeys, type EventRef } from './eventKeys.js';

// The parts of an event's inventory that admin routes write: the channel and for-sale
// fields the scripts check, the daily limit on for-sale changes, and removal with the event.

export class EventConfigStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: Scripts,
    /** Tells the history drain that the event's stream got an entry (src/inventory/historyStreams.ts, noteChanged). */
    private readonly noteHistory: (event: EventRef) => void,
    /** Counts the used objects of history entries not drained yet (src/jobs/historyDrain.ts, countUndrained). */
    private readonly countUndrainedUsage: (event: EventRef) => Promise<void>,
  ) {}

  /**
   * Replaces the event's channel and for-sale fields (see saleConfigFields) in one step,
   * with an entry in its history stream when objects' places not for sale changed (the
   * live stream shows it: docs/status-stream.md, "For sale").
   */
  async writeSaleConfig(event: EventRef, fields: Map<string, string>, now = Date.now()): Promise<void> {
    const keys = eventKeys(event);
    const feed = event.season ? { key: seasonFeedKey(event), unitId: event._id } : undefined;
    if ((await this.scripts.writeSaleConfig(keys.saleConfig, keys.history, now, fields, feed)) > 0) this.noteHistory(event);
  }

  /**
   * Removes every inventory key of a deleted event. Used objects stay: they are billing
   * records, so those of history entries the drain has not reached are counted first.
   */
  async deleteInventory(event: EventRef): Promise<void> {
    await this.countUndrainedUsage(event);
    const keys = eventKeys(event);
    await this.redis.del(...EVENT_KEY_NAMES.map((name) => keys[name]), ...seasonInventoryKeys(event));
  }

  /**
   * Counts one for-sale change of the event today; `allowed` false past the daily limit.
   * A call `limited` by it is refused there, so its count is taken back: a refused call
   * changes nothing.
   */
  async countForSaleEdit(event: EventRef, now: number, limited: boolean): Promise<RateLimitInfo> {
    const { day, reset } = dayOf(now);
    const key = forSaleEditsKey(event, day);
    const results = await this.redis.multi().incr(key).pexpireat(key, reset.getTime()).exec();
    const info = limitInfo(Number(results?.[0]?.[1] ?? FOR_SALE_EDITS_PER_DAY + 1), reset, true);
    if (limited && !info.allowed) await this.redis.decr(key);
    return info;
  }

  /** Today's count without counting (free calls, and checking a batch before counting any of it). */
  async forSaleEditsLeft(event: EventRef, now: number): Promise<RateLimitInfo> {
    const { day, reset } = dayOf(now);
    return limitInfo(Number((await this.redis.get(forSaleEditsKey(event, day))) ?? 0), reset, false);
  }
}
