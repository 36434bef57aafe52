import type { Logger } from 'pino';
import { ApiError } from '../domain/errors.js';
import { StatusTable } from '../domain/compactFrames.js';
import { layoutVersionOf } from '../domain/eventLayout.js';
import { areaStatus } from '../domain/eventObjectInfo.js';
import type { ObjectSnapshot } from '../domain/eventObjectInfo.js';
import { HELD } from '../domain/objectStates.js';
import type { AreaState, ObjectState } from '../domain/objectStates.js';
import {
  applyChange,
  changeJson,
  changesMessageOf,
  changesOf,
  codeStatuses,
  compactChanges,
  compactConflated,
  compactSnapshot,
  conflatedMessage,
  isStatusChange,
  SeasonLens,
  snapshotMessage,
  ViewOverlay,
  type Audience,
  type FollowedEntry,
  type Positions,
  type StreamChange,
  type StreamObject,
  type StreamStatusChange,
} from '../domain/statusStreamView.js';
import type { EventObjectStore } from '../inventory/eventObjectStore.js';
import { followsSeasonFeed, type HistoryFollower, type HistoryRange } from '../inventory/historyFollower.js';
import type { WorkspaceDoc } from '../domain/tenant.js';
import type { EventCatalog, LoadedEvent } from './eventCatalog.js';
import { wokenOrAfter } from '../util/timeout.js';

// The live status stream's followers, in the stream's thread (src/streamThread.ts;
// docs/status-stream.md, "The stream thread"): one per event with subscribers in this
// process. A follower reads the event's history stream once per tick (an event of a season:
// its season's feed, seen through a SeasonLens), keeps the event's view and its recent
// changes, and makes ONE frame per tick of that tick's changes, encoded once per variant
// (JSON or compact, public or secret key) that has subscribers: the server's thread hands the
// same bytes to every subscriber of the variant (src/services/streamSockets.ts). Nothing is
// read or built per subscriber.
//
// The server's thread tells this one who joins (its first frame: the view, or the changes
// after its `since`), who leaves, and who drained after being skipped: those get one
// conflated frame with the latest state of every object that changed since the last frame
// they were sent. Positions are `shown`: the seq of the last change a frame carried (for an
// event of a season, entries of other units move the reading position but show nothing).

export type Format = 'json' | 'compact';

/** A subscriber's variant: what it may see (audience) in which format. Numbered 0-3. */
export const variantOf = (audience: Audience, format: Format): number => (audience === 'secret' ? 1 : 0) + (format === 'compact' ? 2 : 0);
const audienceOf = (variant: number): Audience => (variant & 1 ? 'secret' : 'public');
export const isCompact = (variant: number): boolean => (variant & 2) !== 0;
export const VARIANTS = 4;

/** What the server's thread sends the stream's. */
export type ToStream =
  | { t: 'join'; id: number; workspace: WorkspaceDoc; eventKey: string; variant: number; since: number | undefined }
  | { t: 'leave'; id: number }
  /** The event's last frame is written to its subscribers: the follower may make the next. */
  | { t: 'written'; eventId: number }
  | { t: 'catchUp'; items: { id: number; eventId: number; variant: number; seq: number; gen: number }[] };

/** What the stream's thread sends the server's. */
export type FromStream =
  /** A tick's frame, to every subscriber of the event that is current (one per variant; undefined where none subscribes). */
  | { t: 'frame'; eventId: number; gen: number; to: number; bytes: (Uint8Array | undefined)[] }
  /** A frame for the subscribers `ids` alone (a first frame, a catch-up), which then are current at `to`; no bytes: already current. */
  | { t: 'send'; ids: number[]; gen: number; to: number; bytes: Uint8Array | undefined; binary: boolean }
  | { t: 'close'; ids: number[]; code: number; reason: string };

export interface StreamOptions {
  /** Changes kept for resuming (`since`) from memory; further back a reset snapshot. */
  retainedChanges: number;
  /** One read, and one frame per event, per this many milliseconds. */
  tickMs: number;
}

/** Close code when the event's stream cannot be followed: connect again with `since`. */
export const CLOSE_GOING_AWAY = 1001;
/** How long a follower waits for a `since` ahead of it to be written, before answering with a reset snapshot. */
const SINCE_AHEAD_WAIT_MS = 2_000;
/** A follower without subscribers stays this long, so a page reloading does not read the event anew. */
const IDLE_FOLLOWER_MS = 5_000;
/** Recent changes each follower keeps at most (fewer when STREAM_RETAINED_CHANGES is lower), for `since` resumes. */
const RECENT_CHANGES = 10_000;
/** After a failed read, the follower tries again this much later. */
const RETRY_MS = 200;
/**
 * How long a follower waits at most for the server's thread to have written its last frame
 * (a `written` message) before it makes the next one anyway.
 */
