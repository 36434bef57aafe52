import type { Logger } from 'pino';
import { ApiError } from '../domain/errors.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import { ReaderThread } from '../util/readerThread.js';
import { isCompact, type FromStream, type ToStream } from './streamFollowers.js';

// The status stream's subscribers, on the server's thread (docs/status-stream.md): their
// sockets stay on the thread that accepted them (uWebSockets.js 20.30 cannot hand a socket
// to another thread's loop), and everything else runs in the stream's thread
// (src/streamThread.ts, src/services/streamFollowers.ts), below the sale's priority. What is
// left here is handing each frame's bytes to the sockets of its event: one write per
// subscriber per tick, the same bytes for all of a variant, and nothing at all for a
// subscriber whose socket has not sent its last frame yet. Such a subscriber is skipped until
// its socket drains; it then gets one conflated frame (the latest state of what changed
// since its last frame), so it never holds more than about one frame here. One that stays
// blocked past STREAM_BLOCKED_CLOSE_MS is closed with 4008.

export interface StreamLimits {
  /** Subscribers of this process, all events together. */
  maxSubscribers: number;
  /** Subscribers of one event in this process. */
  maxEventSubscribers: number;
  /** How many changes behind a `since` may be and still be resumed; further back gets a reset snapshot. */
  retainedChanges: number;
  /** One frame per event per this many milliseconds. */
  tickMs: number;
  /** A subscriber whose socket stays blocked this long (it reads nothing) is closed with CLOSE_TOO_SLOW. */
  blockedCloseMs: number;
}

/** What the stream needs of a subscriber's socket (uWebSockets.js's WebSocket). */
export interface StreamSocket {
  getUserData(): Subscriber;
  /** 0 backpressure built up, 1 sent, 2 dropped. */
  send(message: Uint8Array, isBinary: boolean): number;
  getBufferedAmount(): number;
  end(code: number, reason: string): void;
}

type State = 'joining' | 'current' | 'skipped' | 'catching' | 'closed';

/** What a subscriber's socket carries (uWS user data). */
export interface Subscriber {
  id: number;
  eventId: number;
  workspace: WorkspaceDoc;
  eventKey: string;
  /** streamFollowers.ts variantOf: audience and format. */
  variant: number;
  since: number | undefined;
  state: State;
  /** The last frame sent to it brought it here (seq, and the view's reading: gen). */
  seq: number;
  gen: number;
  /** When it was first skipped (its socket blocked). */
  skippedAt: number;
}

/** Close code for a subscriber blocked too long: it resumes with `since`. */
export const CLOSE_TOO_SLOW = 4008;
/** The server is shutting down: resume elsewhere with `since`. */
export const CLOSE_GOING_AWAY = 1001;
/** The stream's thread died: resume with `since`. */
export const CLOSE_RESTARTED = 1011;
/** uWS's send when it dropped the message (past its hard backpressure limit). */
const DROPPED = 2;
/** How often skipped subscribers are checked against STREAM_BLOCKED_CLOSE_MS. */
const BLOCKED_CHECK_MS = 1_000;
/**
 * Sockets written per turn of the event loop. A write costs a few microseconds (the socket's
 * send), so a frame for 5,000 subscribers written at once held the thread for tens of
 * milliseconds each tick, and every booking waiting meanwhile with it; in slices, the bookings
 * that come in are served between them (docs/status-stream.md, "The stream thread").
 */
export const WRITES_PER_TURN = 256;

export interface StreamSocketsOptions {
  limits: StreamLimits;
  /** The stream's thread, given how to deliver its messages (tests pass their own thread). */
  thread: (deliver: (message: FromStream) => void, crashed: (error?: Error) => void) => ReaderThread<ToStream, FromStream>;
  logger?: Logger;
}

export class StreamSockets {
  readonly thread: ReaderThread<ToStream, FromStream>;
  private readonly byEvent = new Map<number, Set<StreamSocket>>();
  private readonly byId = new Map<number, StreamSocket>();
  /** Subscribers admitted but not yet joined or closed, per event, so limits hold while upgrades are in flight. */
  private readonly perEvent = new Map<number, number>();
  private admitted = 0;
  private nextId = 1;
  private readonly skipped = new Set<StreamSocket>();
  private closedBlocked = 0;
  private blockedCheck: NodeJS.Timeout | undefined;
  /** Drained subscribers to catch up, sent to the thread once per turn. */
  private catchUps: Extract<ToStream, { t: 'catchUp' }>['items'] = [];
  private closing = false;
  /** The thread's messages not handled yet, in the order it sent them. */
  private readonly queue: FromStream[] = [];
  /** The sockets of the queue's first frame not written yet (a live view: closed ones leave it). */
  private writing: Iterator<StreamSocket> | undefined;

