import { closeChoice, seatingLayout, setOpen, type KeptBlocks, type OpenObjects, type SeatingLayout } from '../domain/bestAvailable.js';
import type { EventSelection } from '../domain/bestAvailableRequest.js';
import type { EventDoc } from '../domain/event.js';
import { areaState, recordIsFree, tokenEntryExpiry } from '../domain/objectStates.js';
import type { AvailabilityRecords, EventObjectStore } from '../inventory/eventObjectStore.js';
import { Lru } from '../util/lru.js';
import type { LoadedEvent } from './eventCatalog.js';

// What best available chooses from (docs/best-available.md, "Choosing from a snapshot"): per
// event, which objects are open, read from Redis once and then kept in step by the choices
// this process makes. A view may be behind what other processes did: the status script
// re-checks every chosen object, a refused one is closed here and the choice made again.
// Objects freed elsewhere show up when the view is read again: in the background once it is
// 5 seconds old, and at once before a request is answered "not found".

/**
 * A view this old is read again in the background on its next use. Reading an event with
 * 40,000 records takes the server some 30 ms, so not every second: what this process does is
 * in the view at once, and only what others freed waits for the next reading.
 */
const REFRESH_AFTER_MS = 5000;
/** Seats this process took are laid over views read up to this long after (a reading answers well within it). */
const TAKEN_KEPT_MS = 2000;
/** Requests finding nothing share a reading started this recently instead of starting one. */
const RECHECK_WITHIN_MS = 100;
/** Events whose views are kept (each is about a byte per object of its chart: 50 KB for 50,000 seats). */
const MAX_VIEWS = 100;

export class AvailabilityView implements OpenObjects {
  /** Position -> 1 when free and for sale. */
  readonly open: Uint8Array;
  /** Position of a GA area -> its free places (GA areas are few: a map, not an array per object). */
  readonly free = new Map<number, number>();
  readonly openInRow: Int32Array;
  readonly withoutClosed = new Map<Int32Array, KeptBlocks>();
  readonly withoutLoneSeats = new Map<Int32Array, KeptBlocks>();

  constructor(
    readonly layout: SeatingLayout,
    /** The event record it was read for: a changed record (channels, for sale) needs a new view. */
    readonly event: EventDoc,
    /** When the reading was sent (ms). */
    readonly readAt: number,
  ) {
    this.open = new Uint8Array(layout.index.objects.length);
    this.openInRow = new Int32Array(layout.rows.length);
  }

  set(position: number, value: 0 | 1): void {
    setOpen(this.layout, this, position, value);
  }

  areaFree(position: number): number {
    return this.free.get(position) ?? 0;
  }
}

/** Objects a request chose and sent to the script: closed in every view until it is answered. */
export interface Claim {
  positions: number[];
  /** The step of the algorithm that chose them. */
  step: number;
  /** Places taken from a GA area (positions[0]); 0 for seats, tables and booths. */
  places: number;
}

/** A reading of an event sent to Redis and not answered yet. */
interface Reading {
  view: Promise<AvailabilityView>;
  /** The event record it is for. */
  event: EventDoc;
  /** When it was sent (ms): the view's `readAt`. */
  since: number;
}

interface Entry {
  view: AvailabilityView | null;
  reading: Reading | null;
  /** A refusal showed the view is behind: read it again on the next request. */
  outdated: boolean;
  /** Claims not answered yet. */
  claims: Set<Claim>;
  /** Seats, tables and booths taken by applied claims, with when they were applied. */
  taken: { at: number; positions: number[] }[];
}

/** Builds a view from what Redis holds, before this process's claims are laid over it. */
function viewOf(layout: SeatingLayout, event: EventDoc, selection: EventSelection, read: AvailabilityRecords, readAt: number): AvailabilityView {
  const index = layout.index;
  const view = new AvailabilityView(layout, event, readAt);
  const tokenExpiry = (token: string) => tokenEntryExpiry(read.tokens[token]);
  // Objects without a record are free: the view starts as the selection's copy of a sale with
  // no records (seats, tables and booths for sale open, counted per row), GA areas get their
  // free places from their records, then the records (on a busy event most objects have
  // none) close what they hold.
  view.open.set(selection.openWhenFree);
  view.openInRow.set(selection.openInRowWhenFree);
  for (const p of selection.areas) {
    const object = index.objects[p]!;
    const area = areaState(read.records[object.label]);
    const free = Math.max(0, object.capacity - area.nonFree - area.held - selection.notForSale[p]!);
    view.free.set(p, free);
    view.open[p] = free > 0 ? 1 : 0;
  }
  const close = (label: string) => {
    const object = index.byLabel.get(label);
    if (object && object.objectType !== 'generalAdmission') view.set(object.position, 0);
  };
  for (const label in read.records) if (!recordIsFree(read.records[label]!, tokenExpiry, readAt)) close(label);
  for (const label of read.usedInSeason ?? []) close(label);
  // The season's holds are read without its tokens: a held season object counts as taken.
  for (const label in read.seasonRecords ?? {}) {
    if (!read.overridden?.has(label) && !recordIsFree(read.seasonRecords![label]!, () => Infinity, readAt)) close(label);
  }
  return view;
}

