import type { Redis } from 'ioredis';

// Redis's own account of each command (INFO commandstats): how often it ran and the
// microseconds it spent in it, by command name (lower case: `fcall`, `evalsha`, `hset`).

export type CommandStats = Map<string, { calls: number; usec: number }>;

export async function commandStats(redis: Redis): Promise<CommandStats> {
  const stats: CommandStats = new Map();
  for (const [, name, calls, usec] of (await redis.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+),usec=(\d+)/g)) {
    stats.set(name!, { calls: Number(calls), usec: Number(usec) });
  }
  return stats;
}
