import { Queue, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HistoryDrain } from './historyDrain.js';
import type { HoldExpiry, HoldExpiryJob } from './holdExpiry.js';
import { HISTORY_QUEUE, HOLD_EXPIRY_QUEUE, jobsPrefix, workerConnection } from './jobQueues.js';
import type { HistoryStreams } from '../inventory/historyStreams.js';
import type { RedisTarget } from '../inventory/redis.js';

// The background work of docs/history.md and docs/hold-expiry.md, run by BullMQ. Queue
// `{history}`: job schedulers put a `drain` job in it every DRAIN_EVERY_MS and a `sweep` job
// every SWEEP_EVERY_MS. A drain job is a turn of DRAIN_TURN_MS, a drain run every
// DRAIN_EVERY_MS, rather than one run: BullMQ's own work per job (taking it, scheduling the
// next, finishing it) cost an idle server more than the runs (docs/performance.md, "The
// drain"). Queue `{holdExpiry}`: one delayed job per hold token (added by the
// sales flow, src/jobs/holdExpiry.ts), and a `sweep` every HOLD_SWEEP_EVERY_MS for expired
// holds whose job was lost. Whichever worker (in a server process, or `npm run worker`) is
// free takes a job. One scheduler per queue however many processes start it, so adding
// servers adds workers, not jobs.

const DRAIN_EVERY_MS = 200;
/**
 * How long one drain job keeps running the drain. The scheduler adds the next job when a
 * turn starts, so a worker that dies mid-turn leaves the drain to the next job, due
 * DRAIN_EVERY_MS later, and taken by any other worker.
 */
const DRAIN_TURN_MS = 5_000;
/**
 * The history sweep walks every key of Redis with SCAN (src/inventory/historyStreams.ts) to
 * find streams whose hint was lost: only a process that died within 50 ms of a booking loses
 * one, and a worker sweeps when it starts. With many hold tokens in Redis (keys of their own
 * and their expiry jobs') a sweep reads hundreds of thousands of keys, in pages of about a
 * millisecond of Redis that bookings queue behind (docs/performance.md, "The drain"): once a
 * minute, like the hold sweep, not every 10 s.
 */
const SWEEP_EVERY_MS = 60_000;
const HOLD_SWEEP_EVERY_MS = 60_000;
/** How long past its expiry a token's job has to give its holds back before the sweep does. */
const HOLD_SWEEP_GRACE_MS = 30_000;
/** Expiry jobs run side by side: each waits on Redis for a status script call or two. */
const HOLD_EXPIRY_CONCURRENCY = 50;

export interface BackgroundJobsOptions {
  /** The inventory's Redis; BullMQ opens its own connections (a worker's blocks waiting for jobs). */
  redis: RedisTarget;
  /** The deployment's REDIS_KEY_PREFIX, in front of BullMQ's keys too. */
  keyPrefix: string;
  logger: Logger;
  /**
   * The server's connection to the jobs' Redis: each time it is ready again after a drop (a
   * failover, a restart), every hold gets its expiry job again from its token's expiry in Redis.
   */
  reconnects?: { on(event: 'ready', listener: () => void): unknown };
}

export class BackgroundJobs {
  private readonly queue: Queue;
  private readonly worker: Worker;
  private readonly holdQueue: Queue;
  private readonly holdWorker: Worker<HoldExpiryJob>;
  private readonly closeConnection: () => Promise<void>;
  /** Aborted by stop: a drain turn ends after its current run, or at once in its pause. */
  private readonly stopping = new AbortController();

  constructor(
    drain: HistoryDrain,
    streams: HistoryStreams,
    private readonly holdExpiry: HoldExpiry,
    private readonly options: BackgroundJobsOptions,
  ) {
    const { connection, close } = workerConnection(options.redis);
    this.closeConnection = close;
    const prefix = jobsPrefix(options.keyPrefix);
    this.queue = new Queue(HISTORY_QUEUE, { connection, prefix });
    this.holdQueue = new Queue(HOLD_EXPIRY_QUEUE, { connection, prefix });
    this.holdWorker = new Worker<HoldExpiryJob>(
      HOLD_EXPIRY_QUEUE,
      async (job, lockToken) => {
        if (job.name === 'sweep') return { released: await holdExpiry.sweep(HOLD_SWEEP_GRACE_MS) };
        return holdExpiry.run(job, lockToken);
      },
      { connection, prefix, concurrency: HOLD_EXPIRY_CONCURRENCY, autorun: false },
    );
    this.worker = new Worker(
      HISTORY_QUEUE,
      async (job: Job) => {
        if (job.name === 'drain') return this.drainTurn(drain);
        if (job.name === 'sweep') return { found: await streams.sweep() };
        throw new Error(`unknown job ${job.name}`);
      },
      { connection, prefix, concurrency: 1, autorun: false },
    );
    for (const worker of [this.worker, this.holdWorker] as Worker[]) {
      worker.on('failed', (job, error) => options.logger.warn({ job: job?.name, err: error.message }, 'background job failed; it is tried again'));
      worker.on('error', (error) => options.logger.warn({ err: error.message }, 'background worker error'));
    }
    for (const queue of [this.queue, this.holdQueue]) queue.on('error', (error) => options.logger.warn({ err: error.message }, 'background queue error'));
  }

  async start(): Promise<void> {
    // Finished runs are not kept: a job every 200 ms would fill Redis.
    const opts = { removeOnComplete: true, removeOnFail: 100 };
    await this.queue.upsertJobScheduler('drain', { every: DRAIN_EVERY_MS }, { name: 'drain', opts });
    await this.queue.upsertJobScheduler('sweep', { every: SWEEP_EVERY_MS }, { name: 'sweep', opts });
    await this.holdQueue.upsertJobScheduler('sweep', { every: HOLD_SWEEP_EVERY_MS }, { name: 'sweep', opts });
    // A first sweep right away: after every process was down, the hints may be lost. Expiry
    // jobs that came due meanwhile are waiting in Redis and run as soon as the worker does.
    await this.queue.add('sweep', {}, opts);
    await this.holdQueue.add('sweep', {}, opts);
    void this.worker.run();
    void this.holdWorker.run();
    // A primary that failed over may have died before passing on the expiry jobs of its last
    // holds: the holds are made jobs again from the tokens' expiries (HoldExpiry.reschedule).
    // An expiry that passed meanwhile gets a job due at once.
    this.options.reconnects?.on('ready', () => {
      if (this.stopping.signal.aborted) return;
      this.holdExpiry.reschedule().then(
        (tokens) => this.options.logger.info({ tokens }, 'reconnected: hold expiry jobs made again from the tokens in Redis'),
        (error: Error) => this.options.logger.warn({ err: error.message }, 'hold expiry jobs not made again after a reconnect; the sweep finds expired holds'),
      );
    });
  }

  /**
   * Runs the drain every DRAIN_EVERY_MS (from the start of one run to the next, as the
   * scheduler would) until the turn is over or the jobs stop. A run that throws ends the
   * turn as a failed job (logged; the next job runs again).
   */
  private async drainTurn(drain: HistoryDrain): Promise<void> {
    const ends = Date.now() + DRAIN_TURN_MS;
    const { signal } = this.stopping;
    for (;;) {
      const started = Date.now();
      await drain.run(started);
      const next = started + DRAIN_EVERY_MS;
      if (signal.aborted || next >= ends) return;
      await sleep(Math.max(0, next - Date.now()), undefined, { signal }).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all([this.worker.close(), this.holdWorker.close()]);
    await Promise.all([this.queue.close(), this.holdQueue.close()]);
    await this.closeConnection();
  }
}
