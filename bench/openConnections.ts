import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer } from '../src/embedded/childServer.js';
import { freePort } from '../src/embedded/freePort.js';
import { SERVER_NODE_FLAGS } from '../src/serverFlags.js';
import { measureOpenConnections } from './lib/openConnections.js';

// `npm run bench:connections [count]`: the server on its embedded defaults (as `npm run
// bench` starts it) with `count` (default 10,000) idle keep-alive connections open: its RSS
// before and with them, and requests on another connection answered meanwhile (docs/benchmarks.md,
// "Open connections"). One JSON object on stdout.

const count = Number(process.argv[2] ?? 10_000);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-connections-'));
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
try {
  const workspaceKey = /Default workspace secret key\s+(\S+)/.exec(server.output())![1]!;
  const figures = await measureOpenConnections({ url: server.url, pid: server.pid, count, workspaceKey, awaitIdleClose: true });
  if (figures.limitedBy) console.error(`opened ${figures.target} connections, not ${count}: ${figures.limitedBy}`);
  console.log(JSON.stringify(figures, null, 2));
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
