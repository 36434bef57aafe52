import { CHANGES, CONFLATED, FrameWriter, SNAPSHOT, SNAPSHOT_RESET, type StatusTable } from './compactFrames.js';
import { HELD } from './objectStates.js';
import { isForSaleChange, type HistoryEntry } from './statusChangeHistory.js';

// What a status-stream subscriber sees of an event (docs/status-stream.md): every object
// that is not free or has places not for sale, by label, kept current by applying the
// event's history entries in the order they were written, and the messages that say so, in
// JSON and in the compact format (src/domain/compactFrames.ts). Pure: the followers
// (src/services/streamFollowers.ts) read and publish; this decides what a message says.

/** One object that is not free, or not wholly for sale, as the stream shows it. */
export interface StreamObject {
  status: string;
  /** Only to a client that authenticated with the secret key. */
  holdToken?: string;
  orderId?: string;
  /** GA areas: places booked (or in a custom status) and held. */
  booked?: number;
  held?: number;
  /** Places not for sale (1 for a seat, table or booth); absent when every place is for sale. */
  notForSale?: number;
}

/** A status change as the `changes` message lists it: the object's status fields after it. */
export interface StreamStatusChange extends Omit<StreamObject, 'notForSale'> {
  objectLabel: string;
  /** Places the change applied to (GA areas), 1 for a seat, table or booth. */
  quantity: number;
}

/** A for-sale change: the object's places not for sale now (0: all for sale again); its status is unchanged. */
export interface StreamForSaleChange {
  objectLabel: string;
  notForSale: number;
}

export type StreamChange = StreamStatusChange | StreamForSaleChange;

export const isStatusChange = (change: StreamChange): change is StreamStatusChange => 'status' in change;

/** Which fields a subscriber may see: hold tokens and order ids only with the secret key. */
export type Audience = 'public' | 'secret';

/**
 * The changes a history entry records, in order, before GA counts are known: one for a
 * status change, one per object for a for-sale entry.
 */
export function changesOf(entry: HistoryEntry): StreamChange[] {
  if (isForSaleChange(entry)) return entry.notForSale.map(([objectLabel, notForSale]) => ({ objectLabel, notForSale }));
  const change: StreamStatusChange = { objectLabel: entry.label, status: entry.status, quantity: entry.quantity };
  if (entry.holdToken && entry.status === HELD) change.holdToken = entry.holdToken;
  if (entry.orderId) change.orderId = entry.orderId;
  return [change];
}

/**
 * Applies a change to a view as a client does (docs/status-stream.md, "Messages"): a status
 * change sets the object's status fields and keeps its places not for sale; a for-sale
 * change sets only those. An object that ends free (no GA places taken) and wholly for
 * sale leaves the view.
 */
export function applyChange(view: ViewLike, change: StreamChange): void {
  const before = view.get(change.objectLabel);
  let object: StreamObject;
  if (isStatusChange(change)) {
    const { objectLabel: _label, quantity: _quantity, ...fields } = change;
    object = fields;
    if (before?.notForSale) object.notForSale = before.notForSale;
  } else {
    object = { ...(before ?? { status: 'free' }) };
    if (change.notForSale > 0) object.notForSale = change.notForSale;
    else delete object.notForSale;
  }
  if (isShown(object)) view.set(change.objectLabel, object);
  else view.delete(change.objectLabel);
}

/** What applyChange needs of a view: a Map, or a batch's overlay on one (SeasonLens). */
export interface ViewLike {
  get(label: string): StreamObject | undefined;
  set(label: string, object: StreamObject): unknown;
  delete(label: string): unknown;
}

/** One entry as a follower reads it: its seq, the unit of the season it was made on (the event itself outside seasons), and the kind of a season override change. */
export interface FollowedEntry {
  seq: number;
  unit: number;
  /** For an event's override-season-status (`o`) and use-season-status (`s`) in a season's feed. */
  kind: 'o' | 's' | null;
  entry: HistoryEntry;
}

