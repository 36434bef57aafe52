import { loadConfigOrExit } from './config.js';
import { startApp } from './app.js';
import { createLogger } from './log.js';
import { runUntilSignalled } from './processRun.js';

// Production start-up: `npm start`. Runs against the REDIS_URL and MONGODB_URL it is
// given and never starts servers itself (that is src/dev.ts). Exits 0 after a graceful
// shutdown on SIGTERM/SIGINT.

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
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
