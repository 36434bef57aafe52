import type { BestAvailableQuery, SeatingLayout } from './bestAvailable.js';
import { NO_CHANNEL } from './channels.js';
import type { Point } from './drawing.js';
import type { Channel, EventDoc } from './event.js';
import { badRequest } from './errors.js';
import { bookedAsAWhole, categoryOf, eventCategories, namesCategory, notForSalePlaces, overridesCategories } from './eventObjectRules.js';
import { categoryId, type IndexedCategory, type ObjectIndex } from './objectIndex.js';
import { extraDataText, MAX_OBJECTS_PER_REQUEST } from './statusChangeRequest.js';

// A best-available request (docs/best-available.md) checked against an event and its chart,
// and turned into the query the algorithm runs: every filter becomes one predicate over
// array positions, built from arrays computed once per event record. Pure.

export interface BestAvailableInput {
  number: number;
  categories?: (string | number)[];
  zone?: string;
  sections?: string[];
  extraData?: unknown[];
  ticketTypes?: string[];
  tryToPreventOrphanSeats?: boolean;
  accessibleSeats?: number;
}

/**
 * The most a request may ask for. A number the event cannot give is "not found" like any
 * other (seats.io answers so for 3,000 on a small chart); more than one status change may
 * name (MAX_OBJECTS_PER_REQUEST) is found in one GA area only; past this cap the number is
 * refused before any search.
 */
export const MAX_BEST_AVAILABLE = 10_000;

/** A checked request: the query's parts and what goes with each chosen object. */
export interface BestAvailablePlan {
  number: number;
  accessibleSeats: number;
  tryToPreventOrphanSeats: boolean;
  /** Key of the focal ranking: a zone key, or '' for the chart's focal point. */
  focalKey: string;
  focalPoint: Point;
  /** Element i goes to the i-th chosen object (checked like any extra data). */
  extraData?: unknown[];
  ticketTypes?: string[];
  categories: Set<number> | null;
  zone: string | null;
  sections: Set<number> | null;
}

const invalid = (message: string) => badRequest('INVALID_BEST_AVAILABLE', message);

/** Is the value a whole number within [min, max]? */
const wholeIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

/** What an event makes of its chart for best available: computed once per event record. */
export interface EventSelection {
  categories: IndexedCategory[];
  /** Position -> index in `categories`, -1 without one. */
  category: Int32Array;
  channels: string[];
  /** Position -> index in `channels`, -1 outside every channel. */
  channel: Int32Array;
  /** Position -> 1 when best available may give it: a row seat, a booth, a GA area or a table booked as a whole. */
  choosable: Uint8Array;
  /** Position -> places the for-sale config takes off sale (1 for a seat, table or booth not for sale). */
  notForSale: Int32Array;
  /** Position -> 1 for a seat, table or booth for sale: `open` of a view before any record closes it. */
  openWhenFree: Uint8Array;
  /** Row id -> its seats in `openWhenFree`: a view's `openInRow` before any record closes one. */
  openInRowWhenFree: Int32Array;
  /** Positions of the GA areas (a view counts their free places from their records). */
  areas: number[];
}

/** Per event record, with the season record it was made with (a changed season makes a new one). */
const selections = new WeakMap<EventDoc, { top: EventDoc | null; selection: EventSelection }>();
/**
 * Per chart layout, the selection of every event without rules of its own: built by the
 * first such event, shared by the rest, so an event's first best-available request does not
 * walk its 50,000 objects (tens of milliseconds for code that runs once per event, never warm).
 * An event whose only rule is its channels shares it too, with a channel array of its own
 * filled from its channels' lists.
 */
const plainSelections = new WeakMap<SeatingLayout, EventSelection>();

/**
 * The event's selection. For a unit of a season, `top` is its top-level season: its
 * channels apply to the unit, and its for-sale config too when it propagates it.
 */
