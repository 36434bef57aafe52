import { loadConfigOrExit } from './config.js';
import { createLogger } from './log.js';
import { runUntilSignalled } from './processRun.js';

// `npm run worker`: the background jobs (docs/history.md) in a process of their own, for
// deployments that start their HTTP servers with BACKGROUND_JOBS=off. Same configuration
// as the server (REDIS_URL, MONGODB_URL, REDIS_KEY_PREFIX, ...). Run as many as you like:
// BullMQ hands each job to one of them. Exits 0 after SIGTERM/SIGINT. The jobs' modules load
// once the configuration is read, so a configuration error is reported at once.

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const { startWorker } = await import('./app.js');
await runUntilSignalled(
  () => startWorker(config, logger),
  async (running, signal) => {
    logger.info({ signal }, 'stopping background jobs');
    await running.stop();
    return true;
  },
);
logger.info('background jobs running');
