import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startChildServer, type ChildServer } from './childServer.js';
import { freePort } from './freePort.js';

// A private Redis Cluster for tests and the bench (docs/operations.md, "Redis Cluster"): `masters`
// redis-servers from PATH with cluster mode on, each on a free port with a free cluster bus
// port, joined with `redis-cli --cluster create` and no replicas. Like startRedisServer,
// it never touches a Redis it did not start.

const run = promisify(execFile);

export interface RedisClusterNodes {
  /** The masters, in the order they were started: `host:port` for REDIS_CLUSTER_NODES. */
  addresses: string[];
  servers: ChildServer[];
  /** `redis-cli` with its arguments, for reshards and checks. */
  cli(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** How long a node waits for another before it counts it as failing; short, since all run here. */
const NODE_TIMEOUT_MS = 2_000;

/** `appendOnly`: each node keeps an append-only file synced every second (as `npm run dev`'s Redis does), so the bench compares like with like. */
export async function startRedisCluster(options: { dir: string; masters?: number; appendOnly?: boolean }): Promise<RedisClusterNodes> {
  const masters = options.masters ?? 3;
  const servers: ChildServer[] = [];
  const stop = async () => void (await Promise.allSettled(servers.map((server) => server.stop())));
  try {
    for (let i = 0; i < masters; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      const dir = resolve(join(options.dir, String(port)));
      mkdirSync(dir, { recursive: true });
      servers.push(
        await startChildServer({
          name: `redis-server (cluster node ${i + 1})`,
          command: 'redis-server',
          args: [
            '--port', String(port),
            '--bind', '127.0.0.1',
            '--dir', dir,
            '--cluster-enabled', 'yes',
            '--cluster-port', String(busPort),
            '--cluster-config-file', 'nodes.conf',
            '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
            '--appendonly', options.appendOnly ? 'yes' : 'no',
            '--appendfsync', 'everysec',
            '--save', '',
            '--daemonize', 'no',
            '--protected-mode', 'yes',
          ],
          readyLine: /Ready to accept connections/,
          url: `redis://127.0.0.1:${port}`,
        }),
      );
    }
    const addresses = servers.map((server) => new URL(server.url).host);
    const cli = async (...args: string[]) => (await run('redis-cli', args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
    await cli('--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes');
    await untilEveryNodeSeesAllSlots(servers.map((server) => server.url), masters);
    return { addresses, servers, cli, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `redis-cli --cluster create` returns once the slots are assigned; the nodes may still be agreeing on them. */
async function untilEveryNodeSeesAllSlots(urls: string[], masters: number): Promise<void> {
  const until = Date.now() + 20_000;
  for (const url of urls) {
    const node = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      for (;;) {
        const info = String(await node.call('CLUSTER', 'INFO'));
        const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, ...unknown[]][];
        const owners = new Set(ranges.map((range) => JSON.stringify(range[2])));
        const covered = ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
        if (info.includes('cluster_state:ok') && covered === 16384 && owners.size === masters) break;
        if (Date.now() > until) throw new Error(`the cluster did not settle: ${url} has ${covered} slots on ${owners.size} masters`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      node.disconnect();
    }
  }
}
