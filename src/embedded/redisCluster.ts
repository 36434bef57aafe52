import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startChildServer, type ChildServer } from './childServer.js';
import { freePort } from './freePort.js';

// A private Redis Cluster for tests and the bench (docs/operations.md, "Redis Cluster"): `masters`
// redis-servers from PATH with cluster mode on, each on a free port with a free cluster bus
// port, joined with `redis-cli --cluster create`, with `replicas` replicas per master (none
// unless said: docs/operations.md, "High availability"). Like startRedisServer,
// it never touches a Redis it did not start.

const run = promisify(execFile);

export interface RedisClusterNodes {
  /** The nodes, in the order they were started (the masters first, then their replicas): `host:port` for REDIS_CLUSTER_NODES. */
  addresses: string[];
  servers: ChildServer[];
  /** Starts the node at `index` of `servers` again on its port and directory (after a kill): it rejoins as its nodes.conf says. */
  restart(index: number): Promise<ChildServer>;
  /** `redis-cli` with its arguments, for reshards and checks. */
  cli(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** How long a node waits for another before it counts it as failing; short, since all run here. */
const NODE_TIMEOUT_MS = 2_000;

/** `appendOnly`: each node keeps an append-only file synced every second (as `npm run dev`'s Redis does), so the bench compares like with like. */
export async function startRedisCluster(options: { dir: string; masters?: number; replicas?: number; appendOnly?: boolean }): Promise<RedisClusterNodes> {
  const masters = options.masters ?? 3;
  const replicas = options.replicas ?? 0;
  const servers: ChildServer[] = [];
  const ports: [number, number][] = [];
  const stop = async () => void (await Promise.allSettled(servers.map((server) => server.stop())));
  const startNode = (i: number, port: number, busPort: number) => {
    const dir = resolve(join(options.dir, String(port)));
    mkdirSync(dir, { recursive: true });
    return startChildServer({
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
    });
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      ports.push([port, busPort]);
      servers.push(await startNode(i, port, busPort));
    }
    const addresses = servers.map((server) => new URL(server.url).host);
    const cli = async (...args: string[]) => (await run('redis-cli', args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
    await cli('--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes');
    await untilEveryNodeSeesAllSlots(servers.map((server) => server.url), masters);
    if (replicas > 0) await untilReplicasSynced(servers.map((server) => server.url), masters * replicas);
    const restart = async (index: number) => {
      await servers[index]!.stop();
      servers[index] = await startNode(index, ...ports[index]!);
      return servers[index]!;
    };
    return { addresses, servers, restart, cli, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Every replica has finished its first sync with its master. */
async function untilReplicasSynced(urls: string[], expected: number): Promise<void> {
  const until = Date.now() + 20_000;
  for (;;) {
    let synced = 0;
    for (const url of urls) {
      const node = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        const info = String(await node.info('replication'));
        if (info.includes('role:slave') && info.includes('master_link_status:up') && !info.includes('master_sync_in_progress:1')) synced++;
      } finally {
        node.disconnect();
      }
    }
    if (synced >= expected) return;
    if (Date.now() > until) throw new Error(`${synced} of ${expected} replicas synced`);
    await new Promise((r) => setTimeout(r, 100));
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