/**
 * What an event of a season shows of its season's feed (docs/status-stream.md, "Seasons"):
 * its own entries, and the status its season or one of its partial seasons gives a seat,
 * table or booth that the event neither has a record of (not free) nor overrides, as object
 * info shows it (docs/seasons.md, "Records"). The event's overrides and the objects shown
 * from a season are kept here, from the snapshot on; a season's GA places and for-sale
 * changes, and the other units' entries, show nothing.
 */
export class SeasonLens {
  constructor(
    private readonly eventId: number,
    /** The top-level season and the event's partial seasons. */
    private readonly shownUnits: ReadonlySet<number>,
    private readonly isArea: (label: string) => boolean,
    readonly overrides: Set<string>,
    /** Labels whose status in the view is a season's. */
    readonly fromSeason: Set<string>,
    readonly forSale: SeasonForSale,
  ) {}

  /**
   * The places of an object not for sale in the event: its own config's, or, for an object
   * it does not list, its top-level season's while the season propagates its config
   * (docs/seasons.md, "Rules").
   */
  notForSale(label: string): number {
    const { own, season, propagated } = this.forSale;
    return own.get(label) ?? (propagated ? (season.get(label) ?? 0) : 0);
  }

  /**
   * What each unit of the season (top-level and partial) holds of each seat, table or booth
   * that is not free there, whether the event shows it or not: when the event gives an object
   * back (its own hold expiring after the season took the seat, an override dropped), the
   * object shows the season's status again.
   */
  private readonly seasonTaken = new Map<string, Map<number, StreamStatusChange>>();

  /** Notes what a season unit's object is now (`free` drops it). */
  noteSeason(unit: number, change: StreamStatusChange): void {
    const label = change.objectLabel;
    let units = this.seasonTaken.get(label);
    if (change.status === 'free') {
      units?.delete(unit);
      if (units?.size === 0) this.seasonTaken.delete(label);
      return;
    }
    if (!units) this.seasonTaken.set(label, (units = new Map()));
    units.set(unit, change);
  }

  /**
   * The change that shows what the season holds of an object, or undefined when nothing.
   * One unit holds it, but for a hold that expired without being given back yet: the other
   * unit's status then wins.
   */
  seasonChange(label: string): StreamStatusChange | undefined {
    const units = this.seasonTaken.get(label);
    if (!units) return undefined;
    let held: StreamStatusChange | undefined;
    for (const change of units.values()) {
      if (change.status !== HELD) return { ...change };
      held ??= change;
    }
    return held && { ...held };
  }

  /**
   * Completes the event's view at its snapshot (`view` holds the event's own objects): notes
   * what each unit of the season holds, sets the places off sale as the event sees them, and
   * shows the season's status where the event neither holds nor overrides the object.
   */
  startView(view: ViewLike, units: [unit: number, changes: StreamStatusChange[]][]): void {
    const { own, season } = this.forSale;
    for (const label of new Set([...own.keys(), ...season.keys()])) applyChange(view, { objectLabel: label, notForSale: this.notForSale(label) });
    for (const [unit, changes] of units) for (const change of changes) this.noteSeason(unit, change);
    for (const label of this.seasonTaken.keys()) {
      if (!this.showsSeason(label, view)) continue;
      applyChange(view, this.seasonChange(label)!);
      this.fromSeason.add(label);
    }
  }

  /** Whether the event shows the season's status of an object: it neither overrides it nor holds it itself. */
  private showsSeason(label: string, view: ViewLike): boolean {
    const shown = view.get(label);
    const ownTaken = shown !== undefined && shown.status !== 'free' && !this.fromSeason.has(label);
    return !ownTaken && !this.overrides.has(label);
  }

