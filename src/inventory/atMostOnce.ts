import { randomBytes } from 'node:crypto';
import { ReplyError } from 'ioredis';
import { ApiError } from '../domain/errors.js';
import { requestRecordKey, type EventRef } from './eventKeys.js';
import type { RedisClient } from './redis.js';
import type { RedisClock } from './redisClock.js';
import { APPLIED, type Scripts, type StatusReply } from './scripts.js';

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

const CONNECTION_CLOSED = /^Connection is closed/;

type Outcome = { kind: 'reply'; reply: StatusReply } | { kind: 'error'; error: unknown } | { kind: 'lost' } | { kind: 'timeout' };

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

/** A wait for one of a set of signals, or for a moment: resolves true on a signal, false at `until`. */
function signalOrTime(signals: Set<() => void>, until: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const done = (signalled: boolean) => {
      clearTimeout(timer);
      signals.delete(signal);
      resolve(signalled);
    };
    const signal = () => done(true);
    const timer = setTimeout(() => done(false), Math.max(0, until - performance.now()));
    signals.add(signal);
  });
}

/** A call sent to Redis and waiting for its outcome; `settle` is null once it has one. */
interface SentCall {
  giveUpAt: number;
  settle: ((outcome: Outcome) => void) | null;
}

/**
 * The sent calls without an outcome yet, in the order they give up: nearly always the order
 * they were sent, since every call gets the same timeout. One timer, set for the first,
 * serves them all (a timer and a race of promises per call cost more than handling its
 * reply). Replies come back in the order of the calls (one connection), so answered calls
 * leave from the front.
 */
class SentCalls {
  private calls: SentCall[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  add(call: SentCall): void {
    // A call sent again after a reconnect may give up before calls sent since: kept sorted.
    let at = this.calls.length;
    while (at > this.head && this.calls[at - 1]!.giveUpAt > call.giveUpAt) at--;
    if (at === this.calls.length) this.calls.push(call);
    else this.calls.splice(at, 0, call);
    if (this.timer === undefined || at === this.head) this.arm();
  }

  /** Gives the call its outcome unless it has one; answered calls at the front leave. */
  settle(call: SentCall, outcome: Outcome): void {
    const settle = call.settle;
    call.settle = null;
    settle?.(outcome);
    this.dropSettled();
  }

  /** The connection closed: every call sent on it is lost. */
  settleAll(outcome: Outcome): void {
    const calls = this.calls.slice(this.head);
    this.calls = [];
    this.head = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const call of calls) this.settle(call, outcome);
  }

  private dropSettled(): void {
    while (this.head < this.calls.length && this.calls[this.head]!.settle === null) this.head++;
    if (this.head === this.calls.length) {
      this.calls = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.calls.length) {
      this.calls = this.calls.slice(this.head);
      this.head = 0;
    }
  }

  /** The timer waits for the first call's time; calls answered meanwhile do not move it. */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const first = this.calls[this.head];
    if (first) this.timer = setTimeout(() => this.expire(), Math.max(0, first.giveUpAt - performance.now()));
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    // Answered calls never stay at the front (settle drops them), so the first is waiting.
    while (this.head < this.calls.length && this.calls[this.head]!.giveUpAt <= now) this.settle(this.calls[this.head]!, { kind: 'timeout' });
    this.arm();
  }
}

export class AtMostOnceCalls {
  /** Goes up each time the connection closes: attempts sent before are lost. */
  private epoch = 0;
  /** Calls sent on the current connection and not answered yet. */
  private unanswered = 0;
  /** Calls waiting for the connection to come back. */
  private waitingForReady = 0;
  private readonly sent = new SentCalls();
  private readonly onReady = new Set<() => void>();
  /** Unique across processes and restarts: a random prefix per process, then a counter. */
  private readonly idPrefix = randomBytes(9).toString('base64url');
  private idCounter = 0;

  constructor(
    private readonly scripts: Scripts,
    private readonly connection: RedisClient,
    private readonly clock: RedisClock,
    private readonly options: AtMostOnceOptions,
  ) {
    connection.on('close', () => {
      this.epoch++;
      // Attempts on the closed connection will never be answered: they no longer count.
      this.unanswered = 0;
      this.sent.settleAll({ kind: 'lost' });
    });
    connection.on('ready', () => {
      for (const wake of [...this.onReady]) wake();
    });
  }

  /**
   * lua/change-object-status.lua, at most once. `event` names the record key's hash tag;
   * `keys` is the caller's own list, which gets the record key at its end.
   */
  async changeObjectStatus(event: EventRef, keys: string[], now: number, request: string): Promise<StatusReply> {
    const { timeoutMs, maxOutstanding } = this.options;
    const outstanding = this.unanswered + this.waitingForReady;
    if (outstanding >= maxOutstanding) throw unavailable(`${outstanding} status changes are already waiting for it`, false);
    const giveUpAt = performance.now() + timeoutMs;
    const deadline = Math.floor(this.clock.now() + timeoutMs - Math.min(MAX_MARGIN_MS, timeoutMs / 4));
    // The caller's fresh list: the record key goes at its end (no copy per call).
    const allKeys = keys;
    allKeys.push(requestRecordKey(event, `${this.idPrefix}${(++this.idCounter).toString(36)}`));
    let sent = false;
    for (;;) {
      // Checked here first: a connection that is up needs no wait (nearly every call).
      if (this.connection.status !== 'ready' && !(await this.ready(giveUpAt))) {
        throw unavailable(`no connection for ${timeoutMs} ms`, sent ? 'unknown' : false);
      }
      // Only a call sent before can have left a record: the first send skips the look-up.
      const again = sent;
      sent = true;
      const outcome = await this.attempt(() => this.scripts.changeObjectStatus(allKeys, now, request, deadline, timeoutMs + RECORD_SLACK_MS, again), giveUpAt);
      switch (outcome.kind) {
        case 'reply':
          if (outcome.reply !== APPLIED && outcome.reply[0] === -1) throw unavailable(`it answered after the request's deadline`, false);
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
  private async ready(giveUpAt: number): Promise<boolean> {
    if (this.connection.status === 'ready') return true;
    if (performance.now() >= giveUpAt) return false;
    this.waitingForReady++;
    try {
      return await signalOrTime(this.onReady, giveUpAt);
    } finally {
      this.waitingForReady--;
    }
  }

  /** One send of the call: its reply, a Redis error, the connection lost, or no answer by `giveUpAt`. */
  private attempt(send: () => Promise<StatusReply>, giveUpAt: number): Promise<Outcome> {
    const epoch = this.epoch;
    this.unanswered++;
    const answered = () => {
      if (this.epoch === epoch) this.unanswered--;
    };
    return new Promise<Outcome>((resolve) => {
      const call: SentCall = { giveUpAt, settle: resolve };
      this.sent.add(call);
      send().then(
        (reply) => {
          answered();
          this.sent.settle(call, { kind: 'reply', reply });
        },
        (error: unknown) => {
          // A Redis error is an answer (the script failed, nothing written), and so is an
          // error while the connection stays up; any other is the connection failing under the call.
          // On a cluster only a node's connection fails, not the client: its "Connection is closed".
          const lost = !(error instanceof ReplyError) && (this.epoch !== epoch || this.connection.status !== 'ready' || CONNECTION_CLOSED.test(String((error as Error)?.message)));
          answered();
          this.sent.settle(call, lost ? { kind: 'lost' } : { kind: 'error', error });
        },
      );
    });
  }
}
