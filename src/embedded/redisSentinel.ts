import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { startChildServer, type ChildServer } from './childServer.js';
import { freePort } from './freePort.js';
import { startRedisServer } from './redisServer.js';

// A private primary, its replicas and three Redis Sentinels watching them, for tests and the
// bench (docs/operations.md, "High availability"): redis-servers from PATH on free loopback
// ports, sentinels started as `redis-server <config> --sentinel` with a config file written
// here. Like startRedisServer, it never touches a Redis it did not start.

/** The name the sentinels know the primary by: REDIS_SENTINEL_NAME. */
export const SENTINEL_NAME = 'seatsio';

export interface RedisSentinelSet {
  /** The data nodes as started: the primary first, then the replicas (a failover changes which is which). */
  servers: ChildServer[];
  /** The sentinels' `host:port`: REDIS_SENTINELS. */
  sentinelAddresses: string[];
  sentinels: ChildServer[];
  /** The port of the primary the sentinels name now. */
  primaryPort(): Promise<number>;
  /** Starts the data node at `index` of `servers` again (after a kill), as a replica of the current primary. */
  restartAsReplica(index: number): Promise<ChildServer>;
  stop(): Promise<void>;
}

export async function startRedisSentinels(options: { dir: string; replicas?: number; sentinels?: number; downAfterMs?: number; appendOnly?: boolean }): Promise<RedisSentinelSet> {
  const servers: ChildServer[] = [];
  const sentinels: ChildServer[] = [];
  const stop = async () => void (await Promise.allSettled([...servers, ...sentinels].map((server) => server.stop())));
  const dataNode = async (index: number, replicaOf?: number, port?: number) =>
    startRedisServer({ dir: join(options.dir, `node-${index}`), appendOnly: options.appendOnly ?? false, appendFsync: 'everysec', replicaOf, port });
  try {
    const primary = await dataNode(0);
    servers.push(primary);
    const primaryPort = Number(new URL(primary.url).port);
    for (let i = 1; i <= (options.replicas ?? 1); i++) servers.push(await dataNode(i, primaryPort));
    for (let i = 0; i < (options.sentinels ?? 3); i++) {
      const port = await freePort();
      const dir = resolve(join(options.dir, `sentinel-${i}`));
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'sentinel.conf');
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          'daemonize no',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_NAME} ${options.downAfterMs ?? 2_000}`,
          `sentinel failover-timeout ${SENTINEL_NAME} 10000`,
          `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
          '',
        ].join('\n'),
      );
      sentinels.push(
        await startChildServer({ name: `redis sentinel ${i + 1}`, command: 'redis-server', args: [file, '--sentinel'], readyLine: /\+monitor master/, url: `redis://127.0.0.1:${port}` }),
      );
    }
    const sentinelAddresses = sentinels.map((sentinel) => new URL(sentinel.url).host);
    const primaryPortNow = async () => {
      for (const address of sentinelAddresses) {
        const sentinel = new Redis(`redis://${address}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        sentinel.on('error', () => undefined);
        try {
          const [, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME)) as [string, string];
          return Number(port);
        } catch {
          // the next one
        } finally {
          sentinel.disconnect();
        }
      }
      throw new Error('no sentinel answered');
    };
    // The sentinels know the replicas once they have asked the primary (INFO, every 10 s at first): a failover needs that.
    const until = Date.now() + 20_000;
    for (const sentinel of sentinels) {
      const client = new Redis(sentinel.url);
      try {
        while (((await client.call('SENTINEL', 'REPLICAS', SENTINEL_NAME)) as unknown[]).length < servers.length - 1) {
          if (Date.now() > until) throw new Error('the sentinels did not find the replicas');
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        client.disconnect();
      }
    }
    return {
      servers,
      sentinelAddresses,
      sentinels,
      primaryPort: primaryPortNow,
      async restartAsReplica(index: number) {
        const port = Number(new URL(servers[index]!.url).port);
        await servers[index]!.stop();
        const server = await dataNode(index, await primaryPortNow(), port);
        servers[index] = server;
        return server;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
