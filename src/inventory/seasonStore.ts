import type { RedisClient } from './redis.js';
import { eventKeys, SEASON_FEED_LENGTH, seasonFeedKey, seasonForgottenKey, seasonUseKey, seasonVersionKey, type EventRef } from './eventKeys.js';
import type { Scripts } from './scripts.js';

// What the admin side keeps of a season's make-up in Redis: its version
// (src/inventory/eventKeys.ts, seasonVersionKey), read when a unit of a season is loaded for
// the sales flow and bumped after every change to the season's make-up, before any cache
// is dropped; and the season's count of stored records, which a unit leaves when it is
// marked as past or deleted.

export class SeasonStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: Scripts,
  ) {}

  /** The unit no longer counts in its season's seasonUse (lua/forget-season-unit-3.lua). */
  async forget(unit: EventRef): Promise<void> {
    await this.scripts.forgetSeasonUnit(eventKeys(unit).objects, seasonUseKey(unit), seasonForgottenKey(unit), unit._id);
  }

  /** The season's version now ('0' before its first change). */
  async current(unit: EventRef): Promise<string> {
    return (await this.redis.get(seasonVersionKey(unit))) ?? '0';
  }

  /**
   * A new version, and a mark in the season's feed (field `m`) at that point, so the live
   * stream's followers of its events read the new make-up (docs/status-stream.md, "Seasons").
   */
  async bump(unit: EventRef): Promise<void> {
    const version = await this.redis
      .multi()
      .incr(seasonVersionKey(unit))
      .xadd(seasonFeedKey(unit), 'MAXLEN', '~', String(SEASON_FEED_LENGTH), '0-*', 'm', '1')
      .exec();
    for (const [error] of version ?? []) if (error) throw error;
  }
}