const WRITTEN_WAIT_MS = 1_000;

interface Recent {
  seq: number;
  change: StreamChange;
}

class Follower {
  /** How far the history was read. */
  seq = 0;
  /** The seq of the last change shown (the `to` of the last frame, or the view's seq): where every current subscriber is. */
  shown = 0;
  readonly view = new Map<string, StreamObject>();
  /** For an event of a season: what its season's feed shows in it (made with the view). */
  lens: SeasonLens | undefined;
  readonly recent: Recent[] = [];
  /** Each object that changed since the view was read, by the seq of its last change, oldest first (deleted and set again on each change). */
  readonly lastChanged = new Map<string, number>();
  /** Status codes of the compact frames; kept for the follower's life, so codes are never reused. */
  readonly table = new StatusTable();
  /** Subscribers by variant. */
  readonly variants = [0, 0, 0, 0];
  subscribers = 0;
  /** How many times the view was read anew: a subscriber current in an earlier reading gets the view again. */
  resets = 0;
  layoutVersion = '';
  /** Frames made at the current position for the next subscriber that needs the same: by kind and variant. */
  private made = { shown: -1, resets: 0, frames: new Map<string, Uint8Array | undefined>() };
  stopped = false;
  idleTimer: NodeJS.Timeout | undefined;
  waiters: { seq: number; wake: () => void }[] = [];
  ready: Promise<void>;
  /** Its last frame is posted and the server's thread has not said it is written yet (one frame per read at most). */
  unwritten = false;
  /** Wakes the follower waiting for its frames to be written. */
  onWritten: (() => void) | undefined;

  constructor(
    readonly eventId: number,
    public loaded: LoadedEvent,
    readonly workspace: WorkspaceDoc,
    readonly reader: HistoryFollower,
    start: (follower: Follower) => Promise<void>,
  ) {
    this.ready = start(this);
    // Awaited by each joining subscriber, which handles a failure; none may be left waiting.
    this.ready.catch(() => {});
  }

  readonly positions: Positions = (label) => this.loaded.index.byLabel.get(label)?.position;

  /** The seq of the oldest change kept, minus one: a `since` from here on resumes from memory. */
  get recentFrom(): number {
    return this.recent.length === 0 ? this.shown : this.recent[0]!.seq - 1;
  }

  /** A frame made once per position, kind and variant. */
  madeOnce(key: string, make: () => Uint8Array | undefined): Uint8Array | undefined {
    if (this.made.shown !== this.shown || this.made.resets !== this.resets) this.made = { shown: this.shown, resets: this.resets, frames: new Map() };
    const frames = this.made.frames;
    if (!frames.has(key)) frames.set(key, make());
    return frames.get(key);
  }

  snapshot(variant: number, reset: boolean): Uint8Array {
    return this.madeOnce(`s${variant}${reset ? 'r' : ''}`, () => {
      const audience = audienceOf(variant);
      if (isCompact(variant)) return compactSnapshot(this.shown, this.view, audience, reset, this.positions, this.table, this.layoutVersion);
      return encode(snapshotMessage(this.shown, this.view, audience, reset));
    })!;
  }

  /** The latest state of every object that changed after `from`: a conflated frame, or undefined when none did. */
  conflatedSince(from: number, variant: number): Uint8Array | undefined {
    return this.madeOnce(`c${variant}:${from}`, () => {
      const states: [string, StreamObject | undefined][] = [];
      for (const [label, seq] of this.lastChanged) if (seq > from) states.push([label, this.view.get(label)]);
      if (states.length === 0) return undefined;
      const audience = audienceOf(variant);
      if (isCompact(variant)) return compactConflated(from, this.shown, states, audience, this.positions, this.table);
      return encode(conflatedMessage(from, this.shown, states, audience));
    });
  }
}

const encode = (text: string): Uint8Array => Buffer.from(text, 'utf8');

export interface FollowerParts {
  catalog: EventCatalog;
  objects: EventObjectStore;
  /** A reader of one event's history stream. */
  follow: (loaded: LoadedEvent) => HistoryFollower;
  /** Reads the changes after `after` up to `upTo` from the stream and the stored history. */
  range: HistoryRange;
  /** Where frames go: the server's thread. */
  post: (message: FromStream) => void;
  logger?: Logger;
}

