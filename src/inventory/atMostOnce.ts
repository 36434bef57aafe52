import { randomBytes } from 'node:crypto';
import { ReplyError, type Redis } from 'ioredis';
import { ApiError } from '../domain/errors.js';
import { requestRecordKey, type EventRef } from './eventKeys.js';
import type { RedisClock } from './redisClock.js';
import type { Scripts } from './scripts.js';

// Status changes applied at most once, answered within a bounded time, and never applied
// after their answer (docs/faults.md):
// - The status script runs on a connection that never re-sends an unanswered command
//   (ioredis would, after a reconnect: a booking whose reply was lost would run twice).
//   When the connection drops, this class sends the call again itself, with the same
//   record key: a call that ran left its reply there and the repeat answers with it.
// - Each call carries a deadline by Redis's clock, `timeoutMs` minus a margin after the
//   request began; the script does nothing after it. The answer goes out at `timeoutMs`
//   at the latest: by then a call still on its way can no longer apply anything.
// - Calls wait for the connection only while it reconnects, and at most `maxOutstanding`
//   wait or are unanswered at once; beyond that a request is refused at once.

export interface AtMostOnceOptions {
  /** How long a request may wait for Redis before it is answered 503. */
  timeoutMs: number;
  /** How many status changes may be waiting for Redis at once. */
  maxOutstanding: number;
}

/** Time between the script's deadline and the answer: the reply's way back and clock error. */
const MAX_MARGIN_MS = 250;
/** How long the record of a successful call outlives its request's timeout. */
const RECORD_SLACK_MS = 5_000;

type Outcome = { kind: 'reply'; reply: unknown[] } | { kind: 'error'; error: unknown } | { kind: 'lost' } | { kind: 'timeout' };

/**
 * 503 for a request Redis did not serve. `applied` says what became of a status change:
 * false, nothing changed; 'unknown', it ran only if Redis applied it just before it stopped
 * answering, and it will not run later. Undefined for requests that change nothing.
 */
export function unavailable(why: string, applied?: false | 'unknown'): ApiError {
  const outcome =
    applied === 'unknown'
      ? ' If Redis applied the change just before it stopped answering, the objects show it; otherwise it was not applied, and it will not be applied later.'
      : applied === false
        ? ' Nothing was changed.'
        : '';
  return new ApiError(503, 'SERVICE_UNAVAILABLE', `The inventory store is unavailable (${why}).${outcome}`, {
    data: applied === undefined ? undefined : { applied },
    headers: { 'Retry-After': '1' },
  });
}

export class AtMostOnceCalls {
  /** Goes up each time the connection closes: attempts sent before are lost. */
  private epoch = 0;
  /** Calls waiting for the connection or for their reply. */
  private outstanding = 0;
  private waitingForReady = 0;
  private readonly onClose = new Set<() => void>();
  private readonly onReady = new Set<() => void>();

  constructor(
    private readonly scripts: Scripts,
    private readonly connection: Redis,
    private readonly clock: RedisClock,
    private readonly options: AtMostOnceOptions,
  ) {
    connection.on('close', () => {
      this.epoch++;
      // Attempts on the closed connection will never be answered: they no longer count.
      this.outstanding = this.waitingForReady;
      for (const lost of [...this.onClose]) lost();
    });
    connection.on('ready', () => {
      for (const wake of [...this.onReady]) wake();
    });
  }

  /** Unique across processes and restarts: a random prefix per process, then a counter. */
  private readonly idPrefix = randomBytes(9).toString('base64url');
  private idCounter = 0;
  private nextRequestId(): string {
    return `${this.idPrefix}${(++this.idCounter).toString(36)}`;
  }

  /** lua/change-object-status.lua, at most once. `event` names the record key's hash tag. */
  async changeObjectStatus(event: EventRef, keys: string[], now: number, request: string): Promise<unknown[]> {
    const { timeoutMs, maxOutstanding } = this.options;
    if (this.outstanding >= maxOutstanding) throw unavailable(`${this.outstanding} status changes are already waiting for it`, false);
    const giveUpAt = performance.now() + timeoutMs;
    const deadline = Math.floor(this.clock.now() + timeoutMs - Math.min(MAX_MARGIN_MS, timeoutMs / 4));
    const allKeys = [...keys, requestRecordKey(event, this.nextRequestId())];
    let sent = false;
    for (;;) {
      if (!(await this.ready(giveUpAt))) {
        throw unavailable(`no connection for ${timeoutMs} ms`, sent ? 'unknown' : false);
      }
      sent = true;
      const outcome = await this.attempt(() => this.scripts.changeObjectStatus(allKeys, now, request, deadline, timeoutMs + RECORD_SLACK_MS), giveUpAt);
      switch (outcome.kind) {
        case 'reply':
          if (outcome.reply[0] === -1) throw unavailable(`it answered after the request's deadline`, false);
          return outcome.reply;
        case 'error':
          throw outcome.error;
        case 'timeout':
          throw unavailable(`no answer within ${timeoutMs} ms`, 'unknown');
        case 'lost':
          // The connection dropped with the call unanswered: it may or may not have run.
          // The same call again (same record key) answers with the first run's outcome.
          continue;
      }
    }
  }

  /** True once the connection is up; false if `giveUpAt` comes first. */
  private ready(giveUpAt: number): Promise<boolean> {
    if (this.connection.status === 'ready') return Promise.resolve(true);
    if (performance.now() >= giveUpAt) return Promise.resolve(false);
    this.outstanding++;
    this.waitingForReady++;
    return new Promise((resolve) => {
      const done = (up: boolean) => {
        clearTimeout(timer);
        this.onReady.delete(wake);
        this.outstanding--;
        this.waitingForReady--;
        resolve(up);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), giveUpAt - performance.now());
      this.onReady.add(wake);
    });
  }

  /** One send of the call: its reply, a Redis error, the connection lost, or no answer by `giveUpAt`. */
  private attempt(send: () => Promise<unknown[]>, giveUpAt: number): Promise<Outcome> {
    const epoch = this.epoch;
    this.outstanding++;
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.onClose.delete(lost);
        resolve(outcome);
      };
      const lost = () => done({ kind: 'lost' });
      const timer = setTimeout(() => done({ kind: 'timeout' }), Math.max(0, giveUpAt - performance.now()));
      this.onClose.add(lost);
      send().then(
        (reply) => done({ kind: 'reply', reply }),
        // A Redis error is an answer (the script failed, nothing written), and so is an
        // error while the connection stays up; any other is the connection failing under the call.
        (error: unknown) => {
          const connectionFailed = !(error instanceof ReplyError) && (this.epoch !== epoch || this.connection.status !== 'ready');
          done(connectionFailed ? { kind: 'lost' } : { kind: 'error', error });
        },
      ).finally(() => {
        if (this.epoch === epoch) this.outstanding--;
      });
    });
  }
}