export class AvailabilityViews {
  private readonly entries = new Lru<number, Entry>(MAX_VIEWS);

  constructor(private readonly store: EventObjectStore) {}

  /** The event's view: read now if there is none for this record, refreshed behind the scenes when old. */
  async current(loaded: LoadedEvent, selection: EventSelection): Promise<AvailabilityView> {
    const entry = this.entry(loaded.event._id);
    const view = entry.view;
    if (view && view.event === loaded.event) {
      const due = entry.outdated || Date.now() - view.readAt > REFRESH_AFTER_MS;
      if (due && !entry.reading) this.read(entry, loaded, selection).catch(() => undefined);
      return view;
    }
    return this.read(entry, loaded, selection);
  }

  /**
   * A view read after `since`; one read or being read up to `slack` ms before it will do
   * (requests finding nothing share readings, RECHECK_WITHIN_MS by default).
   */
  async fresh(loaded: LoadedEvent, selection: EventSelection, since: number, slack = RECHECK_WITHIN_MS): Promise<AvailabilityView> {
    const entry = this.entry(loaded.event._id);
    if (entry.view && entry.view.event === loaded.event && entry.view.readAt >= since - slack) return entry.view;
    if (entry.reading && entry.reading.event === loaded.event && entry.reading.since >= since - slack) return entry.reading.view;
    return this.read(entry, loaded, selection);
  }

  /** Closes what a request chose in the view (and in any view read while it is out). */
  claim(eventId: number, claim: Claim): void {
    const entry = this.entry(eventId);
    entry.claims.add(claim);
    if (entry.view) closeClaim(entry.view, claim);
  }

  /** The script applied the claim: it stays closed, in views read later too. */
  applied(eventId: number, claim: Claim): void {
    const entry = this.entry(eventId);
    entry.claims.delete(claim);
    if (claim.places === 0) entry.taken.push({ at: Date.now(), positions: claim.positions });
  }

  /**
   * The script refused the claim: what it refused stays closed in this view (it is taken, or
   * this request may not have it), the rest opens again. The view is behind what Redis holds,
   * so the next request reads it again behind the scenes.
   */
  refused(eventId: number, claim: Claim, refused: Set<number>): void {
    const entry = this.entry(eventId);
    entry.claims.delete(claim);
    // Refused for its objects (not for, say, a missing hold token): the view is behind.
    if (refused.size > 0) entry.outdated = true;
    const view = entry.view;
    if (!view) return;
    if (claim.places > 0) {
      const area = claim.positions[0]!;
      if (refused.has(area)) view.set(area, 0);
      else view.free.set(area, view.areaFree(area) + claim.places);
      return;
    }
    for (const p of claim.positions) view.set(p, refused.has(p) ? 0 : 1);
  }

  private entry(eventId: number): Entry {
    let entry = this.entries.get(eventId);
    if (!entry) this.entries.set(eventId, (entry = { view: null, reading: null, outdated: false, claims: new Set(), taken: [] }));
    return entry;
  }

  private read(entry: Entry, loaded: LoadedEvent, selection: EventSelection): Promise<AvailabilityView> {
    if (entry.reading && entry.reading.event === loaded.event) return entry.reading.view;
    const since = Date.now();
    entry.outdated = false;
    const pending = this.store.readAvailability(loaded.event, loaded.season?.top ?? null).then((read) => {
      const view = viewOf(seatingLayout(loaded.index), loaded.event, selection, read, since);
      // What this process took after the reading was sent may be missing from it.
      entry.taken = entry.taken.filter((t) => t.at >= since - TAKEN_KEPT_MS);
      for (const { positions } of entry.taken) for (const p of positions) view.set(p, 0);
      for (const claim of entry.claims) closeClaim(view, claim);
      // A reading for an older event record, overtaken by one for the new record, is not kept.
      if (entry.reading === reading) entry.view = view;
      return view;
    });
    const reading: Reading = { view: pending, event: loaded.event, since };
    entry.reading = reading;
    const done = () => {
      if (entry.reading === reading) entry.reading = null;
    };
    reading.view.then(done, done);
    return reading.view;
  }
}

function closeClaim(view: AvailabilityView, claim: Claim): void {
  if (claim.places > 0) {
    const area = claim.positions[0]!;
    view.free.set(area, Math.max(0, view.areaFree(area) - claim.places));
  } else {
    closeChoice(view.layout, view, claim);
  }
}