/** One subscriber as this thread knows it: its event and variant. */
interface Member {
  follower: Follower;
  variant: number;
}

export class StreamFollowers {
  private readonly followers = new Map<number, Follower>();
  private readonly members = new Map<number, Member>();
  /** First frames and catch-ups made this turn, by their bytes: one message for all who get the same. */
  private outbox = new Map<Uint8Array | string, Extract<FromStream, { t: 'send' }>>();
  private flushing = false;

  constructor(
    private readonly parts: FollowerParts,
    private readonly options: StreamOptions,
  ) {}

  receive(message: ToStream): void {
    if (message.t === 'join') void this.join(message);
    else if (message.t === 'leave') this.leave(message.id);
    else if (message.t === 'written') this.written(message.eventId);
    else for (const item of message.items) this.catchUp(item);
  }

  /** A subscriber joins: it gets its first frame (the view, or the changes after `since`), then every frame. */
  private async join(message: Extract<ToStream, { t: 'join' }>): Promise<void> {
    const { id, workspace, eventKey, variant, since } = message;
    let follower: Follower | undefined;
    try {
      const loaded = await this.parts.catalog.get(workspace, eventKey);
      follower = this.followerOf(loaded, workspace);
      this.members.set(id, { follower, variant });
      follower.subscribers++;
      follower.variants[variant]!++;
      clearTimeout(follower.idleTimer);
      await follower.ready;
      if (!this.members.has(id)) return;
      const first = await this.firstFrame(follower, variant, since);
      // It may have left while its changes were read.
      if (!this.members.has(id)) return;
      this.queue(id, follower, first, variant);
    } catch (error) {
      this.parts.logger?.warn({ err: (error as Error).message, eventKey }, 'status stream: a subscriber could not join');
      if (this.members.has(id)) this.leave(id);
      this.parts.post({ t: 'close', ids: [id], code: CLOSE_GOING_AWAY, reason: 'The event could not be read; connect again with since' });
    }
  }

  /** The first frame: the view, or the changes after `since` (none when there are none yet), or the view marked reset when `since` cannot be resumed. */
  private async firstFrame(follower: Follower, variant: number, since: number | undefined): Promise<Uint8Array | undefined> {
    if (since === undefined) return follower.snapshot(variant, false);
    if (since > follower.shown) await this.reach(follower, since);
    if (since > follower.shown || follower.shown - since > this.options.retainedChanges) return follower.snapshot(variant, true);
    if (since >= follower.recentFrom) return this.changesSince(follower, since, [], variant);
    // Further back than memory: the changes up to where the follower is now, then what it read meanwhile.
    const upTo = follower.shown;
    const older = await this.parts.range(follower.loaded.event, since, upTo);
    const olderChanges = older && (await this.withAreaCounts(follower.loaded, older.flatMap((followed) => changesOf(followed.entry))));
    if (olderChanges === null || follower.recentFrom > upTo) return follower.snapshot(variant, true);
    return this.changesSince(follower, since, olderChanges, variant, upTo);
  }

  /** The changes after `since` as one frame: `older` (read from storage, up to `olderTo`) then the recent ones; undefined if none. */
  private changesSince(follower: Follower, since: number, older: StreamChange[], variant: number, olderTo = since): Uint8Array | undefined {
    const changes = [...older];
    for (const recent of follower.recent) if (recent.seq > olderTo) changes.push(recent.change);
    if (changes.length === 0) return undefined;
    const audience = audienceOf(variant);
    if (isCompact(variant)) return compactChanges(since, follower.shown, changes, audience, follower.positions, follower.table, 'all');
    return encode(changesMessageOf(since, follower.shown, changes.map((change) => changeJson(change, audience))));
  }

  /** A subscriber whose socket drained after frames were skipped: the latest state of what changed since its last frame, or the view anew. */
  private catchUp(item: Extract<ToStream, { t: 'catchUp' }>['items'][number]): void {
    const member = this.members.get(item.id);
    if (!member) return;
    const { follower } = member;
    const bytes = item.gen !== follower.resets ? follower.snapshot(member.variant, true) : item.seq >= follower.shown ? undefined : follower.conflatedSince(item.seq, member.variant);
    this.queue(item.id, follower, bytes, member.variant);
  }

