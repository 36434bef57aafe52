import type { Logger } from 'pino';
import type { WebSocket } from 'uWebSockets.js';
import { ApiError } from '../domain/errors.js';
import { areaStatus } from '../domain/eventObjectInfo.js';
import { HELD } from '../domain/objectStates.js';
import type { AreaState, ObjectState } from '../domain/objectStates.js';
import type { ObjectSnapshot } from '../domain/eventObjectInfo.js';
import {
  applyChange,
  changeJson,
  changesMessage,
  changesMessageOf,
  changesOf,
  isStatusChange,
  SeasonLens,
  snapshotMessage,
  ViewOverlay,
  type Audience,
  type FollowedEntry,
  type StreamChange,
  type StreamObject,
  type StreamStatusChange,
} from '../domain/statusStreamView.js';
import type { EventObjectStore } from '../inventory/eventObjectStore.js';
import { followsSeasonFeed, type HistoryFollower, type HistoryRange } from '../inventory/historyFollower.js';
import type { LoadedEvent } from './eventCatalog.js';

// The live status stream's fan-out (docs/status-stream.md): per process, one follower per
// event that has subscribers here. A follower reads the event's history stream once (an
// event of a season: its season's feed, seen through a SeasonLens; src/inventory/historyFollower.ts),
// keeps the event's view (every object not free or not wholly for sale) and its recent
// changes, and sends each batch of changes to every subscriber, the message built
// once per audience: nothing is read or built per subscriber. A subscriber joins
// synchronously between two batches, so it gets the view (or the changes since its `since`)
// and then every batch, with nothing missed or repeated. Sent socket by socket rather than
// with uWS's topic publish: uWS sends a publish at the end of its own loop iteration, and
// one made from a Redis reply (outside uWS's callbacks) could wait there until the next
// HTTP request or timer woke uWS up.
//
// A subscriber whose socket holds more than HOLD_BACK_BYTES unsent (its client reads slower
// than changes come) is sent no more batches: their size counts against its limits, and once
// uWS says the socket drained it is caught up from the follower's recent changes, in
// messages of about CATCH_UP_BYTES (closed when it fell further behind than those). So a slow
// reader holds at most HOLD_BACK_BYTES and one message in this process, not a copy of every
// batch it has not read (docs/status-stream.md, "Slow readers").

export interface StreamLimits {
  /** Subscribers of this process, all events together. */
  maxSubscribers: number;
  /** Subscribers of one event in this process. */
  maxEventSubscribers: number;
  /** Bytes a subscriber may leave unread before it is closed with CLOSE_TOO_SLOW. */
  maxBackpressureBytes: number;
  /**
   * Bytes the process's subscribers may hold in their sockets' buffers together: past it,
   * those furthest behind are closed with CLOSE_TOO_SLOW, so thousands of slow readers cannot
   * hold the process's memory (held-back batches are not kept, and count only against
   * maxBackpressureBytes).
   */
  maxBufferedBytes: number;
  /** How many changes behind a `since` may be and still be resumed; further back gets a reset snapshot. */
  retainedChanges: number;
  /** A follower reads (and sends what it read) once per this many milliseconds. */
  batchMs: number;
}

/** Close code for a subscriber that fell too far behind: it resumes with `since`. */
export const CLOSE_TOO_SLOW = 4008;
/**
 * Bytes a subscriber's socket may hold unsent in this process before its batches are held
 * back: the kernel's send buffer (16 KiB or more per socket) already rides out a reader slow
 * for a moment, so this is kept small: thousands of slow readers then hold little (each at
 * most this, one batch and one catch-up message). At 32 KiB, with the catch-ups at 32 KiB,
 * 5,000 slow subscribers took the process 140-270 MB higher (docs/performance.md, "Peak
 * memory: the old generation's growth and the slow readers' allowance").
 */
