import { Redis } from 'ioredis';
import { afterAll, beforeAll, inject } from 'vitest';
import { AtMostOnceCalls, RECORD_WINDOW_MS } from '../../src/inventory/atMostOnce.js';
import { RedisClock } from '../../src/inventory/redisClock.js';
import { Scripts } from '../../src/inventory/scripts.js';
import { applyPlainChange, plainOutcome, type AppliedChanges, type EventStatusChange } from '../../src/inventory/statusChanges.js';
import type { UsageOwner } from '../../src/inventory/usedObjects.js';
import { eventKeys, type EventRef } from '../../src/inventory/eventKeys.js';
import { streamChanges } from './historyStream.js';
import { RedisMonitor } from './redisMonitor.js';

// The status function's calls as the sales flow makes them, on a Redis of the tests, under a
// key prefix of their own (the twin-event tests of lua/includes/plainChanges.lua and
// plainRequest.lua).

export interface StatusCalls {
  redis: Redis;
  calls: AtMostOnceCalls;
  /**
   * Resolves early in a record window (src/inventory/atMostOnce.ts, RECORD_WINDOW_MS): calls
   * made at once from there share one record hash, so one batch, however slow the machine is.
   */
  windowStart(): Promise<void>;
  close(): Promise<void>;
}

export function statusCallsOn(redisUrl: string, prefix: string): StatusCalls {
  const redis = new Redis(redisUrl, { keyPrefix: prefix });
  const clock = new RedisClock(redis);
  const calls = new AtMostOnceCalls(new Scripts(redis), redis, clock, { timeoutMs: 5_000, maxOutstanding: 100 });
  return {
    redis,
    calls,
    windowStart: async () => {
      for (let into = clock.now() % RECORD_WINDOW_MS; into > RECORD_WINDOW_MS / 4; into = clock.now() % RECORD_WINDOW_MS) {
        await new Promise((wake) => setTimeout(wake, RECORD_WINDOW_MS - into));
      }
    },
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
          resolve(plainOutcome(reply, change));
        } catch (error) {
          reject(error);
        }
      },
      reject,
    }),
  );
}

export interface PlainWayWatch {
  /** MONITOR's lines reach us a little after a call's reply: waits for a marker sent after it. */
  settled(): Promise<void>;
  /** Where MONITOR's lines stand now (a `from` for tookPlainWay). */
  position(): number;
  /**
   * Whether the calls on `event` since MONITOR's line `from` were written the plain way
   * (lua/includes/plainChanges.lua): it reads the records with one HMGET, and the general way
   * reads each with HGET (a plain way that declines has read with HMGET first, then the
   * general way with HGET).
   */
  tookPlainWay(event: EventRef, from: number): boolean;
  /** The commands MONITOR saw since its line `from`, lower-cased, with the key prefix taken off their arguments. */
  commandsSince(from: number): string[][];
}

/** Which way the status function took, from `monitor`'s lines, for calls made through `redis` (its key prefix `prefix`). */
export function plainWayWatch(monitor: RedisMonitor, redis: Redis, prefix: string): PlainWayWatch {
  let markers = 0;
  return {
    async settled() {
      const marker = `${prefix}settled-${++markers}`;
      const from = monitor.commands.length;
      await redis.exists(marker.slice(prefix.length));
      await monitor.seen((args) => args[0]?.toLowerCase() === 'exists' && args[1] === marker, from);
    },
    position: () => monitor.commands.length,
    tookPlainWay(event, from) {
      const objects = prefix + eventKeys(event).objects;
      const reads = (command: string) => monitor.commands.slice(from).some((args) => args[0]?.toLowerCase() === command && args[1] === objects);
      return reads('hmget') && !reads('hget');
    },
    commandsSince: (from) =>
      monitor.commands.slice(from).map(([command, ...args]) => [command!.toLowerCase(), ...args.map((arg) => (arg.startsWith(prefix) ? arg.slice(prefix.length) : arg))]),
  };
}

/** What a twin-event test of the plain way uses: status calls under a key prefix of its own, and which way they took. */
export interface WatchedStatusCalls {
  redis: Redis;
  calls: AtMostOnceCalls;
  way: PlainWayWatch;
}

/** Status calls and their MONITOR, opened before the file's tests (on the tests' Redis) and closed after them. */
export function useWatchedStatusCalls(name: string): WatchedStatusCalls {
  const watched = {} as WatchedStatusCalls;
  let on: StatusCalls | undefined;
  let monitor: RedisMonitor | undefined;
  beforeAll(async () => {
    const prefix = `${name}-${process.pid}-${Date.now()}:`;
    on = statusCallsOn(inject('redisUrl'), prefix);
    monitor = await RedisMonitor.open(inject('redisUrl'));
    Object.assign(watched, { redis: on.redis, calls: on.calls, way: plainWayWatch(monitor, on.redis, prefix) });
  });
  afterAll(async () => {
    monitor?.close();
    await on?.close();
  });
  return watched;
}

/** Everything a status call can leave in an event: records, extra data, token entries, GA holds and their expiry, history. */
export async function eventInventory(redis: Redis, event: EventRef) {
  const keys = eventKeys(event);
  return {
    records: await redis.hgetall(keys.objects),
    extraData: await redis.hgetall(keys.extraData),
    holdTokens: await redis.hgetall(keys.holdTokens),
    gaHolds: await redis.hgetall(keys.gaHolds),
    gaHoldExpiry: await redis.zrange(keys.gaHoldExpiry, 0, -1, 'WITHSCORES'),
    history: await streamChanges(redis, keys.history),
  };
}

/** `value` with the events it names (an answer's holding changes do) written as their names, so twins' answers compare. */
export const withNames = (value: unknown, names: [string, EventRef][]) =>
  JSON.parse(JSON.stringify(value ?? null, (_, v: unknown) => names.find(([, event]) => event === v)?.[0] ?? v)) as unknown;

/**
 * Sends every status call on `event` the general way (and, on a top-level season, its units'
 * calls, which inherit its sale config): a sale config field for an object no chart has,
 * which changes no rule but is a sale config the plain way declines (lua/includes/plainChanges.lua).
 */
export const takeGeneralWay = (redis: Redis, event: EventRef) => redis.hset(eventKeys(event).saleConfig, 'c:NO-SUCH-SEAT', 'ch1');
