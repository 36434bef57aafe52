import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { settleWithin } from '../util/timeout.js';

/**
 * A Redis connection for commands. `maxRetriesPerRequest: null` keeps commands queued
 * while a connection blips instead of failing a checkout; BullMQ requires it too.
 * Connection errors go to the log (ioredis would print each retry to stderr otherwise).
 */
export function connectRedis(url: string, name: string, logger: Logger, keyPrefix = ''): Redis {
  const redis = new Redis(url, { connectionName: name, maxRetriesPerRequest: null, enableAutoPipelining: true, lazyConnect: false, keyPrefix });
  redis.on('error', (error: Error) => logger.warn({ connection: name, err: error.message }, 'redis connection error'));
  return redis;
}

/**
 * Answers only on a live connection: while disconnected the PING would wait in the offline
 * queue until Redis returns, piling up one queued PING per readiness probe.
 */
export async function pingRedis(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') throw new Error(`connection is ${redis.status}`);
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error(`Redis answered ${answer} to PING`);
}

/** QUIT waits for queued commands; if Redis is gone they never finish, so cut it after `ms`. */
export async function closeRedis(redis: Redis, ms: number): Promise<void> {
  await settleWithin(redis.quit(), ms);
  redis.disconnect();
}