const HOLD_BACK_BYTES = 8 * 1024;
/** What uWS's send answers for a message it dropped (past its hard backpressure limit). */
const DROPPED = 2;
/** Close code when the server stops or the event's stream cannot be followed: resume with `since`. */
export const CLOSE_GOING_AWAY = 1001;
/** How long a follower waits for a `since` ahead of it to be written, before answering with a reset snapshot. */
const SINCE_AHEAD_WAIT_MS = 2_000;
/** A follower without subscribers stays this long, so a page reloading does not read the event anew. */
const IDLE_FOLLOWER_MS = 5_000;
/** How often subscribers are checked for unread bytes. */
const SLOW_CHECK_MS = 100;
/**
 * Recent changes each follower keeps at most (fewer when STREAM_RETAINED_CHANGES is lower),
 * for subscribers resuming from just behind or held back: about 1 MiB of messages, the unread
 * a subscriber is allowed by default (STREAM_MAX_BACKPRESSURE_BYTES).
 */
const RECENT_CHANGES = 10_000;
/** A held-back subscriber is caught up in messages of about this size: its socket then holds at most HOLD_BACK_BYTES and one of them. */
const CATCH_UP_BYTES = 16 * 1024;
/** After a failed read, the follower tries again this much later. */
const RETRY_MS = 200;

/** What a subscriber's socket carries (uWS user data). */
export interface Subscriber {
  loaded: LoadedEvent;
  audience: Audience;
  since: number | undefined;
  /** The socket is gone: nothing more is sent or counted. */
  closed: boolean;
  /** Its place in a follower, once joined. */
  follower?: Follower;
  /** Held back (its socket held too much unsent): where it stood, to be caught up from on drain. */
  behind?: Position;
  /** The size of the batches held back from it since its socket last drained: unread, as far as its limits go. */
  heldBack?: number;
}

/** How far a subscriber has been sent: up to `seq`, in the follower's `resets`th view. */
interface Position {
  seq: number;
  resets: number;
}

type Socket = WebSocket<Subscriber>;

interface Recent {
  seq: number;
  change: StreamChange;
  /** The change's JSON per audience, made for the first catch-up that needs it. */
  json?: Partial<Record<Audience, string>>;
}

/** What a held-back subscriber gets next (Follower.catchUpFrom). */
type CatchUp =
  /** A changes message (none when nothing changed since), and where it brings the subscriber. */
  | { text: string | undefined; to: Position }
  /** The view was read anew since: the snapshot marked reset. */
  | 'reset'
  /** The changes since are no longer all kept: it is closed, and resumes with `since`. */
  | 'tooFar';

class Follower {
  seq = 0;
  readonly view = new Map<string, StreamObject>();
  /** For an event of a season: what its season's feed shows in it (made with the view). */
  lens: SeasonLens | undefined;
  /** The last RECENT_CHANGES changes (at most STREAM_RETAINED_CHANGES), oldest first. */
  readonly recent: Recent[] = [];
  /** Subscribers that joined, including those still being given their first message. */
  readonly sockets = new Set<Socket>();
  /** Subscribers that got their first message: each batch goes to them. */
  readonly receivers = new Set<Socket>();
  /** How many times the view was read anew (readView): a subscriber held back across one gets the view. */
  resets = 0;
  /**
   * What was made for subscribers at the follower's position (`seq` in its `resets`th
   * reading), for the next that asks: snapshot texts by audience, marked reset or not, and
   * catch-ups by audience and the seq caught up from.
   */
  private made = { seq: -1, resets: 0, snapshots: new Map<string, string>(), catchUps: new Map<string, CatchUp>() };
  stopped = false;
  idleTimer: NodeJS.Timeout | undefined;
  /** Subscribers waiting for the follower to reach a seq. */
  waiters: { seq: number; wake: () => void }[] = [];
  ready: Promise<void>;

  constructor(
    readonly eventId: number,
    public loaded: LoadedEvent,
    readonly reader: HistoryFollower,
    start: (follower: Follower) => Promise<void>,
  ) {
    this.ready = start(this);
  }

  /** The seq of the oldest change kept, minus one: a `since` from here on resumes from memory. */
  get recentFrom(): number {
    return this.recent.length === 0 ? this.seq : this.recent[0]!.seq - 1;
  }

