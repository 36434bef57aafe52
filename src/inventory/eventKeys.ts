import type { SeasonLink } from '../domain/event.js';

// Where an event's inventory lives in Redis (docs/redis-layout.md). Every key of an event
// carries the event's hash tag (its own id, or its season's), so one script can check and
// change all of them on Redis Cluster. A free object has no entry anywhere: creating an
// event writes nothing.

export interface EventKeys {
  /** hash: object label -> object state (docs/redis-layout.md, "Object states"); GA areas too. */
  objects: string;
  /** hash: object label -> extra data JSON. */
  extraData: string;
  /**
   * hash: hold token -> its expiry (ms epoch) then the labels it holds here, for tokens
   * holding something here (docs/redis-layout.md, "Hold tokens").
   */
  holdTokens: string;
  /**
   * hash: `c:<label>` -> channel key, `n:<label>` -> places not for sale, `a:<label>` ->
   * places assigned to channels (saleConfigFields in src/domain/eventObjectRules.ts).
   */
  saleConfig: string;
  /** zset: `<label>SEP<token>` of GA holds, scored by expiry, so expired holds are found. */
  gaHoldExpiry: string;
  /** hash: `<label>SEP<token>` -> places that token holds in that GA area. */
  gaHolds: string;
  /**
   * stream: the status changes not yet stored in MongoDB, one entry per changed object
   * (lua/includes/history.lua; docs/history.md); the drain also counts used objects from it.
   */
  history: string;
}

/** What names an event's inventory: its id and the hash tag it shares with its season. */
export interface EventRef {
  _id: number;
  tag: string;
  /** Its place in a season, if any (src/domain/event.ts). */
  season?: SeasonLink;
  /** How many bucket keys hold the objects it used in a month (src/domain/usedBuckets.ts); 1 if unset. */
  usedBuckets?: number;
}

const prefixOf = (event: EventRef) => `inv:{${event.tag}}:${event._id}`;

/** The keys of one event, in the order the scripts take them. */
export const EVENT_KEY_NAMES = ['objects', 'extraData', 'holdTokens', 'saleConfig', 'gaHoldExpiry', 'gaHolds', 'history'] as const;

export function eventKeys(event: EventRef): EventKeys {
  const prefix = prefixOf(event);
  return {
    objects: `${prefix}:objects`,
    extraData: `${prefix}:extraData`,
    holdTokens: `${prefix}:holdTokens`,
    saleConfig: `${prefix}:saleConfig`,
    gaHoldExpiry: `${prefix}:gaHoldExpiry`,
    gaHolds: `${prefix}:gaHolds`,
    history: historyKey(event),
  };
}

/**
 * Each event record's keys in script order, made once per record (the catalog keeps the
 * records, so a busy event's keys are made once, not per booking); frozen, so the status
 * call's encoding of them is kept with them (src/inventory/statusWire.ts).
 */
const keptKeys = new WeakMap<EventRef, readonly string[]>();
export function keptEventKeys(event: EventRef): readonly string[] {
  let keys = keptKeys.get(event);
  if (!keys) {
    const k = eventKeys(event);
    keys = Object.freeze(EVENT_KEY_NAMES.map((name) => k[name]));
    keptKeys.set(event, keys);
  }
  return keys;
}

const HISTORY_AT = EVENT_KEY_NAMES.indexOf('history');

/** The event record's history key, from its kept keys (keptEventKeys). */
export const keptHistoryKey = (event: EventRef): string => keptEventKeys(event)[HISTORY_AT]!;

/** The event's history stream (EventKeys.history), without making the other names. */
export const historyKey = (event: EventRef) => `${prefixOf(event)}:history`;

/** Reads the event (its tag and id) out of one kind of its keys, `inv:{<tag>}:<id>:<name>`; null for another key. */
const eventOfKey = (name: keyof EventKeys) => {
  const pattern = new RegExp(`^inv:\\{([^}]*)\\}:(\\d+):${name}$`);
  return (key: string): EventRef | null => {
    const match = pattern.exec(key);
    return match ? { tag: match[1]!, _id: Number(match[2]) } : null;
  };
};