export function eventSelection(event: EventDoc, layout: SeatingLayout, top: EventDoc | null = null): EventSelection {
  const cached = selections.get(event);
  if (cached && cached.top === top) return cached.selection;
  const channelSource = top && top !== event && top._id !== event._id ? top : event;
  const forSaleSources = channelSource !== event && top?.season?.role === 'top' && top.season.forSalePropagated ? [event, top] : [event];
  const forSale = forSaleSources.filter((source) => source.forSaleConfig);
  const { channels } = channelSource;
  const chartDefaults = event.categories.length === 0 && !overridesCategories(event) && forSale.length === 0 && event.tableBookingConfig.mode === 'INHERIT';
  let selection: EventSelection;
  if (chartDefaults) {
    let plain = plainSelections.get(layout);
    if (!plain) plainSelections.set(layout, (plain = buildSelection(event, layout, [], [])));
    selection = channels.length === 0 ? plain : { ...plain, channels: channels.map((c) => c.key), channel: channelArray(layout, channels) };
  } else {
    selection = buildSelection(event, layout, channels, forSale);
  }
  selections.set(event, { top, selection });
  return selection;
}

/** Position -> index in `channels` of the channel listing it (the last, if several do), -1 outside every channel: from the lists, not a walk over every object. */
function channelArray(layout: SeatingLayout, channels: Channel[]): Int32Array {
  const channel = new Int32Array(layout.index.objects.length).fill(-1);
  channels.forEach((listing, i) => {
    for (const label of listing.objects) {
      const object = layout.index.byLabel.get(label);
      if (object) channel[object.position] = i;
    }
  });
  return channel;
}

/** Walks every object once: its category, channel, whether it may be chosen and what is off sale. */
function buildSelection(event: EventDoc, layout: SeatingLayout, channels: Channel[], forSale: EventDoc[]): EventSelection {
  const { index } = layout;
  const categories = eventCategories(event, index);
  const categoryAt = new Map(categories.map((c, i) => [categoryId(c.key), i]));
  // Objects share their category records: each is looked up by key once, then by identity.
  const categoryIndex = new Map<IndexedCategory, number>();
  const indexOfCategory = (own: IndexedCategory): number => {
    let at = categoryIndex.get(own);
    if (at === undefined) categoryIndex.set(own, (at = categoryAt.get(categoryId(own.key)) ?? -1));
    return at;
  };
  // An object's category override is looked up by its label only when the event has
  // overrides: for 50,000 seats the lookups are most of this function's time.
  const overrides = overridesCategories(event);
  const count = index.objects.length;
  const category = new Int32Array(count);
  const channel = channelArray(layout, channels);
  const choosable = new Uint8Array(count);
  const notForSale = new Int32Array(count);
  const openWhenFree = new Uint8Array(count);
  const openInRowWhenFree = new Int32Array(layout.rows.length);
  const areas: number[] = [];
  for (const object of index.objects) {
    const p = object.position;
    for (const source of forSale) notForSale[p] = Math.max(notForSale[p]!, notForSalePlaces(source, index, object));
    const own = overrides ? categoryOf(event, index, object) : object.category;
    category[p] = own ? indexOfCategory(own) : -1;
    // Seats only in rows (the layout's), tables only when booked as a whole.
    const row = layout.rowOf[p]!;
    const ok = object.objectType === 'seat' ? row >= 0 : object.objectType !== 'table' || bookedAsAWhole(event, object);
    choosable[p] = ok ? 1 : 0;
    if (object.objectType === 'generalAdmission') areas.push(p);
    else if (notForSale[p] === 0) {
      openWhenFree[p] = 1;
      if (row >= 0) openInRowWhenFree[row]!++;
    }
  }
  return { categories, category, channels: channels.map((c) => c.key), channel, choosable, notForSale, openWhenFree, openInRowWhenFree, areas };
}

/** Indexes of the categories named by key or label (labels case-insensitively); 400 for one the event lacks. */
function categoriesNamed(names: (string | number)[], categories: IndexedCategory[]): Set<number> {
  const found = new Set<number>();
  for (const name of names) {
    const at = categories.findIndex((c) => namesCategory(name, c));
    if (at < 0) throw badRequest('CATEGORY_NOT_FOUND', `Category not found: ${name}`);
    found.add(at);
  }
  return found;
}

