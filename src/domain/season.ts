import { badRequest } from './errors.js';
import type { EventDoc } from './event.js';
import type { ObjectSnapshot } from './eventObjectInfo.js';
import type { AreaState } from './objectStates.js';
import { FIELD_SEPARATOR } from './objectStates.js';

// Seasons without I/O (docs/seasons.md): a top-level season, its partial seasons (each a
// subset of its events) and its events, and what each of them must check a booking
// against. The documents live in the events collection; this decides from a family of
// them which flags a record shows and which other units a status change consults.

/** A past event refuses every change, status changes included (docs/seasons.md, "The past"). */
export const eventInThePast = (key: string) => badRequest('EVENT_IN_THE_PAST', `Event ${key} is in the past and cannot be changed`);

/** Seasons open nothing for sale: only mark-as-not-for-sale applies to them (docs/seasons.md, "Not for sale"). */
export function checkMarkForSale(event: EventDoc): void {
  const role = roleOf(event);
  if (role === 'top' || role === 'partial') {
    throw badRequest('NOT_SUPPORTED_FOR_SEASONS', `${event.key} is a season: mark-as-for-sale is not supported on seasons; use mark-as-not-for-sale`);
  }
}

/** An event of a season uses its season's channels: they are replaced on the season (docs/seasons.md, "Channels"). */
export function checkChannelsReplaceable(event: EventDoc): void {
  if (roleOf(event) === 'event') {
    throw badRequest('CHANNELS_MANAGED_ON_SEASON', `${event.key} is an event in a season: replace the channels of its season instead`);
  }
}

/**
 * What the events of a season keep back from it, per object (docs/seasons.md, "Not for
 * sale", "Channels"): places an event has off sale, or in a channel of its own. A season
 * (or partial season) cannot sell what one of its events holds back; the most any one
 * event holds back counts. `fieldsOf` gives an event's own sale config fields
 * (saleConfigFields); `capacityOf` an object's places.
 */
export function heldBackByEvents(
  events: EventDoc[],
  fieldsOf: (event: EventDoc) => Map<string, string>,
  capacityOf: (label: string) => number,
): Map<string, number> {
  const heldBack = new Map<string, number>();
  const keep = (label: string, places: number) => heldBack.set(label, Math.max(heldBack.get(label) ?? 0, places));
  for (const event of events) {
    const allotted = new Map<string, number>();
    for (const [field, value] of fieldsOf(event)) {
      const label = field.slice(2);
      if (field.startsWith('n:')) keep(label, Number(value));
      else if (field.startsWith('c:')) keep(label, capacityOf(label));
      else if (field.startsWith('a:')) {
        const parts = value.split(FIELD_SEPARATOR);
        for (let i = 1; i < parts.length; i += 2) allotted.set(label, (allotted.get(label) ?? 0) + Number(parts[i]));
      }
    }
    for (const [label, places] of allotted) keep(label, places);
  }
  return heldBack;
}

export type SeasonRole = 'top' | 'partial' | 'event';

/** One season's documents: the top-level season, its partial seasons and events, oldest first. */
export interface SeasonFamily {
  top: EventDoc;
  partials: EventDoc[];
  events: EventDoc[];
}

/**
 * What a status change on one unit of a season is checked against. A unit's "use" of an
 * object is what its own record says (a seat booked or held, places of an area taken).
 * - `sum`: units whose use counts against this one in full (an event sees the season's
 *   bookings and those of its partial seasons);
 * - `groups`: sets of units whose uses add up, of which only the fullest group counts: on
 *   a season, each event with the partial seasons that contain it (an area has capacity
 *   minus the most taken in any one event); a seat is taken if any member took it.
 * Events in the past are in no group: they no longer hold anything back.
 */
export interface SeasonScope<Unit = EventDoc> {
  role: SeasonRole;
  top: Unit;
  sum: Unit[];
  groups: Unit[][];
  /** Whether the top-level season's for-sale config applies to its events and partial seasons. */
  propagated: boolean;
  /** The season's make-up version the scope was computed at (src/inventory/seasonStore.ts). */
  version: string;
}

export function roleOf(doc: EventDoc): SeasonRole | null {
  return doc.season?.role ?? null;
}

/** The family of a season from its documents, in any order. */
export function familyOf(docs: EventDoc[]): SeasonFamily {
  const sorted = [...docs].sort((a, b) => a._id - b._id);
  const top = sorted.find((d) => d.season?.role === 'top');
  if (!top) throw new Error('a season family without its top-level season');
  return {
    top,
    partials: sorted.filter((d) => d.season?.role === 'partial'),
    events: sorted.filter((d) => d.season?.role === 'event'),
  };
}

/** Every unit of the season: the season, its partial seasons, its events. */
export const unitsOf = (family: SeasonFamily): EventDoc[] => [family.top, ...family.partials, ...family.events];

/** The events of a partial season, in the order they were added. */
export function eventIdsOf(partial: EventDoc): number[] {
  return partial.season?.role === 'partial' ? partial.season.eventIds : [];
}