  /** Queues a frame for one subscriber; the turn's frames leave together, one message per distinct frame. */
  private queue(id: number, follower: Follower, bytes: Uint8Array | undefined, variant: number): void {
    const key = bytes ?? `none:${follower.eventId}:${follower.resets}:${follower.shown}`;
    let send = this.outbox.get(key);
    if (!send) this.outbox.set(key, (send = { t: 'send', ids: [], gen: follower.resets, to: follower.shown, bytes, binary: isCompact(variant) }));
    send.ids.push(id);
    if (this.flushing) return;
    this.flushing = true;
    // Before the next tick's frame can be made (a tick is a timer: it runs after this).
    queueMicrotask(() => this.flush());
  }

  /** The server's thread wrote one of the event's frames. */
  private written(eventId: number): void {
    const follower = this.followers.get(eventId);
    if (!follower) return;
    follower.unwritten = false;
    follower.onWritten?.();
  }

  /** A frame to every current subscriber of the follower's event, counted until the server's thread says it is written. */
  private postFrame(follower: Follower, to: number, bytes: (Uint8Array | undefined)[]): void {
    follower.unwritten = true;
    this.parts.post({ t: 'frame', eventId: follower.eventId, gen: follower.resets, to, bytes });
  }

  /**
   * Resolves once the follower's frames are written (or after WRITTEN_WAIT_MS): a server's
   * thread slower than the ticks (thousands of subscribers, the sale at full speed) gets
   * fewer, bigger frames rather than a queue of them, and each subscriber's delay stays
   * about one tick and one round of writes.
   */
  private async allWritten(follower: Follower): Promise<void> {
    if (!follower.unwritten) return;
    await wokenOrAfter(WRITTEN_WAIT_MS, (wake) => (follower.onWritten = wake));
    follower.onWritten = undefined;
    follower.unwritten = false;
  }

  private flush(): void {
    this.flushing = false;
    const outbox = this.outbox;
    this.outbox = new Map();
    for (const send of outbox.values()) this.parts.post(send);
  }

  private leave(id: number): void {
    const member = this.members.get(id);
    if (!member) return;
    this.members.delete(id);
    const { follower, variant } = member;
    follower.subscribers--;
    follower.variants[variant]!--;
    if (follower.subscribers === 0) follower.idleTimer = setTimeout(() => this.stopFollower(follower), IDLE_FOLLOWER_MS);
  }

  /** Stops every follower. */
  close(): void {
    for (const follower of [...this.followers.values()]) {
      follower.subscribers = 0;
      this.stopFollower(follower);
    }
  }

  /** Resolves when the follower has shown `seq`, or after SINCE_AHEAD_WAIT_MS. */
  private reach(follower: Follower, seq: number): Promise<void> {
    return wokenOrAfter(SINCE_AHEAD_WAIT_MS, (wake) => follower.waiters.push({ seq, wake }));
  }

  private followerOf(loaded: LoadedEvent, workspace: WorkspaceDoc): Follower {
    const eventId = loaded.event._id;
    let follower = this.followers.get(eventId);
    if (follower && !follower.stopped) return follower;
    follower = new Follower(eventId, loaded, workspace, this.parts.follow(loaded), (f) => this.start(f));
    this.followers.set(eventId, follower);
    return follower;
  }

  /** Reads the event's view and where its history stands, then follows it from there. */
  private async start(follower: Follower): Promise<void> {
    try {
      await this.readView(follower);
    } catch (error) {
      // Redis did not answer (a failover, a timeout): this follower never started, so the next
      // subscriber of the event gets a new one rather than this one's failure. Those waiting
      // for it are closed by join and come back with since.
      follower.stopped = true;
      if (this.followers.get(follower.eventId) === follower) this.followers.delete(follower.eventId);
      throw error;
    }
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
    follower.lastChanged.clear();
    follower.layoutVersion = layoutVersionOf(index);
    follower.seq = seq;
    follower.shown = seq;
    follower.resets++;
  }

