import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../../src/inventory/redis.js';
import { areaState, objectState, type AreaState } from '../../src/domain/objectStates.js';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import type { BenchEvent, BenchSeason } from './admin.js';
import { commandStats, type CommandStats } from './commandStats.js';
import type { Inventory } from './inventory.js';

// What the server's Redis holds after a scenario: the final state every scenario's checks
// compare with what its requests were told. Read straight from the inventory (the single
// source of truth), with the same record decoding the server uses. On a cluster (bench
// --cluster) the data is read through the cluster, and the figures of Redis itself
// (memory, CPU, commands) are those of every master together.

// Events outside seasons use their own id as hash tag, events of a season their season's (src/metadata/events.ts).
const keysOf = (event: BenchEvent) => eventKeys({ _id: event.id, tag: event.tag ?? String(event.id) });

/** One redis-server's append-only file (INFO persistence). */
export interface AppendOnlyFile {
  enabled: boolean;
  rewriting: boolean;
  currentBytes: number;
  baseBytes: number;
}

export class FinalState implements Inventory {
  readonly redis: RedisClient;
  /** Each redis-server: the one, or every master of the cluster. */
  private readonly servers: Redis[];

  /** One Redis by URL, or a cluster's masters by URL with `cluster` true. */
  constructor(urls: string[], cluster = false) {
    this.servers = urls.map((url) => new Redis(url, { maxRetriesPerRequest: 1 }));
    this.redis = cluster ? new Cluster(urls.map((url) => new URL(url).host), { redisOptions: { maxRetriesPerRequest: 1 } }) : this.servers[0]!;
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

  /** Read from each unit's own records: a label booked in the season's and in an event's. */
  async seasonAndEventBookings(seasons: BenchSeason[]): Promise<number> {
    let both = 0;
    for (const { season, events } of seasons) {
      const onTheSeason = await this.booked(season);
      for (const event of events) for (const label of await this.booked(event)) if (onTheSeason.has(label)) both++;
    }
    return both;
  }

  /** Bytes Redis uses for data, after its allocator settled. */
  async usedMemory(): Promise<number> {
    const infos = await Promise.all(this.servers.map((server) => server.info('memory')));
    return infos.reduce((sum, info) => sum + Number(/used_memory:(\d+)/.exec(info)![1]), 0);
  }

  /** The redis-servers' process ids (their CPU is measured per scenario). */
  async processIds(): Promise<number[]> {
    return Promise.all(this.servers.map(async (server) => Number(/process_id:(\d+)/.exec(await server.info('server'))![1])));
  }

  /** Each redis-server's append-only file: whether it has one, its size now and after its last rewrite, and whether a rewrite runs or waits. */
  async appendOnlyFiles(): Promise<AppendOnlyFile[]> {
    return Promise.all(
      this.servers.map(async (server) => {
        const info = await server.info('persistence');
        const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
        return {
          enabled: field('aof_enabled') === 1,
          rewriting: field('aof_rewrite_in_progress') === 1 || field('aof_rewrite_scheduled') === 1,
          currentBytes: field('aof_current_size'),
          baseBytes: field('aof_base_size'),
        };
      }),
    );
  }

  /**
   * Turns off Redis's own rewrites of the append-only file (`auto-aof-rewrite-percentage 0`):
   * the bench rewrites it between scenarios instead (settle.ts), so none runs beside one.
   */
  async rewriteAppendOnlyFilesOnlyWhenAsked(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.config('SET', 'auto-aof-rewrite-percentage', '0')));
  }

  /**
   * Starts a rewrite of the append-only file of each redis-server whose file grew past `factor`
   * times its base and is not being rewritten (settle.ts); says whether it started any.
   */
  async rewriteAppendOnlyFiles(factor: number): Promise<boolean> {
    const files = await this.appendOnlyFiles();
    const due = this.servers.filter((_, i) => files[i]!.enabled && !files[i]!.rewriting && files[i]!.currentBytes > files[i]!.baseBytes * factor);
    await Promise.all(due.map((server) => server.bgrewriteaof()));
    return due.length > 0;
  }

  /** Processes Redis forked so far (INFO stats: an AOF rewrite is one), every server's added up. */
  async forks(): Promise<number> {
    const infos = await Promise.all(this.servers.map((server) => server.info('stats')));
    return infos.reduce((sum, info) => sum + Number(/total_forks:(\d+)/.exec(info)?.[1] ?? 0), 0);
  }

  /** Calls and CPU microseconds Redis spent per command so far (INFO commandstats), every server's added up. */
  async commandStats(): Promise<CommandStats> {
    const total: CommandStats = new Map();
    for (const stats of await Promise.all(this.servers.map(commandStats))) {
      for (const [name, { calls, usec }] of stats) {
        const sum = total.get(name) ?? { calls: 0, usec: 0 };
        total.set(name, { calls: sum.calls + calls, usec: sum.usec + usec });
      }
    }
    return total;
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers, ...(this.redis instanceof Cluster ? [this.redis] : [])].map((r) => r.quit()));
  }
}
