import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { projectDir } from '../util/projectDir.js';

// Starts a server process's background jobs in a worker thread (src/jobs/jobThread.ts), and
// stops them. The thread runs the built code (dist/src/jobs/jobThread.js), from src/ (the
// tests, which build first) as from dist/.

/** A thread that dies on its own is started again after this long. */
const RESTART_DELAY_MS = 1_000;

export interface BackgroundThread {
  stop(timeoutMs: number): Promise<void>;
}

/** Resolves once the jobs run in their thread. */
export async function startBackgroundThread(config: Config, logger: Logger): Promise<BackgroundThread> {
  const script = join(projectDir(), 'dist', 'src', 'jobs', 'jobThread.js');
  let stopping = false;
  let worker!: Worker;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      worker = new Worker(script, { workerData: config });
      worker.once('message', (message) => (message === 'started' ? resolve() : undefined));
      worker.on('error', (error) => {
        logger.error({ err: error.message }, 'background jobs thread failed');
        reject(error);
      });
      worker.once('exit', (code) => {
        if (stopping) return;
        logger.error({ code }, 'background jobs thread exited; starting another');
        setTimeout(() => !stopping && void start().catch(() => undefined), RESTART_DELAY_MS);
      });
    });
  await start();

  return {
    async stop(timeoutMs) {
      stopping = true;
      const current = worker;
      const stopped = new Promise<void>((resolve) => {
        current.on('message', (message) => message === 'stopped' && resolve());
        current.once('exit', () => resolve());
      });
      current.postMessage('stop');
      const timer = setTimeout(() => void current.terminate(), timeoutMs);
      await stopped;
      clearTimeout(timer);
      await current.terminate();
    },
  };
}
