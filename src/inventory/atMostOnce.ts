import { randomBytes } from 'node:crypto';
import { ReplyError } from 'ioredis';
import { requestRecordsKey, type EventRef } from './eventKeys.js';
import { CONNECTION_LOST, NOT_PRIMARY, refusedForReplicas, unavailable, type RedisClient } from './redis.js';
import type { RedisClock } from './redisClock.js';
import { APPLIED, NO_MORE_KEYS, type BatchedStatusRequest, type Scripts, type StatusReply } from './scripts.js';
import { PLAIN_OBJECTS_AT, type StatusRequest } from './statusContract.js';
import type { StatusReceiver } from './statusWire.js';

// Status changes applied at most once, answered within a bounded time, and never applied
// after their answer (docs/faults.md):
// - The status script runs on a connection that never re-sends an unanswered command
//   (ioredis would, after a reconnect: a booking whose reply was lost would run twice).
//   When the connection drops, this class sends the call again itself, with the same
//   record key and id: a call that ran left its reply there and the repeat answers with it.
// - Each call carries a deadline by Redis's clock, `timeoutMs` minus a margin after the
//   request began; the script does nothing after it. The answer goes out at `timeoutMs`
//   at the latest: by then a call still on its way can no longer apply anything.
// - Calls wait for the connection only while it reconnects, and at most `maxOutstanding`
//   wait or are unanswered at once; beyond that a request is refused at once.
// - Calls of one event made in one turn of the event loop, or while the event's calls before
//   them were in flight, go to Redis as one call of the batch function (Batches below;
//   docs/performance.md, "Batched calls"), which applies each on its own: each keeps its own
//   record, deadline, reply and timeout here. A lone call goes as it always did.

export interface AtMostOnceOptions {
  /** How long a request may wait for Redis before it is answered 503. */
  timeoutMs: number;
  /** How many status changes may be waiting for Redis at once. */
  maxOutstanding: number;
  /** Requests in one batch call at most (BATCH_REQUESTS_AT_MOST unless given; 1: every call alone, as the benches compare). */
  batchAtMost?: number;
}

/** Time between the script's deadline and the answer: the reply's way back and clock error. */
const MAX_MARGIN_MS = 250;
/** How long the record of a successful call outlives its request's timeout. */
const RECORD_SLACK_MS = 5_000;
/**
 * The replies of one process's calls on one event within this much time share a hash
 * (requestRecordsKey): a key per request made most of Redis's keys in an on-sale (what
 * every SCAN walks) and each expired on its own. A tenth of a second keeps a hash small
 * (about 1,700 replies at 17,000 bookings a second), as Redis frees an expired hash at once.
 */
export const RECORD_WINDOW_MS = 100;
/**
 * How long a record hash is kept from the call that sets its expiry: the first of its window
 * applied sets it, and the window's last call may be made a window later and repeated until
 * its timeout, so each of them is kept RECORD_SLACK_MS past its own.
 */
const keepMsOf = (timeoutMs: number) => timeoutMs + RECORD_SLACK_MS + RECORD_WINDOW_MS;

/**
 * One process's record hash of an event's replies in one window (requestRecordsKey). Its
 * expiry is set once, not on every call (a PEXPIRE per booking was a tenth of Redis's
 * commands): calls carry a time to keep until one that carried it was applied on the current
 * connection, and then none do. A new connection or a lost call (Redis may have restarted, or
 * a cluster node failed over, and lost the hash) starts over.
 */
