import type { RedisClient } from './redis.js';

// Redis's clock as seen from this process. A status change's deadline is judged by the
// Redis that applies it (lua/includes/requestRecord.lua), so the server converts its own
// time into Redis time with an offset measured on each (re)connect and every half minute.
// Across machines kept in step by NTP the offset is a few milliseconds; the margin in
// AtMostOnceCalls covers the measuring error.

const RESAMPLE_MS = 30_000;
/** A sample whose round trip took longer says little about the offset. */
const MAX_SAMPLE_RTT_MS = 50;

export class RedisClock {
  private offsetMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly redis: RedisClient) {
    redis.on('ready', () => void this.sample());
    if (redis.status === 'ready') void this.sample();
    this.timer = setInterval(() => void this.sample(), RESAMPLE_MS).unref();
  }

  /** Now, in ms since the epoch, by Redis's clock. */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sample(): Promise<void> {
    if (this.redis.status !== 'ready') return;
    try {
      const before = Date.now();
      const [seconds, micros] = await this.redis.time();
      const after = Date.now();
      if (after - before > MAX_SAMPLE_RTT_MS) return;
      this.offsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (before + after) / 2;
    } catch {
      // Redis went away mid-sample: the last offset stays until it is back.
    }
  }
}