/** Checks a request's best-available part; 400 with the reason for anything the algorithm cannot run on. */
export function planBestAvailable(
  input: BestAvailableInput,
  topLevelCategories: (string | number)[] | undefined,
  index: ObjectIndex,
  layout: SeatingLayout,
  selection: EventSelection,
): BestAvailablePlan {
  const { number } = input;
  if (!wholeIn(number, 1, Number.MAX_SAFE_INTEGER)) throw invalid('bestAvailable.number must be a whole number of at least 1');
  if (number > MAX_BEST_AVAILABLE) throw invalid(`bestAvailable.number must be at most ${MAX_BEST_AVAILABLE}: best available picks at most ${MAX_BEST_AVAILABLE} objects or places per request, got ${number}`);
  const accessibleSeats = input.accessibleSeats ?? 0;
  if (!wholeIn(accessibleSeats, 0, number)) throw invalid(`bestAvailable.accessibleSeats must be a whole number from 0 to number (${number})`);
  if (input.extraData !== undefined && input.extraData.length !== number) {
    throw invalid(`bestAvailable.extraData must have one element per object: ${number}, got ${input.extraData.length}`);
  }
  if (input.ticketTypes !== undefined && input.ticketTypes.length !== number) {
    throw invalid(`bestAvailable.ticketTypes must have one element per object: ${number}, got ${input.ticketTypes.length}`);
  }
  input.extraData?.forEach((data, i) => extraDataText(`bestAvailable.extraData[${i}]`, data));

  const names = [...(input.categories ?? []), ...(topLevelCategories ?? [])];
  const categories = names.length > 0 ? categoriesNamed(names, selection.categories) : null;

  let zone: string | null = null;
  if (input.zone !== undefined) {
    zone = index.zones.find((z) => z.key === input.zone)?.key ?? null;
    if (zone === null) throw badRequest('ZONE_NOT_FOUND', `Zone not found: ${input.zone}`);
  }
  let sections: Set<number> | null = null;
  if (input.sections !== undefined && input.sections.length > 0) {
    if (layout.sections.length === 0) throw badRequest('SECTION_NOT_FOUND', 'bestAvailable.sections: this chart has no sections');
    sections = new Set(
      input.sections.map((label) => {
        const at = layout.sections.findIndex((s) => s.label === label);
        if (at < 0) throw badRequest('SECTION_NOT_FOUND', `Section not found: ${label}`);
        return at;
      }),
    );
  }

  const zoneFocal = zone === null ? undefined : index.zoneFocal.get(zone);
  const focalPoint = zoneFocal ?? index.focalPoint;
  if (!focalPoint) throw badRequest('NO_FOCAL_POINT', 'Best available needs a focal point, and this chart has none');
  return {
    number,
    accessibleSeats,
    tryToPreventOrphanSeats: input.tryToPreventOrphanSeats !== false,
    focalKey: zoneFocal ? zone! : '',
    focalPoint,
    extraData: input.extraData,
    ticketTypes: input.ticketTypes,
    categories,
    zone,
    sections,
  };
}

export interface ChannelChoice {
  channelKeys?: string[];
  ignoreChannels?: boolean;
}

/**
 * The query of a plan: a position is eligible when best available may give it and it
 * passes every filter. Channels as in a booking: without channelKeys only objects outside
 * every channel, with them those channels (NO_CHANNEL: objects outside every channel too).
 */
export function bestAvailableQuery(plan: BestAvailablePlan, layout: SeatingLayout, selection: EventSelection, channels: ChannelChoice): BestAvailableQuery {
  const { choosable, category, channel } = selection;
  const { categories, sections, zone } = plan;
  const zoneOfSection = zone === null ? null : Uint8Array.from(layout.sections, (s) => (s.zone === zone ? 1 : 0));
  let channelOk: Uint8Array | null = null;
  if (!channels.ignoreChannels) {
    const keys = new Set(channels.channelKeys ?? [NO_CHANNEL]);
    // Index 0 is "no channel"; channel i is at i + 1.
    channelOk = Uint8Array.from([NO_CHANNEL, ...selection.channels], (key) => (keys.has(key) ? 1 : 0));
  }
  return {
    number: plan.number,
    accessibleSeats: plan.accessibleSeats,
    tryToPreventOrphanSeats: plan.tryToPreventOrphanSeats,
    // The chosen objects are one status change: at most as many as any request may name.
    maxObjects: MAX_OBJECTS_PER_REQUEST,
    eligible(p: number): boolean {
      if (!choosable[p]) return false;
      if (channelOk && !channelOk[channel[p]! + 1]) return false;
      if (categories && !categories.has(category[p]!)) return false;
      const section = layout.objectSection[p]!;
      if (sections && !sections.has(section)) return false;
      return !zoneOfSection || (section >= 0 && zoneOfSection[section] === 1);
    },
  };
}