interface RecordHash {
  window: number;
  key: string;
  /** The connection's epoch in which an applied call set the hash's expiry, or -1. */
  expiringSince: number;
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

/**
 * Where a status call's outcome goes: exactly one of the two, once. An object rather than two
 * functions, so the priority lane's caller is one object per request, not closures.
 */
export interface CallOutcome {
  resolve(reply: StatusReply): void;
  reject(error: unknown): void;
}

/** A call sent to Redis and waiting for its outcome; `pending` is false once it has one. */
interface SentCall {
  giveUpAt: number;
  pending: boolean;
  /** The connection it was sent on closed before its answer. */
  lost(): void;
  /** `giveUpAt` passed before its answer. */
  timedOut(): void;
}

/**
 * The sent calls without an outcome yet, in the order they give up: nearly always the order
 * they were sent, since every call gets the same timeout. One timer, set for the first,
 * serves them all (a timer and a race of promises per call cost more than handling its
 * reply). Replies come back in the order of the calls (one connection), so answered calls
 * leave from the front.
 */
class SentCalls {
  /** From `head` on, the calls waiting; before it, emptied places (a settled call is not kept alive by the list). */
  private calls: (SentCall | undefined)[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  add(call: SentCall): void {
    call.pending = true;
    // A call sent again after a reconnect may give up before calls sent since: kept sorted.
    let at = this.calls.length;
    while (at > this.head && this.calls[at - 1]!.giveUpAt > call.giveUpAt) at--;
    if (at === this.calls.length) this.calls.push(call);
    else this.calls.splice(at, 0, call);
    if (this.timer === undefined || at === this.head) this.arm();
  }

  /** True if the call was waiting for its outcome, which is now settled; answered calls at the front leave. */
  settle(call: SentCall): boolean {
    if (!call.pending) return false;
    call.pending = false;
    this.dropSettled();
    return true;
  }

  /** The connection closed: every call sent on it is lost. */
  loseAll(): void {
    const calls = this.calls.slice(this.head) as SentCall[];
    this.calls = [];
    this.head = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const call of calls) if (this.settle(call)) call.lost();
  }

  private dropSettled(): void {
    // The place is emptied as the head passes it: a busy connection always has calls waiting,
    // so the list is only cut every thousand calls or so, and its answered calls (each with its
    // request and reply handlers) would otherwise live until then and be copied by scavenges.
    while (this.head < this.calls.length && !this.calls[this.head]!.pending) this.calls[this.head++] = undefined;
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
    while (this.head < this.calls.length && this.calls[this.head]!.giveUpAt <= now) {
      const call = this.calls[this.head]!;
      this.settle(call);
      call.timedOut();
    }
    this.arm();
  }
}

/**
 * One status change through to its outcome: sent, sent again with the same record key while
 * the connection drops under it, until Redis answers or its time is up. One object per call,
 * its handlers shared methods: Redis's answer comes straight to it (src/inventory/statusWire.ts,
 * StatusCommand), with no promise or closure per call between.
 */
class StatusCall implements SentCall, StatusReceiver {
  pending = false;
  /** The connection's epoch it was last sent in: an answer from an older one no longer counts. */
  epoch = -1;
  private sent = false;
  /** The last send carried a time to keep the record hash (RecordHash). */
  private setsExpiry = false;
  /** Waiting in its turn's batch (Batches) to be written. */
  queued = false;
  /** Sent and not answered yet, counted in its event's calls in flight (Batches). */
  flying = false;
  /** What the last send carries: a time to keep the record hash, and whether it was sent before. */
  private keepMs: number | '' = '';
  private again = false;

  constructor(
    private readonly calls: AtMostOnceCalls,
    /** The event's keys: calls with the same (kept, frozen) list may share a batch. */
    readonly keys: readonly string[],
    /** Keys between the event's and the record key (Scripts.sendStatus). */
    readonly moreKeys: readonly string[],
    /** The record hash (AtMostOnceCalls.recordHashOf); the call's id is its field. */
    readonly record: RecordHash,
    private readonly recordId: string,
    private readonly now: number,
    private readonly request: StatusRequest,
    private readonly deadline: number,
    readonly giveUpAt: number,
    private readonly outcome: CallOutcome,
  ) {}

  /** Whether the request is small enough to share a batch (BATCHED_ARGS_AT_MOST, BATCHED_TEXT_AT_MOST); a bigger one goes alone, in its turn. */
  fitsBatch(): boolean {
    const request = this.request;
    if (typeof request === 'string') return request.length <= BATCHED_TEXT_AT_MOST;
    return request.length <= PLAIN_OBJECTS_AT + BATCHED_ARGS_AT_MOST && String(request[PLAIN_OBJECTS_AT - 1]).length <= BATCHED_TEXT_AT_MOST;
  }

  /** Written to Redis now, alone, as sent last (send). */
  sendAlone(): void {
    this.calls.scripts.sendStatus(this.keys, this.moreKeys, this.record.key, this.recordId, this.now, this.request, this.deadline, this.keepMs, this.again, this);
  }

  /** The call as one request of a batch (Scripts.sendStatusBatch), as sent last (send). */
  batched(): BatchedStatusRequest {
    return { moreKeys: this.moreKeys, args: this.calls.scripts.statusCallArgs(this.recordId, this.now, this.request, this.deadline, this.keepMs, this.again) };
  }

