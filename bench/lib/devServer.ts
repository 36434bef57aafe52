import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../../src/embedded/childServer.js';
import { freePort } from '../../src/embedded/freePort.js';
import { SERVER_NODE_FLAGS } from '../../src/serverFlags.js';

// The server as `npm run dev` starts it (its embedded redis-server and MongoDB wire server,
// one process, no sample event), with the V8 flags of `npm start`, in a data folder of its
// own: what the benchmarks of one thing (idle memory, open connections, history pages) run
// against. `stop` stops it and removes its folder.

export async function startDevServer(name: string): Promise<ChildServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const port = await freePort();
  const server = await startChildServer({
    name: 'server (npm run dev)',
    command: process.execPath,
    args: [...SERVER_NODE_FLAGS, 'dist/src/dev.js'],
    env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: '', MONGODB_URL: '', WORKERS: '1', DEV_SAMPLE: 'off' },
    readyLine: /Ctrl\+C/,
    url: `http://127.0.0.1:${port}`,
    timeoutMs: 60_000,
  });
  return {
    ...server,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A key the dev server printed when it started ("Company admin key", "Default workspace secret key"). */
export function printedKey(server: ChildServer, name: string): string {
  return new RegExp(`${name}\\s+(\\S+)`).exec(server.output())![1]!;
}