  /** The changes an entry makes to the event's view `view` (as it stands before the entry). */
  changesOf(followed: FollowedEntry, view: ViewLike): StreamChange[] {
    const { unit, entry, kind } = followed;
    if (isForSaleChange(entry)) return this.forSaleChanges(unit, entry.notForSale);
    const label = entry.label;
    if (unit === this.eventId) {
      const [change] = changesOf(entry) as [StreamStatusChange];
      this.fromSeason.delete(label);
      if (kind === 'o') this.overrides.add(label);
      if (kind === 's') this.overrides.delete(label);
      // Given back (or the override dropped): the season's status shows again, if it has one.
      const season = change.status === 'free' && !this.overrides.has(label) ? this.seasonChange(label) : undefined;
      if (season || (kind === 's' && change.status !== 'free')) this.fromSeason.add(label);
      return [season ?? change];
    }
    if (!this.shownUnits.has(unit) || this.isArea(label)) return [];
    const [change] = changesOf(entry) as [StreamStatusChange];
    this.noteSeason(unit, change);
    if (!this.showsSeason(label, view)) return [];
    const season = this.seasonChange(label);
    if (season) this.fromSeason.add(label);
    else this.fromSeason.delete(label);
    return [season ?? change];
  }

  /** The event's own for-sale changes, and its top-level season's where they show (notForSale). */
  private forSaleChanges(unit: number, places: [string, number][]): StreamChange[] {
    const { own, season, topId, propagated } = this.forSale;
    const listed = unit === this.eventId ? own : unit === topId && propagated ? season : null;
    if (!listed) return [];
    const changes: StreamChange[] = [];
    for (const [label, count] of places) {
      if (count > 0) listed.set(label, count);
      else listed.delete(label);
      if (listed === own || !own.has(label)) changes.push({ objectLabel: label, notForSale: this.notForSale(label) });
    }
    return changes;
  }
}

/** What an event of a season and its top-level season keep off sale (SeasonLens.notForSale). */
export interface SeasonForSale {
  topId: number;
  /** The season's forSalePropagated. */
  propagated: boolean;
  /** The event's own places not for sale, and its top-level season's, by label. */
  own: Map<string, number>;
  season: Map<string, number>;
}

/** A batch's changes laid over a view without touching it: decisions within a batch see the entries before them. */
export class ViewOverlay implements ViewLike {
  private readonly changed = new Map<string, StreamObject | null>();
  constructor(private readonly base: ReadonlyMap<string, StreamObject>) {}
  get(label: string): StreamObject | undefined {
    const changed = this.changed.get(label);
    return changed === undefined ? this.base.get(label) : (changed ?? undefined);
  }
  set(label: string, object: StreamObject): void {
    this.changed.set(label, object);
  }
  delete(label: string): void {
    this.changed.set(label, null);
  }
}

/** Whether a view lists the object: not free, GA places taken, or places not for sale. */
function isShown(object: StreamObject): boolean {
  return object.status !== 'free' || (object.booked ?? 0) > 0 || (object.held ?? 0) > 0 || (object.notForSale ?? 0) > 0;
}

/** The object without what a public-key client may not see. */
function forAudience<T extends object>(object: T & { holdToken?: string; orderId?: string }, audience: Audience): T {
  if (audience === 'secret' || (object.holdToken === undefined && object.orderId === undefined)) return object;
  const { holdToken: _token, orderId: _order, ...rest } = object;
  return rest as T;
}

export function snapshotMessage(seq: number, objects: Map<string, StreamObject>, audience: Audience, reset: boolean): string {
  const shown: Record<string, StreamObject> = {};
  for (const [label, object] of objects) shown[label] = forAudience(object, audience);
  return JSON.stringify(reset ? { type: 'snapshot', seq, reset: true, objects: shown } : { type: 'snapshot', seq, objects: shown });
}

/** The changes after `from` up to `seq`, in the order applied. */
export function changesMessage(from: number, seq: number, changes: StreamChange[], audience: Audience): string {
  return changesMessageOf(from, seq, changes.map((change) => changeJson(change, audience)));
}

/** One change as `audience` sees it, as JSON: the part of a changes message a catch-up puts together. */
export const changeJson = (change: StreamChange, audience: Audience): string => JSON.stringify(forAudience(change, audience));

