import type { Redis } from 'ioredis';
import { seasonVersionKey, type EventRef } from './eventKeys.js';

// The make-up version of each season (src/inventory/eventKeys.ts, seasonVersionKey): read
// when a unit of a season is loaded for the sales flow, bumped after every change to the
// season's make-up, before any cache is dropped.

export class SeasonVersions {
  constructor(private readonly redis: Redis) {}

  /** The season's version now ('0' before its first change). */
  async current(unit: EventRef): Promise<string> {
    return (await this.redis.get(seasonVersionKey(unit))) ?? '0';
  }

  async bump(unit: EventRef): Promise<void> {
    await this.redis.incr(seasonVersionKey(unit));
  }
}
