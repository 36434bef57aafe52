import { loadConfigOrExit } from './config.js';
import { createLogger } from './log.js';
import { runUntilSignalled } from './processRun.js';
import { runServerProcesses } from './serverProcesses.js';
import { fileURLToPath } from 'node:url';

// Production start-up: `npm start`. Runs against the REDIS_URL and MONGODB_URL it is
// given and never starts servers itself (that is src/dev.ts). Exits 0 after a graceful
// shutdown on SIGTERM/SIGINT. With WORKERS=N (N > 1) it runs N server processes on one
// port instead of serving itself. The server's modules load only once the configuration is
// read (serve): a configuration error is reported at once, and the parent of WORKERS processes
// never loads them.

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
if (config.workers > 1) {
  // N server processes on one port; this one only looks after them (src/serverProcesses.ts).
  const processes = await runUntilSignalled(
    () => runServerProcesses({ count: config.workers, port: config.port, script: fileURLToPath(import.meta.url), env: process.env, logger }),
    async (running, signal) => {
      logger.info({ signal }, 'stopping the server processes');
      return running.stop(signal as NodeJS.Signals);
    },
  );
  await processes.ready;
  logger.info({ port: processes.port, host: config.host, processes: processes.pids() }, 'server processes listening');
} else {
  await serve();
}

async function serve(): Promise<void> {
  const { startApp } = await import('./app.js');
  const app = await runUntilSignalled(
    () => startApp(config, logger),
    async (running, signal) => {
      logger.info({ signal }, 'shutting down: answering what arrives until requests stop coming, then closing');
      const clean = await running.shutdown(config.shutdownTimeoutMs);
      logger.info({ clean }, 'stopped');
      return clean;
    },
  );
  logger.info({ port: app.port, host: config.host }, 'listening');
  // Started by WORKERS=N (src/serverProcesses.ts): the parent waits for this.
  process.send?.({ listening: app.port });
  // A parent killed outright (SIGKILL, the OOM killer) cannot pass SIGTERM on: its children
  // would serve on, orphaned, beside the ones its next start makes. Its channel closing
  // stops this one as SIGTERM would.
  if (process.send) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