  send(): void {
    const calls = this.calls;
    // Checked here first: a connection that is up needs no wait (nearly every call).
    if (calls.connection.status !== 'ready') {
      calls.ready(this.giveUpAt).then(
        (up) => (up ? this.send() : this.outcome.reject(unavailable(`no connection for ${calls.options.timeoutMs} ms`, this.sent ? 'unknown' : false))),
        (error: unknown) => this.outcome.reject(error),
      );
      return;
    }
    // Only a call sent before can have left a record: the first send skips the look-up.
    const again = this.sent;
    this.sent = true;
    this.epoch = calls.epoch;
    calls.unanswered++;
    calls.sentCalls.add(this);
    const record = this.record;
    this.setsExpiry = record.expiringSince !== calls.epoch;
    this.keepMs = this.setsExpiry ? keepMsOf(calls.options.timeoutMs) : '';
    this.again = again;
    // An event's kept key list: the call waits for the turn's end with the event's others. A
    // list made for this call (several events, an expiry) goes at once.
    if (Object.isFrozen(this.keys)) return calls.batches.add(this);
    calls.batches.onSent?.(1);
    this.sendAlone();
  }

  // An answer is always to the last send: ioredis answers a command once, and the commands
  // of a closed connection are failed while it reconnects, or dropped when it is back (the
  // status connection does not resend them), before this call is sent again.
  answer(reply: unknown): void {
    this.answered();
    if (!this.calls.sentCalls.settle(this)) return;
    const status = reply as StatusReply;
    // Applied with a time to keep: the hash expires, and the window's next calls need not say so.
    if (this.setsExpiry && (status === APPLIED || status[0] === 1) && this.epoch === this.calls.epoch) this.record.expiringSince = this.epoch;
    if (status !== APPLIED && status[0] === -1) this.outcome.reject(unavailable(`it answered after the request's deadline`, false));
    else this.outcome.resolve(status);
  }

  fail(error: unknown): void {
    // A Redis error is an answer (the script failed, nothing written), and so is an error
    // while the connection stays up; any other is the connection failing under the call.
    // On a cluster only a node's connection fails, not the client: its "Connection is closed",
    // or the abort of a pipeline's unanswered rest (CONNECTION_LOST).
    const calls = this.calls;
    // A node that is no longer the primary (a failover, src/inventory/redis.ts) did not run it: sent again on the next.
    const notPrimary = error instanceof ReplyError && NOT_PRIMARY.test((error as Error).message);
    const lost = notPrimary || (!(error instanceof ReplyError) && (calls.epoch !== this.epoch || calls.connection.status !== 'ready' || CONNECTION_LOST.test(String((error as Error)?.message))));
    this.answered();
    if (!calls.sentCalls.settle(this)) return;
    if (lost) this.lost();
    else this.outcome.reject(refusedForReplicas(error) ?? error);
  }

  /**
   * The connection dropped with the call unanswered: it may or may not have run. The same
   * call again (same record key) answers with the first run's outcome.
   */
  lost(): void {
    // Where the connection failed, the hash may be gone (a restart, a failover that lost the
    // last writes): the window's calls say how long to keep it again until one is applied.
    this.record.expiringSince = -1;
    this.send();
  }

  /** No longer in flight for its event's batches (answered, or given up on). */
  private landed(): void {
    if (!this.flying) return;
    this.flying = false;
    this.calls.batches.landed(this.keys);
  }

  timedOut(): void {
    this.landed();
    this.outcome.reject(unavailable(`no answer within ${this.calls.options.timeoutMs} ms`, 'unknown'));
  }

  private answered(): void {
    this.landed();
    if (this.calls.epoch === this.epoch) this.calls.unanswered--;
  }
}

/** A batched request's plain objects at most (labels, or triples for areas): a bigger request goes alone. */
const BATCHED_ARGS_AT_MOST = 64;
/** A batched request's JSON text (or a plain one's season part) at most, in UTF-16 units: a longer one goes alone. */
const BATCHED_TEXT_AT_MOST = 2_000;
/** Requests in one batch call at most: more of one event in a turn make several. */
const BATCH_REQUESTS_AT_MOST = 128;

/** Where a batch call's reply goes: to each of its calls, its own part, in order. */
class BatchReceiver implements StatusReceiver {
  constructor(private readonly calls: StatusCall[]) {}

  answer(reply: unknown): void {
    const replies = reply as unknown[];
    const calls = this.calls;
    for (let i = 0; i < calls.length; i++) {
      const part = replies[i];
      // {-2, message}: that request failed with an error, alone (lua/change-object-status.lua, runBatch).
      if (Array.isArray(part) && part[0] === -2) calls[i]!.fail(new ReplyError(String(part[1])));
      else calls[i]!.answer(part);
    }
  }