  constructor(private readonly options: StreamSocketsOptions) {
    this.thread = options.thread(
      (message) => this.delivered(message),
      (error) => this.crashed(error),
    );
  }

  get limits(): StreamLimits {
    return this.options.limits;
  }

  /** Subscribers of this process (admitted, not closed). */
  get subscriberCount(): number {
    return this.admitted;
  }

  /** Subscribers skipped now, waiting for their sockets to drain. */
  get skippedCount(): number {
    return this.skipped.size;
  }

  /**
   * Subscribers closed so far for staying blocked past the limit. Their clients may not see the
   * 4008: its close frame waits behind what the socket holds, and uWS cuts a socket whose peer
   * has not answered within a few seconds (1006).
   */
  get closedBlockedCount(): number {
    return this.closedBlocked;
  }

  /** Counts a subscriber in before its upgrade; 429 past a limit, 503 while shutting down. The subscriber it returns goes with the upgrade. */
  admit(workspace: WorkspaceDoc, eventId: number, eventKey: string, variant: number, since: number | undefined): Subscriber {
    if (this.closing) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The server is shutting down; connect again');
    const { maxSubscribers, maxEventSubscribers } = this.options.limits;
    if (this.admitted >= maxSubscribers) throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `This server has ${maxSubscribers} status stream subscribers, its limit`);
    const forEvent = this.perEvent.get(eventId) ?? 0;
    if (forEvent >= maxEventSubscribers) throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `This event has ${maxEventSubscribers} status stream subscribers on this server, its limit`);
    this.admitted++;
    this.perEvent.set(eventId, forEvent + 1);
    return { id: this.nextId++, eventId, workspace, eventKey, variant, since, state: 'joining', seq: -1, gen: -1, skippedAt: 0 };
  }

  /** Gives an admitted subscriber's place back (its upgrade did not happen, or its socket closed). */
  release(subscriber: Subscriber): void {
    this.admitted--;
    const left = (this.perEvent.get(subscriber.eventId) ?? 1) - 1;
    if (left === 0) this.perEvent.delete(subscriber.eventId);
    else this.perEvent.set(subscriber.eventId, left);
  }

  /** A subscriber's socket opened (uWS open handler): the thread makes its first frame. */
  join(ws: StreamSocket): void {
    const subscriber = ws.getUserData();
    let sockets = this.byEvent.get(subscriber.eventId);
    if (!sockets) this.byEvent.set(subscriber.eventId, (sockets = new Set()));
    sockets.add(ws);
    this.byId.set(subscriber.id, ws);
    this.thread.start();
    const { id, workspace, eventKey, variant, since } = subscriber;
    this.thread.post({ t: 'join', id, workspace, eventKey, variant, since });
  }

  /** A subscriber's socket closed (uWS close handler). */
  leave(ws: StreamSocket): void {
    const subscriber = ws.getUserData();
    if (subscriber.state === 'closed') return;
    subscriber.state = 'closed';
    this.release(subscriber);
    this.byId.delete(subscriber.id);
    this.skipped.delete(ws);
    const sockets = this.byEvent.get(subscriber.eventId);
    sockets?.delete(ws);
    if (sockets?.size === 0) this.byEvent.delete(subscriber.eventId);
    this.thread.post({ t: 'leave', id: subscriber.id });
  }

  /** uWS's drain handler: a skipped subscriber whose socket sent everything is caught up. */
  drained(ws: StreamSocket): void {
    const subscriber = ws.getUserData();
    if (subscriber.state !== 'skipped' || ws.getBufferedAmount() > 0) return;
    subscriber.state = 'catching';
    this.skipped.delete(ws);
    if (this.catchUps.length === 0) setImmediate(() => this.sendCatchUps());
    this.catchUps.push({ id: subscriber.id, eventId: subscriber.eventId, variant: subscriber.variant, seq: subscriber.seq, gen: subscriber.gen });
  }

  private sendCatchUps(): void {
    const items = this.catchUps;
    this.catchUps = [];
    if (items.length > 0) this.thread.post({ t: 'catchUp', items });
  }

  /** Closes every subscriber (going away: they resume elsewhere with `since`) and stops the thread. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.blockedCheck);
    for (const ws of [...this.byId.values()]) ws.end(CLOSE_GOING_AWAY, 'The server is shutting down; connect again with since');
    await this.thread.stop();
  }

  /**
   * The thread's messages are handled in the order they came, at most WRITES_PER_TURN writes
   * per turn: what a frame has left goes on at the next turn, and what came after it waits
   * for it (a subscriber's frames follow on from each other).
   */
  private delivered(message: FromStream): void {
    this.queue.push(message);
    if (this.queue.length === 1) this.handleSome();
  }

  private readonly handleSome = (): void => {
    let budget = WRITES_PER_TURN;
    while (this.queue.length > 0) {
      if (budget === 0) return void setImmediate(this.handleSome);
      const message = this.queue[0]!;
      if (message.t === 'frame') {
        budget = this.frame(message, budget);
        // Sockets left to write: the budget ran out, the next turn goes on.
        if (this.writing !== undefined) continue;
      } else if (message.t === 'send') {
        this.send(message);
        budget = Math.max(0, budget - message.ids.length);
      } else for (const id of message.ids) this.byId.get(id)?.end(message.code, message.reason);
      this.queue.shift();
    }
  };

  /**
   * A tick's frame to every current subscriber of its event, `budget` writes at most; one whose
   * socket has not drained is skipped. What is left of the budget; `writing` holds the sockets
   * still to go when it ran out.
   */
  private frame({ eventId, gen, to, bytes }: Extract<FromStream, { t: 'frame' }>, budget: number): number {
    this.writing ??= this.byEvent.get(eventId)?.values();
    while (this.writing !== undefined) {
      if (budget === 0) return 0;
      const next = this.writing.next();
      if (next.done) {
        this.writing = undefined;
        break;
      }
      const ws = next.value;
      const subscriber = ws.getUserData();
      if (subscriber.state !== 'current') continue;
      const frame = bytes[subscriber.variant];
      if (!frame) continue;
      if (ws.getBufferedAmount() > 0) {
        this.skip(ws, subscriber);
        continue;
      }
      this.write(ws, subscriber, frame, to, gen);
      budget--;
    }
    // The thread makes the event's next frame once it hears this one is written (streamFollowers.ts, allWritten).
    this.thread.post({ t: 'written', eventId });
    return budget;
  }

  /** A frame for some subscribers alone (first frames, catch-ups): they are current after it. */
  private send({ ids, gen, to, bytes, binary }: Extract<FromStream, { t: 'send' }>): void {
    for (const id of ids) {
      const ws = this.byId.get(id);
      if (!ws) continue;
      const subscriber = ws.getUserData();
      if (subscriber.state !== 'joining' && subscriber.state !== 'catching') continue;
      subscriber.state = 'current';
      if (bytes) this.write(ws, subscriber, bytes, to, gen, binary);
      else {
        subscriber.seq = to;
        subscriber.gen = gen;
      }
    }
  }

  private write(ws: StreamSocket, subscriber: Subscriber, bytes: Uint8Array, to: number, gen: number, binary = isCompact(subscriber.variant)): void {
    if (ws.send(bytes, binary) === DROPPED) return ws.end(CLOSE_TOO_SLOW, 'Too far behind: connect again with since');
    subscriber.seq = to;
    subscriber.gen = gen;
  }

  private skip(ws: StreamSocket, subscriber: Subscriber): void {
    subscriber.state = 'skipped';
    subscriber.skippedAt = Date.now();
    this.skipped.add(ws);
    this.blockedCheck ??= setInterval(() => this.closeBlocked(), BLOCKED_CHECK_MS);
  }

  /** Closes, with CLOSE_TOO_SLOW, every subscriber whose socket stayed blocked past the limit. */
  private closeBlocked(): void {
    const limit = Date.now() - this.options.limits.blockedCloseMs;
    for (const ws of this.skipped) {
      if (ws.getUserData().skippedAt > limit) continue;
      this.closedBlocked++;
      ws.end(CLOSE_TOO_SLOW, 'Blocked too long: connect again with since');
    }
    if (this.skipped.size === 0) {
      clearInterval(this.blockedCheck);
      this.blockedCheck = undefined;
    }
  }

  /** The thread died: what it held for the subscribers is gone; each resumes with `since`. */
  private crashed(error?: Error): void {
    this.options.logger?.error({ err: error?.stack ?? error?.message },'status stream: its thread died; closing its subscribers (they resume with since) and starting it again');
    this.catchUps = [];
    // What the dead thread sent and is not handled yet goes with it.
    this.queue.length = 0;
    this.writing = undefined;
    for (const ws of [...this.byId.values()]) ws.end(CLOSE_RESTARTED, 'The status stream restarted: connect again with since');
  }
}
