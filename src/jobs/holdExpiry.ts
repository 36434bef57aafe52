import { DelayedError, Queue, type ConnectionOptions, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { AtMostOnceCalls } from '../inventory/atMostOnce.js';
import type { HistoryStreams } from '../inventory/historyStreams.js';
import type { HoldTokenStore } from '../inventory/holdTokenStore.js';
import { expireHolds, type HoldingChange } from '../inventory/statusChanges.js';
import { HOLD_EXPIRY_QUEUE, jobsPrefix } from './jobQueues.js';

// Hold expiry as background work (docs/hold-expiry.md). The sales flow needs none of it: a
// hold reads as free the instant its token expires, in every script and reader. What this
// does is make the stored state, the history (HOLD_EXPIRED) and the events' token entries
// catch up, so Redis does not keep every token that ever held a seat.
//
// One BullMQ delayed job per hold token, its id the token: added when the token starts
// holding something in an event (FLUSH_MS after it started), moved when the token's expiry changes,
// removed once the token holds nothing anywhere. When it runs, it gives back what the token
// still holds in each event it held in, through the status script. Jobs live in Redis:
// after every server was down across an expiry, the first worker to start runs the overdue
// ones. A sweep finds expired entries that lost their job (a crash before its add).

const JOB = 'expire';
/** Failed runs are retried, then dropped (the sweep finds what they left): a failed job kept under the token's id would block a new one. */
const JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 5, backoff: { type: 'exponential', delay: 500 } } as const;
/**
 * A token that started holding is looked at once it has held for this long: if it holds
 * something then it gets its job. A hold given back within that time in the same event (a
 * checkout that books at once) cancels its start here, with no look and no job.
 */
const FLUSH_MS = 50;

/** A token that started holding, not looked at yet: since when, its expiry, the events it started in. */
interface PendingStart {
  since: number;
  expiry: number;
  events: Set<number>;
}

export interface HoldExpiryJob {
  token: string;
}

