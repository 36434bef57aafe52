import { Redis } from 'ioredis';
import { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import { RedisClock } from '../../src/inventory/redisClock.js';
import { Scripts } from '../../src/inventory/scripts.js';
import { applyPlainChange, plainOutcome, type AppliedChanges, type EventStatusChange } from '../../src/inventory/statusChanges.js';
import type { UsageOwner } from '../../src/inventory/usedObjects.js';

// The status function's calls as the sales flow makes them, on a Redis of the tests, under a
// key prefix of their own (the twin-event tests of lua/includes/plainChanges.lua and
// plainRequest.lua).

export interface StatusCalls {
  redis: Redis;
  calls: AtMostOnceCalls;
  close(): Promise<void>;
}

export function statusCallsOn(redisUrl: string, prefix: string): StatusCalls {
  const redis = new Redis(redisUrl, { keyPrefix: prefix });
  const clock = new RedisClock(redis);
  const calls = new AtMostOnceCalls(new Scripts(redis), redis, clock, { timeoutMs: 5_000, maxOutstanding: 100 });
  return {
    redis,
    calls,
    close: async () => {
      clock.stop();
      await redis.quit();
    },
  };
}

/** What a change answered: applied (with its holding changes), or the refusal's codes. */
export async function outcome(call: Promise<AppliedChanges>): Promise<unknown> {
  try {
    return await call;
  } catch (error) {
    return { refused: (error as { errors?: { code: string }[] }).errors?.map((e) => e.code) ?? String(error) };
  }
}

/** The direct way's call (src/inventory/plainRequest.ts writes its request), as a promise. */
export function directCall(calls: AtMostOnceCalls, change: EventStatusChange, now: number, ip: string | undefined, owner: UsageOwner): Promise<AppliedChanges> {
  return new Promise<AppliedChanges>((resolve, reject) =>
    applyPlainChange(calls, change, now, ip as string, owner, {
      resolve: (reply) => {
        try {
          resolve(plainOutcome(reply, change.event));
        } catch (error) {
          reject(error);
        }
      },
      reject,
    }),
  );
}