/** A changes message from its changes' JSON (changeJson). */
export const changesMessageOf = (from: number, seq: number, changes: string[]): string => `{"type":"changes","from":${from},"seq":${seq},"changes":[${changes.join(',')}]}`;

/**
 * What changed after `from` up to `seq`, conflated (docs/status-stream.md, "Slow readers"):
 * each object that changed, once, with its whole state now (`free` and nothing else when it
 * left the view). A client replaces each object's state with the one given.
 */
export function conflatedMessage(from: number, seq: number, states: [string, StreamObject | undefined][], audience: Audience): string {
  const changes = states.map(([objectLabel, object]) => JSON.stringify({ objectLabel, ...(object ? forAudience(object, audience) : FREE) }));
  return `{"type":"changes","conflated":true,"from":${from},"seq":${seq},"changes":[${changes.join(',')}]}`;
}

const FREE: StreamObject = Object.freeze({ status: 'free' });

/** Where each object of the event's layout is (GET /events/{key}/layout: its position in the chart index), by label. */
export type Positions = (label: string) => number | undefined;

/** A snapshot in the compact format: every object of the view, whole, and the whole status table. */
export function compactSnapshot(seq: number, view: Map<string, StreamObject>, audience: Audience, reset: boolean, positions: Positions, table: StatusTable, layoutVersion: string): Uint8Array {
  const frame = new FrameWriter(reset ? SNAPSHOT_RESET : SNAPSHOT, 0, seq, table, 'all', layoutVersion);
  for (const [label, object] of view) writeWhole(frame, positions(label), object, audience, table);
  return frame.done();
}

/**
 * The changes after `from` up to `seq` in the compact format, in the order applied. `codes`:
 * the status codes to carry (a frame that follows others: those added since; one that starts
 * a subscriber off: 'all').
 */
export function compactChanges(from: number, seq: number, changes: StreamChange[], audience: Audience, positions: Positions, table: StatusTable, codes: 'all' | number[]): Uint8Array {
  const frame = new FrameWriter(CHANGES, from, seq, table, codes);
  for (const change of changes) {
    const position = positions(change.objectLabel);
    if (position === undefined) continue;
    if (!isStatusChange(change)) {
      frame.entry(position, undefined, { notForSale: change.notForSale });
      continue;
    }
    const shown = forAudience(change, audience);
    frame.entry(position, table.codeOf(change.status), {
      holdToken: shown.holdToken,
      orderId: shown.orderId,
      booked: shown.booked,
      held: shown.held,
      quantity: change.quantity,
    });
  }
  return frame.done();
}

/** conflatedMessage in the compact format, with the whole status table. */
export function compactConflated(from: number, seq: number, states: [string, StreamObject | undefined][], audience: Audience, positions: Positions, table: StatusTable): Uint8Array {
  for (const [, object] of states) if (object) table.codeOf(object.status);
  const frame = new FrameWriter(CONFLATED, from, seq, table, 'all');
  for (const [label, object] of states) writeWhole(frame, positions(label), object ?? FREE, audience, table);
  return frame.done();
}

/** The status codes a batch of changes uses, given codes before a frame is written (new ones join the table's additions). */
export function codeStatuses(changes: StreamChange[], table: StatusTable): void {
  for (const change of changes) if (isStatusChange(change)) table.codeOf(change.status);
}

function writeWhole(frame: FrameWriter, position: number | undefined, object: StreamObject, audience: Audience, table: StatusTable): void {
  if (position === undefined) return;
  const shown = forAudience(object, audience);
  frame.entry(position, table.codeOf(object.status), { holdToken: shown.holdToken, orderId: shown.orderId, booked: shown.booked, held: shown.held, notForSale: shown.notForSale });
}

/**
 * `since` as a client sends it: a whole number of at most 15 digits (a change number),
 * or undefined when absent; null when malformed (400).
 */
export function parseSince(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}