/** The event a history stream key names, or null for another key. */
export const historyKeyEvent = eventOfKey('history');

/** The event whose holdTokens hash a key names, or null for another key. */
export const holdTokensKeyEvent = eventOfKey('holdTokens');

/** counter: for-sale config changes of the event on one UTC day `YYYY-MM-DD` (rate limit). */
export const forSaleEditsKey = (event: EventRef, day: string) => `${prefixOf(event)}:forSaleEdits:${day}`;

/**
 * hash: how many objects the event used (billed) in one month `YYYY-MM` (`n`) and in how
 * many bucket keys they are (`b`); see lua/includes/usedObjects.lua.
 */
export const usedObjectsKey = (event: EventRef, month: string) => `${prefixOf(event)}:usedObjects:${month}`;

/** hash: one bucket of those objects, label -> ''. */
export const usedBucketKey = (event: EventRef, month: string, bucket: number) => `${usedObjectsKey(event, month)}:${bucket}`;

/**
 * hash: the replies of the status changes that succeeded, call id -> reply, kept a few
 * seconds so a repeat of the same call answers with it (lua/includes/requestRecord.lua).
 * One hash per server process (`process`, random) and window of time (`window`), not a key
 * per request: docs/redis-layout.md, "Request records".
 */
export const requestRecordsKey = (event: EventRef, process: string, window: number) => `inv:{${event.tag}}:requests:${process}:${window}`;

/** The id of the top-level season of a unit of a season. */
export const topIdOf = (unit: EventRef): number | undefined => (unit.season?.role === 'top' ? unit._id : unit.season?.topId);

/**
 * hash: object label -> how many units of the season (its partial seasons and events) have a
 * record of the object (lua/includes/eventState.lua, writeBack), kept on the top-level season.
 */
export const seasonUseKey = (unit: EventRef) => `inv:{${unit.tag}}:${topIdOf(unit)}:seasonUse`;

/** The same key from a unit's tag alone: every unit of a season is tagged with its top-level season's id. */
export const seasonUseKeyOfTag = (tag: string) => `inv:{${tag}}:${tag}:seasonUse`;

/** hash: object label -> '1' for objects whose season status the event overrides. */
export const seasonOverridesKey = (event: EventRef) => `${prefixOf(event)}:seasonOverrides`;

/**
 * string: a number bumped on every change to a season's make-up (events, partial seasons,
 * past flags, forSalePropagated). A status change carries the number its checks were
 * planned with; the script refuses a change planned on an older make-up (docs/seasons.md).
 */
export const seasonVersionKey = (unit: EventRef) => `inv:{${unit.tag}}:${topIdOf(unit)}:seasonVersion`;

/**
 * stream: every history entry of every unit of a season, and the for-sale entries of its
 * events, in one sequence (with the unit's id), kept to about SEASON_FEED_LENGTH entries: what
 * the live status stream of an event of the season follows (docs/status-stream.md, "Seasons").
 */
export const seasonFeedKey = (unit: EventRef) => `inv:{${unit.tag}}:${topIdOf(unit)}:feed`;

/** The same key from a unit's tag alone. */
export const seasonFeedKeyOfTag = (tag: string) => `inv:{${tag}}:${tag}:feed`;

/** Entries a season's feed keeps at least (trimmed in steps beyond it, XADD MAXLEN ~). */
export const SEASON_FEED_LENGTH = 20_000;

/** set: ids of the units taken out of the season's seasonUse count (lua/forget-season-unit-3.lua). */
export const seasonForgottenKey = (unit: EventRef) => `inv:{${unit.tag}}:${topIdOf(unit)}:seasonForgotten`;

/** The season keys a unit's deletion removes: its overrides, and for the top-level season the season-wide ones. */
export const seasonInventoryKeys = (unit: EventRef): string[] => {
  if (!unit.season) return [];
  if (unit.season.role !== 'top') return [seasonOverridesKey(unit)];
  return [seasonOverridesKey(unit), seasonUseKey(unit), seasonVersionKey(unit), seasonForgottenKey(unit), seasonFeedKey(unit)];
};
