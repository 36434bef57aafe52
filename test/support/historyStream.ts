import type { RedisClient } from '../../src/inventory/redis.js';
import { entryChanges } from '../../src/domain/statusChangeHistory.js';

/** One change of a history stream as its readers see it: its number, its text (`c`) and its entry's usage mark (`u`). */
export interface StreamChange {
  seq: number;
  c: string;
  u: string | null;
}

/**
 * The changes in an event's history stream, one per object, oldest first. A stream entry
 * holds the changes a call made to objects one after the other (lua/includes/historyEntries.lua).
 */
export async function streamChanges(redis: RedisClient, key: string): Promise<StreamChange[]> {
  const changes: StreamChange[] = [];
  for (const [id, fields] of await redis.xrange(key, '-', '+')) {
    // The mark names the entry's one field, or (entries written before) is a second field `u`.
    const u = fields[2] === 'u' ? fields[3]! : fields[0] === 'c' ? null : fields[0]!;
    for (const [seq, c] of entryChanges(id, fields[1]!)) changes.push({ seq, c, u });
  }
  return changes;
}
