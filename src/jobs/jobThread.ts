import { parentPort, workerData } from 'node:worker_threads';
import { startWorker } from '../app.js';
import type { Config } from '../config.js';
import { createLogger } from '../log.js';

// The background jobs of a server process (BACKGROUND_JOBS=in-process) run here, in a
// worker thread of that process (src/jobs/backgroundThread.ts starts it): the same as
// `npm run worker`, with connections of its own, so draining the history and giving back
// expired holds never take the event loop the sales flow answers on. A `stop` message
// stops the jobs and closes the connections; `stopped` answers it.

const config = workerData as Config;
const logger = createLogger(config.logLevel);
const running = await startWorker(config, logger);
parentPort!.postMessage('started');
parentPort!.on('message', (message) => {
  if (message !== 'stop') return;
  void running.stop().finally(() => parentPort!.postMessage('stopped'));
});
