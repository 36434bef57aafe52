import { loadConfigOrExit } from './config.js';
import { startApp } from './app.js';
import { createLogger } from './log.js';

// Production start-up: `npm start`. Runs against the REDIS_URL and MONGODB_URL it is
// given and never starts servers itself (that is src/dev.ts). Exits 0 after a graceful
// shutdown on SIGTERM/SIGINT.

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
let app;
try {
  app = await startApp(config, logger);
} catch (error) {
  console.error(`start-up failed: ${(error as Error).message}`);
  process.exit(1);
}
const running = app;
logger.info({ port: running.port, host: config.host }, 'listening');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down: answering what arrives until requests stop coming, then closing');
  const clean = await running.shutdown(config.shutdownTimeoutMs);
  logger.info({ clean }, 'stopped');
  process.exit(clean ? 0 : 1);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
