import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { startChildServer, type ChildServer } from './childServer.js';
import { freePort } from './freePort.js';

/**
 * A private redis-server from PATH on a free loopback port. With `appendOnly` its data
 * survives restarts in `dir` (the dev server uses ./.data/redis); tests use a temp dir.
 * `appendFsync` is how often the append-only file is synced (docs/operations.md, "Guarantees").
 */
export async function startRedisServer(options: {
  dir: string;
  appendOnly: boolean;
  appendFsync?: 'always' | 'everysec';
  port?: number;
  /** Starts it as a replica of the Redis at this port (loopback); ready once its first sync finished. */
  replicaOf?: number;
}): Promise<ChildServer> {
  const dir = resolve(options.dir);
  mkdirSync(dir, { recursive: true });
  const port = options.port ?? (await freePort());
  return startChildServer({
    name: 'redis-server',
    command: 'redis-server',
    args: [
      '--port', String(port),
      '--bind', '127.0.0.1',
      '--dir', dir,
      '--appendonly', options.appendOnly ? 'yes' : 'no',
      '--appendfsync', options.appendFsync ?? 'everysec',
      '--save', '',
      '--daemonize', 'no',
      '--protected-mode', 'yes',
      ...(options.replicaOf === undefined ? [] : ['--replicaof', '127.0.0.1', String(options.replicaOf)]),
    ],
    readyLine: options.replicaOf === undefined ? /Ready to accept connections/ : /MASTER <-> REPLICA sync: Finished with success/,
    url: `redis://127.0.0.1:${port}`,
  });
}