export class HoldExpiry {
  private readonly queue: Queue<HoldExpiryJob>;
  /** Tokens that started holding and were not looked at yet, oldest first (the Map keeps insertion order). */
  private readonly started = new Map<string, PendingStart>();
  /** Tokens that stopped holding somewhere since the last flush. */
  private readonly stopped = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  /** The waits of expiry changes before their tokens' idle entries may go (moved). */
  private readonly retimed = new Set<NodeJS.Timeout>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    /** A connection without ioredis's keyPrefix (BullMQ prefixes its keys itself). */
    connection: ConnectionOptions,
    /** The deployment's REDIS_KEY_PREFIX, in front of BullMQ's keys too. */
    keyPrefix: string,
    private readonly tokens: HoldTokenStore,
    private readonly calls: AtMostOnceCalls,
    private readonly history: HistoryStreams,
    private readonly logger: Logger | undefined,
    /**
     * How long after an expiry change the entries it wrote that hold nothing stay (moved): past
     * the longest a status call checked before the change can still run (its timeout).
     */
    private readonly retimeGraceMs = 10_000,
  ) {
    this.queue = new Queue<HoldExpiryJob>(HOLD_EXPIRY_QUEUE, { connection, prefix: jobsPrefix(keyPrefix) });
    this.queue.on('error', (error) => this.logger?.warn({ err: error.message }, 'hold expiry queue error'));
  }

  /**
   * After a status change: which tokens started or stopped holding in an event. Their jobs
   * follow within FLUSH_MS; a crash before then leaves a started hold to the sweep, which
   * gives it back after its expiry all the same (docs/hold-expiry.md, "Failures").
   */
  holdingsChanged(changes: HoldingChange[], expiryOf: (token: string) => number | undefined): void {
    for (const { event, token, holds } of changes) {
      const pending = this.started.get(token);
      if (holds) {
        const expiry = expiryOf(token) ?? Date.now();
        if (pending) {
          pending.expiry = expiry;
          pending.events.add(event._id);
        } else {
          this.started.set(token, { since: Date.now(), expiry, events: new Set([event._id]) });
        }
      } else if (pending?.events.delete(event._id)) {
        // Given back where it started, before anyone looked: no job was made for that start.
        // The script reports a stop only once the token holds nothing left in the event.
        if (pending.events.size === 0) this.started.delete(token);
      } else {
        this.stopped.add(token);
      }
    }
    this.arm();
  }

  /** The next look: when the oldest start has held for FLUSH_MS (stops go along with it), or FLUSH_MS from now. */
  private arm(): void {
    if (this.flushTimer || (this.started.size === 0 && this.stopped.size === 0)) return;
    const oldest = this.started.values().next().value as PendingStart | undefined;
    const wait = oldest ? Math.max(0, oldest.since + FLUSH_MS - Date.now()) : FLUSH_MS;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush(Date.now() - FLUSH_MS);
    }, wait);
  }

  /** The token's job, due at its expiry; a job already there for the token stays as it is. */
  async schedule(token: string, expiresAt: number): Promise<void> {
    await this.queue.add(JOB, { token }, { ...JOB_OPTIONS, jobId: token, delay: Math.max(0, expiresAt - Date.now()) });
  }

  /**
   * The token's expiry changed (its events are retimed already): its job follows, whenever
   * the change comes. Right after a hold the job may not be there yet (it is added up to
   * FLUSH_MS later, perhaps by another process, with the expiry the hold read): then the job
   * is added here at the new expiry, and one added meanwhile with the old one is moved.
   */
  async moved(token: string, expiresAt: number): Promise<void> {
    // A hold of this process not flushed yet gets its job at the new expiry too.
    const pending = this.started.get(token);
    if (pending) pending.expiry = expiresAt;
    let job = await this.queue.getJob(token);
    // Only when it holds something: a job due now would drop the entries that hold nothing,
    // among them the one this change retimed for a hold checked before it and applied after.
    if (!job && (await this.tokens.holdsSomething(token))) {
      await this.schedule(token, expiresAt);
      job = await this.queue.getJob(token);
    }
    if (job && (await job.isDelayed())) {
      const delay = expiresAt - Date.now();
      // A job that started meanwhile reads the token's live key and waits again if it must.
      await (delay > 0 ? job.changeDelay(delay) : job.promote()).catch(() => undefined);
    }
    // The change wrote an entry in every event the token ever held in, holding or not. Those
    // that hold nothing are dropped (follow), but not before a hold that read the old expiry
    // has had its call's time to run: it must find the entry (holdExpiry in
    // lua/includes/eventState.lua), or it would hold until the old expiry.
    const timer = setTimeout(() => {
      this.retimed.delete(timer);
      this.stopped.add(token);
      this.arm();
    }, this.retimeGraceMs);
    timer.unref();
    this.retimed.add(timer);
  }

  /**
   * Brings the jobs in step for every stop noted and every start made by `startedBy` (ms
   * epoch); without it, for everything noted so far (at shutdown, and in tests).
   */
  flush(startedBy = Infinity): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const started = new Map<string, number>();
    for (const [token, pending] of this.started) {
      if (pending.since > startedBy) break;
      started.set(token, pending.expiry);
      this.started.delete(token);
    }
    const tokens = new Set([...started.keys(), ...this.stopped]);
    this.stopped.clear();
    this.arm();
    const run = Promise.all([...tokens].map((token) => this.follow(token, started.get(token))))
      .then(() => undefined)
      .catch((error: Error) => this.logger?.warn({ err: error.message }, 'hold expiry jobs not brought in step; the sweep and the jobs left find it'));
    this.flushing = this.flushing.then(() => run);
    return this.flushing;
  }

  /** One token's job after it started (`startedExpiry`) or stopped holding somewhere. */
  private async follow(token: string, startedExpiry: number | undefined): Promise<void> {
    if (await this.tokens.holdsAnything(token)) {
      if (startedExpiry !== undefined) await this.schedule(token, startedExpiry);
      return;
    }
    // Held and given back elsewhere than where it started (or by another process) before
    // this look: no job was made for that hold.
    if (startedExpiry !== undefined) return;
    await this.queue.remove(token).catch(() => 0);
    // A hold made between the check and the removal would be left without a job: look
    // again, and put the job back.
    if (!(await this.tokens.holdsAnything(token))) return;
    const expiresAt = await this.tokens.expiryOf(token);
    if (expiresAt !== null) await this.schedule(token, expiresAt);
  }

  /** The worker's handler: gives back what the token holds, or waits again when its expiry moved. */
  async run(job: Job<HoldExpiryJob>, lockToken: string | undefined): Promise<{ events: number }> {
    const outcome = await this.expire(job.data.token);
    if (outcome.later !== null) {
      await job.moveToDelayed(outcome.later, lockToken);
      throw new DelayedError();
    }
    return { events: outcome.events };
  }

  /**
   * Gives back what an expired token still holds in every event it held in. `later` is the
   * time to try again when the token (or an event's entry for it) has not expired yet.
   */
  async expire(token: string, now = Date.now()): Promise<{ events: number; later: number | null }> {
    const left = await this.tokens.msUntilExpiry(token);
    if (left > 0) return { events: 0, later: now + left };
    const events = await this.tokens.eventsHeldIn(token);
    const outcomes = await Promise.all(events.map((event) => expireHolds(this.calls, event, token, now)));
    this.history.noteChanged(events);
    const later = Math.max(0, ...outcomes.map((o) => (o.done ? 0 : o.expiresAt)));
    return { events: events.length, later: later > 0 ? later : null };
  }

  /**
   * Gives back the holds of every token that expired more than `graceMs` ago and still has
   * an entry in some event: a job lost in a crash, or one that failed for good.
   */
  async sweep(graceMs: number, now = Date.now()): Promise<number> {
    let released = 0;
    for await (const batch of this.tokens.expiredEntries(now - graceMs)) {
      const outcomes = await Promise.all(batch.map(({ event, token }) => expireHolds(this.calls, event, token, now)));
      released += outcomes.filter((o) => o.done).length;
      this.history.noteChanged(batch.map((b) => b.event));
    }
    return released;
  }

  /**
   * Gives every token that holds something its job again, due at the expiry its entries say
   * (a job already there stays as it is): after a failover the new primary may lack jobs the
   * old one had not passed on when it died, while it has the holds (docs/hold-expiry.md,
   * "Failures"). Answers how many tokens were looked at.
   */
  async reschedule(): Promise<number> {
    const seen = new Set<string>();
    for await (const batch of this.tokens.holdingEntries()) {
      const fresh = batch.filter(({ token }) => !seen.has(token));
      for (const { token } of fresh) seen.add(token);
      await Promise.all(fresh.map(({ token, expiresAt }) => this.schedule(token, expiresAt)));
    }
    return seen.size;
  }

  async close(): Promise<void> {
    // Entries an expiry change left holding nothing stay: they go with the token's job, or
    // with the sweep once they have expired.
    for (const timer of this.retimed) clearTimeout(timer);
    this.retimed.clear();
    await this.flush();
    await this.queue.close();
  }
}