  snapshot(audience: Audience, reset: boolean): string {
    const { snapshots } = this.madeHere();
    const key = reset ? `${audience}:reset` : audience;
    let text = snapshots.get(key);
    if (text === undefined) snapshots.set(key, (text = snapshotMessage(this.seq, this.view, audience, reset)));
    return text;
  }

  /** `made`, emptied once the follower has moved on. */
  private madeHere(): Follower['made'] {
    if (this.made.seq !== this.seq || this.made.resets !== this.resets) this.made = { seq: this.seq, resets: this.resets, snapshots: new Map(), catchUps: new Map() };
    return this.made;
  }

  get position(): Position {
    return { seq: this.seq, resets: this.resets };
  }

  /**
   * What a subscriber held back at `from` gets next: the changes after it, in one message of
   * about CATCH_UP_BYTES at most (a seq's changes stay together), and where that brings it.
   */
  catchUpFrom(from: Position, audience: Audience): CatchUp {
    if (from.resets !== this.resets) return 'reset';
    if (from.seq < this.recentFrom) return 'tooFar';
    const { catchUps } = this.madeHere();
    const key = `${audience}:${from.seq}`;
    let next = catchUps.get(key);
    if (next === undefined) catchUps.set(key, (next = this.nextCatchUp(from.seq, audience)));
    return next;
  }

  private nextCatchUp(after: number, audience: Audience): CatchUp {
    const parts: string[] = [];
    let bytes = 0;
    // The first change after `after`: recent is in seq order.
    let i = 0;
    for (let high = this.recent.length; i < high; ) {
      const middle = (i + high) >>> 1;
      if (this.recent[middle]!.seq > after) high = middle;
      else i = middle + 1;
    }
    if (i === this.recent.length) return { text: undefined, to: this.position };
    for (; i < this.recent.length; i++) {
      const recent = this.recent[i]!;
      if (bytes >= CATCH_UP_BYTES && recent.seq !== this.recent[i - 1]!.seq) break;
      const json = ((recent.json ??= {})[audience] ??= changeJson(recent.change, audience));
      parts.push(json);
      bytes += json.length + 1;
    }
    const to = i === this.recent.length ? this.position : { seq: this.recent[i - 1]!.seq, resets: this.resets };
    return { text: changesMessageOf(to.seq, parts), to };
  }
}

export interface HubParts {
  objects: EventObjectStore;
  /** A reader of one event's history stream. */
  follow: (loaded: LoadedEvent) => HistoryFollower;
  /** Reads the changes after `after` up to `upTo` from the stream and the stored history. */
  range: HistoryRange;
  /** The event read anew, not from a cache (its season's make-up changed); null once it is gone. */
  reload: (loaded: LoadedEvent) => Promise<LoadedEvent | null>;
  logger?: Logger;
}

