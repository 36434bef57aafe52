import { measureOpenConnections } from './lib/openConnections.js';
import { printedKey, startDevServer } from './lib/devServer.js';

// `npm run bench:connections [count]`: the server on its embedded defaults (as `npm run
// bench` starts it) with `count` (default 10,000) idle keep-alive connections open: its RSS
// before and with them, and requests on another connection answered meanwhile (docs/benchmarks.md,
// "Benches of one part"). One JSON object on stdout.

const count = Number(process.argv[2] ?? 10_000);
const server = await startDevServer('connections');
try {
  const workspaceKey = printedKey(server, 'Default workspace secret key');
  const figures = await measureOpenConnections({ url: server.url, pid: server.pid, count, workspaceKey, awaitIdleClose: true });
  if (figures.limitedBy) console.error(`opened ${figures.target} connections, not ${count}: ${figures.limitedBy}`);
  console.log(JSON.stringify(figures, null, 2));
} finally {
  await server.stop();
}
