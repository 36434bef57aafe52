import { Redis } from 'ioredis';
import { areaState, objectState, type AreaState } from '../../src/domain/objectStates.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import type { BenchEvent } from './admin.js';
import { commandStats, type CommandStats } from './commandStats.js';

// What the server's Redis holds after a scenario: the final state every scenario's checks
// compare with what its requests were told. Read straight from the inventory (the single
// source of truth), with the same record decoding the server uses.

// Events outside seasons use their own id as hash tag, events of a season their season's (src/metadata/events.ts).
const keysOf = (event: BenchEvent) => eventKeys({ _id: event.id, tag: event.tag ?? String(event.id) });

export class FinalState {
  readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
  }

  /** The labels booked in the event (free objects have no record; expired holds read as free). */
  async booked(event: BenchEvent): Promise<Set<string>> {
    const records = await this.redis.hgetall(keysOf(event).objects);
    const tokenExpiry = await this.redis.hgetall(keysOf(event).holdTokens);
    const now = Date.now();
    const booked = new Set<string>();
    for (const [label, record] of Object.entries(records)) {
      if (objectState(record, (token) => Number(tokenExpiry[token] ?? 0), now).status === 'booked') booked.add(label);
    }
    return booked;
  }

  async area(event: BenchEvent, label: string): Promise<AreaState> {
    return areaState(await this.redis.hget(keysOf(event).objects, label));
  }

  /** Bytes Redis uses for data, after its allocator settled. */
  async usedMemory(): Promise<number> {
    const info = await this.redis.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)![1]);
  }

  /** The redis-server's process id (its CPU is measured per scenario). */
  async processId(): Promise<number> {
    return Number(/process_id:(\d+)/.exec(await this.redis.info('server'))![1]);
  }

  /** Calls and CPU microseconds Redis spent per command so far (INFO commandstats). */
  commandStats(): Promise<CommandStats> {
    return commandStats(this.redis);
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