/** The partial seasons an event belongs to. */
export function partialsOf(event: EventDoc, family: SeasonFamily): EventDoc[] {
  return family.partials.filter((p) => eventIdsOf(p).includes(event._id));
}

export function scopeOf(doc: EventDoc, family: SeasonFamily, version = '0'): SeasonScope {
  const { top } = family;
  const propagated = top.season?.role === 'top' ? top.season.forSalePropagated : true;
  const live = family.events.filter((e) => !e.isInThePast);
  const withPartials = (event: EventDoc, except?: EventDoc) => [event, ...partialsOf(event, family).filter((p) => p._id !== except?._id)];
  switch (roleOf(doc)) {
    case 'event':
      return { role: 'event', top, sum: [top, ...partialsOf(doc, family)], groups: [], propagated, version };
    case 'partial': {
      const ids = eventIdsOf(doc);
      return { role: 'partial', top, sum: [top], groups: live.filter((e) => ids.includes(e._id)).map((e) => withPartials(e, doc)), propagated, version };
    }
    default: {
      // A partial season none of whose events is live still holds its own bookings back.
      const covered = new Set(live.flatMap((e) => partialsOf(e, family).map((p) => p._id)));
      const alone = family.partials.filter((p) => !covered.has(p._id)).map((p) => [p]);
      return { role: 'top', top, sum: [], groups: [...live.map((e) => withPartials(e)), ...alone], propagated, version };
    }
  }
}

/** The season flags and keys of a record (docs/seasons.md, "Records"). */
export function seasonFields(doc: EventDoc, family: SeasonFamily | null): Record<string, unknown> {
  const role = roleOf(doc);
  const fields: Record<string, unknown> = {
    isSeason: role === 'top' || role === 'partial',
    isTopLevelSeason: role === 'top',
    isPartialSeason: role === 'partial',
    isEventInSeason: role === 'event',
  };
  if (!family || !role) return fields;
  if (role === 'top') {
    fields.partialSeasonKeys = family.partials.map((p) => p.key);
    fields.forSalePropagated = doc.season?.role === 'top' ? doc.season.forSalePropagated : true;
  } else {
    fields.topLevelSeasonKey = family.top.key;
  }
  if (role === 'event') fields.partialSeasonKeysForEvent = partialsOf(doc, family).map((p) => p.key);
  return fields;
}

/** The events a season record lists: all of a top-level season's, a partial season's own. */
export function eventsOf(doc: EventDoc, family: SeasonFamily): EventDoc[] {
  if (roleOf(doc) === 'top') return family.events;
  if (roleOf(doc) === 'partial') {
    const ids = eventIdsOf(doc);
    return ids.map((id) => family.events.find((e) => e._id === id)).filter((e): e is EventDoc => e !== undefined);
  }
  return [];
}

/** What a unit's scope units hold of the objects being shown (read by the caller). */
export interface SeasonSnapshots {
  /** Snapshots of the scope's `sum` units, in order. */
  sum: Map<string, ObjectSnapshot>[];
  /** Snapshots of the units of each group (those of the groups' areas and candidate seats). */
  groups: Map<string, ObjectSnapshot>[][];
  /** Labels whose season status the event overrides. */
  overridden: Set<string>;
  /** Labels an event of the season keeps back from it (its `e:` fields). */
  heldBack: Set<string>;
  isArea: (label: string) => boolean;
}

/**
 * Object snapshots of a unit of a season as its clients see them (docs/seasons.md,
 * "Records"), the way the status script judges them (lua/includes/seasonRules.lua,
 * areaRules.lua): a GA area's free places lose what the `sum` units took and the fullest
 * group; in an event, a seat free there shows what the season or a partial season made
 * of it, unless overridden; on a season or partial season, a seat free there but taken by a
 * unit of its scope, or kept back by an event, is unavailable. Changes `own` in place.
 */
export function seasonView(role: SeasonRole, own: Map<string, ObjectSnapshot>, units: SeasonSnapshots): void {
  const taken = (unit: Map<string, ObjectSnapshot>, label: string) => {
    const state = unit.get(label)?.state as AreaState | undefined;
    return state ? state.nonFree + state.held : 0;
  };
  const firstTaken = (snapshots: Map<string, ObjectSnapshot>[], label: string) =>
    snapshots.map((unit) => unit.get(label)).find((s) => s !== undefined && s.state.status !== 'free');
  for (const [label, snapshot] of own) {
    if (units.isArea(label)) {
      const fullest = Math.max(0, ...units.groups.map((group) => group.reduce((n, unit) => n + taken(unit, label), 0)));
      snapshot.seasonTakenPlaces = units.sum.reduce((n, unit) => n + taken(unit, label), 0) + fullest;
    } else if (units.overridden.has(label)) {
      snapshot.seasonStatusOverridden = true;
    } else if (snapshot.state.status === 'free') {
      const elsewhere = firstTaken([...units.sum, ...units.groups.flat()], label);
      if (role === 'event') {
        if (elsewhere) snapshot.state = elsewhere.state;
      } else if (elsewhere) snapshot.unavailable = elsewhere.state.status;
      else if (units.heldBack.has(label)) snapshot.unavailable = 'not_for_sale';
    }
  }
}
