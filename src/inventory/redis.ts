import { Redis } from 'ioredis';

/**
 * A Redis connection for commands. `maxRetriesPerRequest: null` keeps commands queued
 * while a connection blips instead of failing a checkout; BullMQ requires it too.
 */
export function connectRedis(url: string, name: string): Redis {
  return new Redis(url, { connectionName: name, maxRetriesPerRequest: null, enableAutoPipelining: true, lazyConnect: false });
}

export async function pingRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error(`Redis answered ${answer} to PING`);
}