  fail(error: unknown): void {
    for (let i = 0; i < this.calls.length; i++) this.calls[i]!.fail(error);
  }
}

/**
 * The status calls of a turn of the event loop, by event (their kept key list), sent when the
 * turn ends (setImmediate): an event's calls as one call of the batch function, a lone call as
 * it is; and while an event's calls are in flight, its new ones wait for their answers and go
 * together then. No call waits for a timer: a lone call of an idle event goes at its turn's
 * end, as its write did before (the socket was corked for the turn: src/inventory/scripts.ts,
 * corkForTheTurn).
 */
class Batches {
  /**
   * This turn's calls by event. A new Map each turn, never `clear()`ed: V8 links a cleared
   * Map's old table to its new one and leaves its entries in it, so once one table has been
   * promoted, every later table and the calls they held outlive the scavenges until the next
   * full collection (a third of each booking's bytes did: docs/performance.md, "What outlives
   * a scavenge").
   */
  private byKeys = new Map<readonly string[], StatusCall[]>();
  /** An event's calls that came while its last ones were in flight: sent when those are answered. */
  private readonly held = new Map<readonly string[], StatusCall[]>();
  /** How many of an event's calls are in flight (sent, not answered, not given up on). */
  private readonly flying = new Map<readonly string[], number>();

  /** One of the event's calls in flight was answered or given up on; at none, the calls held meanwhile go at the turn's end. */
  landed(keys: readonly string[]): void {
    const n = (this.flying.get(keys) ?? 1) - 1;
    if (n > 0) return void this.flying.set(keys, n);
    this.flying.delete(keys);
    const held = this.held.get(keys);
    if (held === undefined) return;
    this.held.delete(keys);
    const list = this.byKeys.get(keys);
    this.byKeys.set(keys, list ? [...held, ...list] : held);
    this.schedule();
  }

  /** The connection closed: nothing is in flight any more, and what was held goes (or waits for the connection as lost calls do). */
  lostAll(): void {
    this.flying.clear();
    for (const keys of [...this.held.keys()]) this.landed(keys);
  }
  private scheduled = false;
  /** Requests per call sent (the metric status_call_requests), counted by whoever reads it. */
  onSent: ((requests: number) => void) | undefined;

  constructor(private readonly calls: AtMostOnceCalls) {}

  /** The calls waiting go at the end of this turn of the event loop. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  add(call: StatusCall): void {
    call.queued = true;
    const list = this.byKeys.get(call.keys);
    if (list === undefined) this.byKeys.set(call.keys, [call]);
    else list.push(call);
    this.schedule();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    // A call queued while this turn's calls go (one lost at once and sent again) waits for the next turn.
    const byKeys = this.byKeys;
    this.byKeys = new Map();
    const calls = this.calls;
    const scripts = calls.scripts;
    const ready = calls.connection.status === 'ready';
    const atMost = calls.options.batchAtMost ?? BATCH_REQUESTS_AT_MOST;
    scripts.corkStatus();
    try {
      for (const [keys, list] of byKeys) {
        // The event's last calls still in flight: these wait for their answers, and go with
        // whatever else comes meanwhile (measured against sending each turn's at once:
        // docs/performance.md, "Batched calls").
        if (ready && (this.flying.get(keys) ?? 0) > 0) {
          const held = this.held.get(keys);
          if (held) held.push(...list);
          else this.held.set(keys, list);
          continue;
        }
        // A call lost (or timed out) since it was queued is not sent from here: it was settled,
        // and a lost one sent again (queued anew: `queued` keeps it from going twice).
        let group: StatusCall[] = [];
        for (let i = 0; i < list.length; i++) {
          const call = list[i]!;
          if (!call.queued) continue;
          call.queued = false;
          if (!call.pending || call.epoch !== calls.epoch) continue;
          if (!ready) {
            // The connection went away before the turn ended: the call is lost, sent again once it is back.
            call.fail(new Error('Connection is closed.'));
            continue;
          }
          // A batch shares one record hash: a new window starts a new batch. A request too big
          // for a batch goes alone, after the ones before it.
          const fits = call.fitsBatch();
          if (group.length > 0 && (!fits || group[0]!.record !== call.record || group.length >= atMost)) {
            this.send(group);
            group = [];
          }
          if (fits) group.push(call);
          else this.send([call]);
        }
        if (group.length > 0) this.send(group);
      }
    } finally {
      scripts.uncorkStatus();
    }
  };

  private send(group: StatusCall[]): void {
    this.onSent?.(group.length);
    const keys = group[0]!.keys;
    this.flying.set(keys, (this.flying.get(keys) ?? 0) + group.length);
    for (let i = 0; i < group.length; i++) group[i]!.flying = true;
    if (group.length === 1) return group[0]!.sendAlone();
    const requests = new Array<BatchedStatusRequest>(group.length);
    for (let i = 0; i < group.length; i++) requests[i] = group[i]!.batched();
    this.calls.scripts.sendStatusBatch(group[0]!.keys, requests, group[0]!.record.key, new BatchReceiver(group));
  }
}

export class AtMostOnceCalls {
  // Read and changed by StatusCall, this module's own; nothing outside it uses them.
  /** Goes up each time the connection closes: attempts sent before are lost. */
  epoch = 0;
  /** Calls sent on the current connection and not answered yet. */
  unanswered = 0;
  /** Calls waiting for the connection to come back. */
  private waitingForReady = 0;
  readonly sentCalls = new SentCalls();
  /** The turn's calls waiting to be written, by event. */
  readonly batches = new Batches(this);
  private readonly onReady = new Set<() => void>();
  /** Unique across processes and restarts: a random prefix per process, then a counter. */
  private readonly idPrefix = randomBytes(9).toString('base64url');
  private idCounter = 0;
  /** recordHashOf's last answer, by event record. */
  private readonly recordHashes = new WeakMap<EventRef, RecordHash>();