export class StatusStreamHub {
  private readonly followers = new Map<number, Follower>();
  private subscribers = 0;
  /** Subscribers admitted but not yet joined or closed, per event, so limits hold while upgrades are in flight. */
  private readonly perEvent = new Map<number, number>();
  private slowCheck: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly parts: HubParts,
    readonly limits: StreamLimits,
  ) {}

  get subscriberCount(): number {
    return this.subscribers;
  }

  /** Subscribers held back now, waiting for their sockets to drain (send, drained). */
  get heldBackCount(): number {
    let count = 0;
    for (const follower of this.followers.values()) for (const ws of follower.receivers) if (ws.getUserData().behind) count++;
    return count;
  }

  /** Counts a subscriber in before its upgrade; 429 past a limit. `release` gives the place back. */
  admit(eventId: number): void {
    if (this.closing) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'The server is shutting down; connect again');
    if (this.subscribers >= this.limits.maxSubscribers) {
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `This server has ${this.limits.maxSubscribers} status stream subscribers, its limit`);
    }
    const forEvent = this.perEvent.get(eventId) ?? 0;
    if (forEvent >= this.limits.maxEventSubscribers) {
      throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', `This event has ${this.limits.maxEventSubscribers} status stream subscribers on this server, its limit`);
    }
    this.subscribers++;
    this.perEvent.set(eventId, forEvent + 1);
  }

  release(eventId: number): void {
    this.subscribers--;
    const left = (this.perEvent.get(eventId) ?? 1) - 1;
    if (left === 0) this.perEvent.delete(eventId);
    else this.perEvent.set(eventId, left);
  }

  /** A subscriber's socket opened: it gets its first message, then every batch. */
  async join(ws: Socket): Promise<void> {
    const subscriber = ws.getUserData();
    const follower = this.followerOf(subscriber.loaded);
    follower.sockets.add(ws);
    subscriber.follower = follower;
    clearTimeout(follower.idleTimer);
    this.slowCheck ??= setInterval(() => this.closeSlow(), SLOW_CHECK_MS);
    try {
      await follower.ready;
      const first = subscriber.closed ? undefined : await this.firstMessage(follower, subscriber);
      if (first !== undefined) this.attach(ws, follower, first.text);
    } catch (error) {
      this.parts.logger?.warn({ err: (error as Error).message, eventId: follower.eventId }, 'status stream: a subscriber could not join');
      if (!subscriber.closed) ws.end(CLOSE_GOING_AWAY, 'The event could not be read; connect again with since');
    }
  }

  /**
   * What a joining subscriber gets first: the view, or the changes after its `since` (no
   * text when there are none yet), or the view marked reset when `since` cannot be resumed.
   * Undefined when it left while its changes were read.
   */
  private async firstMessage(follower: Follower, subscriber: Subscriber): Promise<{ text: string | undefined } | undefined> {
    const { since, audience } = subscriber;
    if (since === undefined) return { text: follower.snapshot(audience, false) };
    if (since > follower.seq) await this.reach(follower, since);
    // Ahead of the event, or further behind than retained: the view anew.
    if (since > follower.seq || follower.seq - since > this.limits.retainedChanges) return { text: follower.snapshot(audience, true) };
    if (since >= follower.recentFrom) return { text: this.catchUp(follower, since, [], audience) };
    // Further back than memory: the changes up to where the follower is now, then what it read meanwhile.
    const upTo = follower.seq;
    const older = await this.parts.range(subscriber.loaded.event, since, upTo);
    const olderChanges = older && (await this.withAreaCounts(subscriber.loaded, older.flatMap((followed) => changesOf(followed.entry))));
    if (subscriber.closed) return undefined;
    if (olderChanges === null || follower.recentFrom > upTo) return { text: follower.snapshot(audience, true) };
    return { text: this.catchUp(follower, upTo, olderChanges, audience) };
  }

  /** A subscriber's socket closed (uWS close handler): it holds nothing any more. */
  leave(ws: Socket): void {
    const subscriber = ws.getUserData();
    if (subscriber.closed) return;
    subscriber.closed = true;
    this.release(subscriber.loaded.event._id);
    const follower = subscriber.follower;
    if (!follower) return;
    follower.sockets.delete(ws);
    follower.receivers.delete(ws);
    if (follower.sockets.size > 0) return;
    follower.idleTimer = setTimeout(() => this.stopFollower(follower), IDLE_FOLLOWER_MS);
    if (this.subscribers === 0) {
      clearInterval(this.slowCheck);
      this.slowCheck = undefined;
    }
  }

  /** Closes every subscriber (going away: they resume elsewhere with `since`) and stops the followers. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.slowCheck);
    const followers = [...this.followers.values()];
    for (const follower of followers) for (const ws of [...follower.sockets]) ws.end(CLOSE_GOING_AWAY, 'The server is shutting down; connect again with since');
    await Promise.all(followers.map((follower) => this.stopFollower(follower)));
  }

  /** The view or changes first, then every batch: in one go, so no batch falls in between. */
  private attach(ws: Socket, follower: Follower, first: string | undefined): void {
    if (ws.getUserData().closed) return;
    follower.receivers.add(ws);
    if (first !== undefined) this.send(ws, first, follower.position);
  }

  /**
   * Sends one message, which brings the subscriber to `to`. When its socket then holds more
   * than HOLD_BACK_BYTES unsent, the subscriber is held back from there until the socket
   * drains (drained); when uWS had to drop the message (far past the limit), it is closed.
   */
  private send(ws: Socket, message: string, to: Position): void {
    if (ws.send(message, false) === DROPPED) this.closeTooSlow(ws);
    else if (ws.getBufferedAmount() > HOLD_BACK_BYTES) ws.getUserData().behind = to;
  }

  /**
   * A batch to every subscriber of the follower, the message made once per audience; one
   * held back gets nothing now, and the message's size counts as unread against its limits.
   */
  private broadcast(follower: Follower, message: (audience: Audience) => string): void {
    const texts: Partial<Record<Audience, string>> = {};
    const to = follower.position;
    for (const ws of follower.receivers) {
      const subscriber = ws.getUserData();
      const text = (texts[subscriber.audience] ??= message(subscriber.audience));
      if (subscriber.behind) subscriber.heldBack = (subscriber.heldBack ?? 0) + text.length;
      else this.send(ws, text, to);
    }
  }

  /**
   * uWS's drain handler: a held-back subscriber whose socket holds HOLD_BACK_BYTES or less
   * gets what it missed, a message at a time while its socket takes them; one further behind
   * than the follower keeps is closed (it resumes with `since` from the stored history).
   */
  drained(ws: Socket): void {
    const subscriber = ws.getUserData();
    const follower = subscriber.follower;
    if (!follower || ws.getBufferedAmount() > HOLD_BACK_BYTES) return;
    // Its socket took what it held: what was held back since counts as unread no more.
    subscriber.heldBack = 0;
    while (subscriber.behind && !subscriber.closed && ws.getBufferedAmount() <= HOLD_BACK_BYTES) {
      const next = follower.catchUpFrom(subscriber.behind, subscriber.audience);
      if (next === 'tooFar') return this.closeTooSlow(ws);
      const to = next === 'reset' ? follower.position : next.to;
      const text = next === 'reset' ? follower.snapshot(subscriber.audience, true) : next.text;
      const caughtUp = to.seq === follower.seq && to.resets === follower.resets;
      subscriber.behind = caughtUp ? undefined : to;
      if (text !== undefined) this.send(ws, text, to);
    }
  }

  /** The changes after `since` as one message: `older` (read from storage, up to recent's start) then the recent ones; undefined if none. */
  private catchUp(follower: Follower, since: number, older: StreamChange[], audience: Audience): string | undefined {
    const changes = [...older];
    for (const recent of follower.recent) if (recent.seq > since) changes.push(recent.change);
    return changes.length === 0 ? undefined : changesMessage(follower.seq, changes, audience);
  }

  /** Resolves when the follower has sent `seq`, or after SINCE_AHEAD_WAIT_MS. */
  private reach(follower: Follower, seq: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, SINCE_AHEAD_WAIT_MS);
      follower.waiters.push({ seq, wake: () => (clearTimeout(timer), resolve()) });
    });
  }

  private followerOf(loaded: LoadedEvent): Follower {
    const eventId = loaded.event._id;
    let follower = this.followers.get(eventId);
    if (follower && !follower.stopped) {
      follower.loaded = loaded;
      return follower;
    }
    follower = new Follower(eventId, loaded, this.parts.follow(loaded), (f) => this.start(f));
    this.followers.set(eventId, follower);
    return follower;
  }

  /** Reads the event's view and where its history stands, then follows it from there. */
  private async start(follower: Follower): Promise<void> {
    await this.readView(follower);
    void this.run(follower);
  }

  private async readView(follower: Follower): Promise<void> {
    const { event, index, season } = follower.loaded;
    // An event of a season shows what its season and partial seasons (`sum`) took (docs/status-stream.md, "Seasons").
    const inSeason = followsSeasonFeed(event) ? season : undefined;
    const position = await this.parts.objects.readWithPosition(event, index, Date.now(), inSeason && { units: inSeason.sum, top: inSeason.top });
    const { seq, snapshots, notForSale } = position;
    follower.view.clear();
    for (const [label, snapshot] of snapshots) {
      const object = streamObjectOf(snapshot.state, index.byLabel.get(label)?.capacity ?? 0);
      if (object) follower.view.set(label, object);
    }
    follower.lens = undefined;
    if (!inSeason || !position.season) {
      for (const [label, places] of notForSale) applyChange(follower.view, { objectLabel: label, notForSale: places });
    } else {
      const isArea = (label: string) => index.byLabel.get(label)?.objectType === 'generalAdmission';
      const units = inSeason.sum;
      const forSale = { topId: inSeason.top._id, propagated: inSeason.propagated, own: notForSale, season: position.season.topNotForSale };
      const lens = new SeasonLens(event._id, new Set(units.map((unit) => unit._id)), isArea, position.season.overrides, new Set(), forSale);
      const held = position.season.units.map((records, i): [number, StreamStatusChange[]] => [units[i]!._id, seatChangesOf(records)]);
      lens.startView(follower.view, held);
      follower.lens = lens;
    }
    follower.recent.length = 0;
    follower.seq = seq;
    follower.resets++;
  }

  private async run(follower: Follower): Promise<void> {
    let readAt = 0;
    while (!follower.stopped) {
      try {
        // One read (and one message to every subscriber) per batch interval: under load
        // each read then carries many changes, and the fan-out costs per message.
        const wait = readAt + this.limits.batchMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        readAt = performance.now();
        const poll = await follower.reader.next(follower.seq);
        if (poll.makeUpChanged) {
          // The season's units changed: what the event shows of them is read anew.
          follower.loaded = (await this.parts.reload(follower.loaded)) ?? follower.loaded;
          await this.resetAll(follower);
          continue;
        }
        let entries = poll.entries;
        // Entries the drain stored and trimmed before this read (all of them, when the
        // stream is empty) come from the stored history.
        const missedUpTo = entries.length > 0 ? entries[0]!.seq - 1 : poll.lastWritten;
        if (follower.stopped || (entries.length === 0 && missedUpTo <= follower.seq)) continue;
        if (missedUpTo > follower.seq) {
          const missed = await this.parts.range(follower.loaded.event, follower.seq, missedUpTo);
          if (missed === null) {
            await this.resetAll(follower);
            continue;
          }
          entries = [...missed, ...entries];
        }
        await this.apply(follower, entries);
      } catch (error) {
        if (follower.stopped) return;
        this.parts.logger?.warn({ err: (error as Error).message, eventId: follower.eventId }, 'status stream: reading the history failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** Applies a batch of entries to the view and sends it: GA areas with their counts as they stand now. */
  private async apply(follower: Follower, entries: FollowedEntry[]): Promise<void> {
    const perEntry = this.changesOfBatch(follower, entries);
    const changes = perEntry.flat();
    await this.withAreaCounts(follower.loaded, changes);
    if (follower.stopped) return;
    entries.forEach((followed, i) => {
      for (const change of perEntry[i]!) {
        applyChange(follower.view, change);
        follower.recent.push({ seq: followed.seq, change });
      }
    });
    const kept = Math.min(RECENT_CHANGES, this.limits.retainedChanges);
    if (follower.recent.length > kept) follower.recent.splice(0, follower.recent.length - kept);
    follower.seq = entries[entries.length - 1]!.seq;
    const seq = follower.seq;
    // A season's feed has entries of its other units, which change nothing here.
    if (changes.length > 0) this.broadcast(follower, (audience) => changesMessage(seq, changes, audience));
    this.wakeWaiters(follower);
  }

  /**
   * Each entry's changes. Through a season's lens each depends on the view as the entries
   * before it in the batch left it: they are laid over the view, which is changed only once
   * the GA counts are read, all at once.
   */
  private changesOfBatch(follower: Follower, entries: FollowedEntry[]): StreamChange[][] {
    const lens = follower.lens;
    if (!lens) return entries.map((followed) => changesOf(followed.entry));
    const overlay = new ViewOverlay(follower.view);
    return entries.map((followed) => {
      const changes = lens.changesOf(followed, overlay);
      for (const change of changes) applyChange(overlay, change);
      return changes;
    });
  }

  /**
   * Gives the GA areas' status changes the areas' status and counts as they stand now (a
   * history entry records only the places the change moved).
   */
  private async withAreaCounts({ event, index }: LoadedEvent, changes: StreamChange[]): Promise<StreamChange[]> {
    const isArea = (label: string) => index.byLabel.get(label)?.objectType === 'generalAdmission';
    const areas = [...new Set(changes.filter((c) => isStatusChange(c) && isArea(c.objectLabel)).map((c) => c.objectLabel))];
    if (areas.length === 0) return changes;
    const states = await this.parts.objects.readSnapshots(event, index, areas, Date.now());
    for (const change of changes) {
      const state = states.get(change.objectLabel)?.state as AreaState | undefined;
      const area = index.byLabel.get(change.objectLabel);
      if (state && area && isStatusChange(change)) Object.assign(change, { status: areaStatus(state, area.capacity), booked: state.nonFree, held: state.held });
    }
    return changes;
  }

  /** The history could not be followed without a gap: every subscriber gets the view anew. */
  private async resetAll(follower: Follower): Promise<void> {
    await this.readView(follower);
    this.broadcast(follower, (audience) => follower.snapshot(audience, true));
    this.wakeWaiters(follower);
  }

  private wakeWaiters(follower: Follower): void {
    if (follower.waiters.length === 0) return;
    const due = follower.waiters.filter((waiter) => waiter.seq <= follower.seq);
    follower.waiters = follower.waiters.filter((waiter) => waiter.seq > follower.seq);
    for (const waiter of due) waiter.wake();
  }

  private async stopFollower(follower: Follower): Promise<void> {
    if (follower.sockets.size > 0 && !this.closing) return;
    follower.stopped = true;
    clearTimeout(follower.idleTimer);
    if (this.followers.get(follower.eventId) === follower) this.followers.delete(follower.eventId);
    for (const waiter of follower.waiters) waiter.wake();
  }

  /**
   * Closes, with CLOSE_TOO_SLOW, every subscriber that left more than its limit unread (in
   * its socket's buffer, and held back), and then, while the rest together hold more than the
   * process's limit in their buffers, those furthest behind: held-back batches are not kept
   * per subscriber, so only the buffers are the process's memory.
   */
  private closeSlow(): void {
    const behind: { ws: Socket; unread: number; buffered: number }[] = [];
    let total = 0;
    for (const follower of this.followers.values()) {
      for (const ws of follower.sockets) {
        const buffered = ws.getBufferedAmount();
        const unread = buffered + (ws.getUserData().heldBack ?? 0);
        if (unread > this.limits.maxBackpressureBytes) this.closeTooSlow(ws);
        else if (buffered > 0) {
          behind.push({ ws, unread, buffered });
          total += buffered;
        }
      }
    }
    if (total <= this.limits.maxBufferedBytes) return;
    behind.sort((a, b) => b.unread - a.unread);
    for (const { ws, buffered } of behind) {
      if (total <= this.limits.maxBufferedBytes) break;
      this.closeTooSlow(ws);
      total -= buffered;
    }
  }

  private closeTooSlow(ws: Socket): void {
    ws.end(CLOSE_TOO_SLOW, 'Too far behind: connect again with since');
  }
}

/** A season unit's seats, tables and booths that are not free, as status changes (SeasonLens.startView). */
function seatChangesOf(records: Map<string, ObjectSnapshot>): StreamStatusChange[] {
  const changes: StreamStatusChange[] = [];
  for (const [label, snapshot] of records) {
    const object = streamObjectOf(snapshot.state, 1);
    if (object) changes.push({ objectLabel: label, quantity: 1, ...object });
  }
  return changes;
}

/** An object of a snapshot read from Redis as the stream shows it; undefined when free. */
function streamObjectOf(state: ObjectState | AreaState, capacity: number): StreamObject | undefined {
  if ('nonFree' in state) {
    if (state.nonFree === 0 && state.held === 0) return undefined;
    return { status: areaStatus(state, capacity), booked: state.nonFree, held: state.held };
  }
  if (state.status === 'free') return undefined;
  const object: StreamObject = { status: state.status };
  if (state.status === HELD && state.holdToken) object.holdToken = state.holdToken;
  if (state.orderId) object.orderId = state.orderId;
  return object;
}
