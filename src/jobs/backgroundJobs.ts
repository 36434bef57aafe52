import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { HistoryDrain } from './historyDrain.js';
import type { HistoryStreams } from '../inventory/historyStreams.js';

// The background work of docs/history.md, run by BullMQ: job schedulers put a `drain` job
// in the queue every DRAIN_EVERY_MS and a `sweep` job every SWEEP_EVERY_MS; whichever
// worker (in a server process, or `npm run worker`) is free takes it. One scheduler per
// queue however many processes start it, so adding servers adds workers, not jobs.

const QUEUE = 'history';
const DRAIN_EVERY_MS = 200;
const SWEEP_EVERY_MS = 10_000;

export interface BackgroundJobsOptions {
  /** Redis URL; BullMQ opens its own connections (a worker's blocks waiting for jobs). */
  redisUrl: string;
  /** The deployment's REDIS_KEY_PREFIX, in front of BullMQ's keys too. */
  keyPrefix: string;
  logger: Logger;
}

export class BackgroundJobs {
  private readonly queue: Queue;
  private readonly worker: Worker;

  constructor(drain: HistoryDrain, streams: HistoryStreams, options: BackgroundJobsOptions) {
    const connection = { url: options.redisUrl, maxRetriesPerRequest: null, retryStrategy: (attempt: number) => Math.min(attempt * 50, 500) };
    const prefix = `${options.keyPrefix}bull`;
    this.queue = new Queue(QUEUE, { connection, prefix });
    this.worker = new Worker(
      QUEUE,
      async (job: Job) => {
        if (job.name === 'drain') return drain.run();
        if (job.name === 'sweep') return { found: await streams.sweep() };
        throw new Error(`unknown job ${job.name}`);
      },
      { connection, prefix, concurrency: 1, autorun: false },
    );
    this.worker.on('failed', (job, error) => options.logger.warn({ job: job?.name, err: error.message }, 'background job failed; the next run retries'));
    this.worker.on('error', (error) => options.logger.warn({ err: error.message }, 'background worker error'));
    this.queue.on('error', (error) => options.logger.warn({ err: error.message }, 'background queue error'));
  }

  async start(): Promise<void> {
    // Finished runs are not kept: a job every 200 ms would fill Redis.
    const opts = { removeOnComplete: true, removeOnFail: 100 };
    await this.queue.upsertJobScheduler('drain', { every: DRAIN_EVERY_MS }, { name: 'drain', opts });
    await this.queue.upsertJobScheduler('sweep', { every: SWEEP_EVERY_MS }, { name: 'sweep', opts });
    // A first sweep right away: after every process was down, the hints may be lost.
    await this.queue.add('sweep', {}, opts);
    void this.worker.run();
  }

  async stop(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
  }
}