  constructor(
    readonly scripts: Scripts,
    readonly connection: RedisClient,
    private readonly clock: RedisClock,
    readonly options: AtMostOnceOptions,
  ) {
    connection.on('close', () => {
      this.epoch++;
      // Attempts on the closed connection will never be answered: they no longer count.
      this.unanswered = 0;
      this.batches.lostAll();
      this.sentCalls.loseAll();
    });
    connection.on('ready', () => {
      for (const wake of [...this.onReady]) wake();
    });
  }

  /**
   * lua/change-object-status.lua, at most once. `event` names the record key's hash tag;
   * the record key follows `keys` (which is not changed: an event's own list is shared).
   */
  changeObjectStatus(event: EventRef, keys: readonly string[], now: number, request: string): Promise<StatusReply> {
    return new Promise((resolve, reject) => this.call(event, keys, now, request, { resolve, reject }));
  }

  /**
   * changeObjectStatus with its outcome given to `outcome` (exactly one of its two, once;
   * `reject` at once when too many wait); the request is a JSON text or a plain call's
   * positional arguments (src/inventory/plainRequest.ts); `moreKeys` go between `keys` and
   * the record key (a hold's token keys, src/inventory/statusContract.ts).
   */
  call(event: EventRef, keys: readonly string[], now: number, request: StatusRequest, outcome: CallOutcome, moreKeys: readonly string[] = NO_MORE_KEYS): void {
    const { timeoutMs, maxOutstanding } = this.options;
    const outstanding = this.unanswered + this.waitingForReady;
    if (outstanding >= maxOutstanding) return outcome.reject(unavailable(`${outstanding} status changes are already waiting for it`, false));
    const giveUpAt = performance.now() + timeoutMs;
    const redisNow = this.clock.now();
    const deadline = Math.floor(redisNow + timeoutMs - Math.min(MAX_MARGIN_MS, timeoutMs / 4));
    const record = this.recordHashOf(event, Math.floor(redisNow / RECORD_WINDOW_MS));
    new StatusCall(this, keys, moreKeys, record, (++this.idCounter).toString(36), now, request, deadline, giveUpAt, outcome).send();
  }

  /**
   * The hash this process keeps the event's replies of `window` in (requestRecordsKey): made
   * once per event and window, not per call.
   */
  private recordHashOf(event: EventRef, window: number): RecordHash {
    const kept = this.recordHashes.get(event);
    if (kept !== undefined && kept.window === window) return kept;
    const record: RecordHash = { window, key: requestRecordsKey(event, this.idPrefix, window), expiringSince: -1 };
    this.recordHashes.set(event, record);
    return record;
  }

  /** True once the connection is up; false if `giveUpAt` comes first. */
  async ready(giveUpAt: number): Promise<boolean> {
    if (this.connection.status === 'ready') return true;
    if (performance.now() >= giveUpAt) return false;
    this.waitingForReady++;
    try {
      return await signalOrTime(this.onReady, giveUpAt);
    } finally {
      this.waitingForReady--;
    }
  }
}