  private async run(follower: Follower): Promise<void> {
    let readAt = 0;
    while (!follower.stopped) {
      try {
        // One read, and one frame, per tick: under load a frame carries many changes, and
        // handing it to the subscribers costs per frame, not per change.
        const wait = readAt + this.options.tickMs - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        await this.allWritten(follower);
        readAt = performance.now();
        if (await this.layoutChanged(follower)) {
          await this.resetAll(follower);
          continue;
        }
        const poll = await follower.reader.next(follower.seq);
        if (poll.makeUpChanged) {
          // The season's units changed: what the event shows of them is read anew.
          follower.loaded = (await this.parts.catalog.reload(follower.loaded.event.workspaceId, follower.loaded.event.key)) ?? follower.loaded;
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
        // The event is gone (deleted): its subscribers are told so, and the follower stops.
        if (error instanceof ApiError && error.status === 404) return this.closeEvent(follower, 'The event is gone');
        this.parts.logger?.warn({ err: (error as Error).message, eventId: follower.eventId }, 'status stream: reading the history failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /**
   * Whether the event's chart changed since its view was read (a publish): the compact format
   * names objects by their place in the chart, so subscribers then get the view anew, with
   * the new layoutVersion. The catalog drops an event whose chart is published; it is loaded
   * again here.
   */
  private async layoutChanged(follower: Follower): Promise<boolean> {
    const { catalog } = this.parts;
    const loaded = catalog.peek(follower.workspace, follower.loaded.event.key) ?? (await catalog.get(follower.workspace, follower.loaded.event.key));
    if (loaded.index === follower.loaded.index) return false;
    follower.loaded = loaded;
    return layoutVersionOf(loaded.index) !== follower.layoutVersion;
  }

  /** Applies a tick's entries to the view and sends them as one frame: GA areas with their counts as they stand now. */
  private async apply(follower: Follower, entries: FollowedEntry[]): Promise<void> {
    const perEntry = this.changesOfBatch(follower, entries);
    const changes = perEntry.flat();
    await this.withAreaCounts(follower.loaded, changes);
    if (follower.stopped) return;
    entries.forEach((followed, i) => {
      for (const change of perEntry[i]!) {
        applyChange(follower.view, change);
        follower.recent.push({ seq: followed.seq, change });
        follower.lastChanged.delete(change.objectLabel);
        follower.lastChanged.set(change.objectLabel, followed.seq);
      }
    });
    const kept = Math.min(RECENT_CHANGES, this.options.retainedChanges);
    if (follower.recent.length > kept) follower.recent.splice(0, follower.recent.length - kept);
    follower.seq = entries[entries.length - 1]!.seq;
    // A season's feed has entries of its other units, which show nothing here: no frame.
    if (changes.length > 0) {
      const from = follower.shown;
      follower.shown = follower.seq;
      this.broadcast(follower, from, changes);
    }
    this.wakeWaiters(follower);
  }

  /** The tick's frame, made once per variant that has subscribers. */
  private broadcast(follower: Follower, from: number, changes: StreamChange[]): void {
    const to = follower.shown;
    const bytes: (Uint8Array | undefined)[] = new Array(VARIANTS);
    const compact = follower.variants[2]! + follower.variants[3]! > 0;
    // New statuses get their codes before any frame is written: every compact variant carries the same additions.
    const added = compact ? (codeStatuses(changes, follower.table), follower.table.takeAdded()) : [];
    for (let variant = 0; variant < VARIANTS; variant++) {
      if (follower.variants[variant] === 0) continue;
      const audience = audienceOf(variant);
      bytes[variant] = isCompact(variant)
        ? compactChanges(from, to, changes, audience, follower.positions, follower.table, added)
        : encode(changesMessageOf(from, to, changes.map((change) => changeJson(change, audience))));
    }
    this.postFrame(follower, to, bytes);
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

  /** The history could not be followed without a gap, or the chart changed: every subscriber gets the view anew. */
  private async resetAll(follower: Follower): Promise<void> {
    await this.readView(follower);
    const bytes: (Uint8Array | undefined)[] = new Array(VARIANTS);
    for (let variant = 0; variant < VARIANTS; variant++) if (follower.variants[variant]! > 0) bytes[variant] = follower.snapshot(variant, true);
    this.postFrame(follower, follower.shown, bytes);
    this.wakeWaiters(follower);
  }

  private wakeWaiters(follower: Follower): void {
    if (follower.waiters.length === 0) return;
    const due = follower.waiters.filter((waiter) => waiter.seq <= follower.shown);
    follower.waiters = follower.waiters.filter((waiter) => waiter.seq > follower.shown);
    for (const waiter of due) waiter.wake();
  }

  /** Closes every subscriber of the follower's event (going away) and stops the follower. */
  private closeEvent(follower: Follower, reason: string): void {
    const ids = [...this.members].filter(([, member]) => member.follower === follower).map(([id]) => id);
    for (const id of ids) this.leave(id);
    follower.subscribers = 0;
    this.stopFollower(follower);
    if (ids.length > 0) this.parts.post({ t: 'close', ids, code: CLOSE_GOING_AWAY, reason });
  }

  private stopFollower(follower: Follower): void {
    if (follower.subscribers > 0) return;
    follower.stopped = true;
    clearTimeout(follower.idleTimer);
    if (this.followers.get(follower.eventId) === follower) this.followers.delete(follower.eventId);
    for (const waiter of follower.waiters) waiter.wake();
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
