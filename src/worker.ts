import { loadConfigOrExit } from './config.js';
import { startWorker } from './app.js';
import { createLogger } from './log.js';

// `npm run worker`: the background jobs (docs/history.md) in a process of their own, for
// deployments that start their HTTP servers with BACKGROUND_JOBS=off. Same configuration
// as the server (REDIS_URL, MONGODB_URL, REDIS_KEY_PREFIX, ...). Run as many as you like:
// BullMQ hands each job to one of them. Exits 0 after SIGTERM/SIGINT.

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
let worker;
try {
  worker = await startWorker(config, logger);
} catch (error) {
  console.error(`start-up failed: ${(error as Error).message}`);
  process.exit(1);
}
const running = worker;
logger.info('background jobs running');

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping background jobs');
  await running.stop();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
