import type { RedisClient } from './redis.js';
import type { ObjectSnapshot } from '../domain/eventObjectInfo.js';
import { notForSaleOfFields } from '../domain/eventObjectRules.js';
import type { ChartObject, ObjectIndex } from '../domain/objectIndex.js';
import { areaState, heldByTicketType, holdMember, objectState, recordStatus, tokenEntryExpiry, type AreaHolds } from '../domain/objectStates.js';
import type { BulkCommand, BulkReads } from './bulkReader.js';
import { eventKeys, seasonFeedKey, seasonOverridesKey, seasonUseKey, type EventRef } from './eventKeys.js';

// Reads the state of an event's objects for object info and reports, and writes their
// extra data (not the sales flow: that changes state only through the status script).
// Reads are one pipelined round trip; the state is what Redis had at that moment, decoded
// exactly as the scripts would see it at `now`.

/** An event's state with the number of the last entry it reflects (readWithPosition). */
export interface StreamPosition {
  seq: number;
  snapshots: Map<string, ObjectSnapshot>;
  notForSale: Map<string, number>;
  /** For an event of a season: its season's and partial seasons' records (seats, tables, booths), in the order asked, its overrides, and its top-level season's places off sale. */
  season?: { units: Map<string, ObjectSnapshot>[]; overrides: Set<string>; topNotForSale: Map<string, number> };
}

/** The unexpired GA holds of an event by area, from the unexpired members and the gaHolds hash. */
function areaHoldsOf(unexpired: string[], entries: Record<string, string>): Map<string, AreaHolds> {
  const byArea = new Map<string, AreaHolds>();
  for (const member of unexpired) {
    const { label, token } = holdMember(member);
    const held = heldByTicketType(entries[member]);
    if (held.size === 0) continue;
    if (!byArea.has(label)) byArea.set(label, new Map());
    byArea.get(label)!.set(token, held);
  }
  return byArea;
}

/** The answers of a pipeline; the first failed command's error is thrown. */
async function execAll(pipeline: ReturnType<RedisClient['pipeline']> | ReturnType<RedisClient['multi']>): Promise<unknown[]> {
  const results = (await pipeline.exec()) ?? [];
  for (const [error] of results) if (error) throw error;
  return results.map(([, value]) => value);
}

/**
 * Decodes one object's record and extra data as the scripts would see them at `now`
 * (`decode`), and a seat's status from its record alone (`statusOf`).
 */
function decoder(tokens: (token: string) => string | undefined, holdsByArea: Map<string, AreaHolds>, now: number) {
  const tokenExpiry = (token: string) => tokenEntryExpiry(tokens(token));
  return {
    decode(object: ChartObject | undefined, label: string, record: string | null, extra: string | null): ObjectSnapshot {
      const state =
        object?.objectType === 'generalAdmission' ? areaState(record, holdsByArea.get(label) ?? new Map()) : objectState(record, tokenExpiry, now);
      return extra ? { state, extraData: JSON.parse(extra) as Record<string, unknown> } : { state };
    },
    statusOf: (record: string) => recordStatus(record, tokenExpiry, now),
  };
}

/** A hash read as HKEYS and HVALS in one transaction (same order), as a Map: HGETALL's object is slow to build for 50,000 fields. */
function hashOf(keys: unknown, values: unknown): Map<string, string> {
  const names = keys as string[];
  const texts = values as string[];
  const map = new Map<string, string>();
  for (let i = 0; i < names.length; i++) map.set(names[i]!, texts[i]!);
  return map;
}

/** An event's state read whole (EventObjectStore.readWhole). */
export interface WholeEventState {
  /**
   * The labels of the objects with a record, and their records at the same positions
   * (those without are free; a GA area without one is empty): read as they came, since
   * going through them once (summaries) needs no lookup by label.
   */
  labels: string[];
  values: string[];
  snapshot(object: ChartObject): ObjectSnapshot;
  /** A seat, table or booth's status from its record alone, without decoding the rest. */
  statusOf(record: string): string;
}

export interface AvailabilityRecords {
  records: Record<string, string>;
  /** Hold token -> its entry (expiry, then the labels it holds; tokenEntryExpiry). */
  tokens: Record<string, string>;
  /** An event of a season: the top-level season's records, and the labels it overrides. */
  seasonRecords: Record<string, string> | null;
  overridden: Set<string> | null;
  /** A season or partial season: labels some unit of the season has a record of. */
  usedInSeason: Set<string> | null;
}

/** HGETALL's reply as a raw read gives it (field, value, field, value, ...), as ioredis gives it. */
function hashFromPairs(pairs: unknown): Record<string, string> {
  const flat = pairs as string[];
  const hash: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = flat[i + 1]!;
  return hash;
}

export class EventObjectStore {
  constructor(
    private readonly redis: RedisClient,
    /** For reading an event whole (reports): replies of 100,000 strings, decoded without ioredis's Buffers. */
    private readonly bulk: BulkReads,
  ) {}

  /** The unexpired GA holds of every area of an event. */
  async readAreaHolds(event: EventRef, now: number): Promise<Map<string, AreaHolds>> {
    const keys = eventKeys(event);
    const [unexpired, entries] = await Promise.all([this.redis.zrangebyscore(keys.gaHoldExpiry, `(${now}`, '+inf'), this.redis.hgetall(keys.gaHolds)]);
    return areaHoldsOf(unexpired, entries);
  }

  /** Snapshots of the given labels (every one, free ones included), or of every object of the chart. */
  async readSnapshots(
    event: EventRef,
    index: ObjectIndex,
    labels: string[] | null,
    now: number,
  ): Promise<Map<string, ObjectSnapshot>> {
    if (labels === null) {
      const whole = await this.readWhole(event, now);
      return new Map(index.objects.map((object) => [object.label, whole.snapshot(object)]));
    }
    // HMGET needs at least one field.
    if (labels.length === 0) return new Map();
    const keys = eventKeys(event);
    const pipeline = this.redis.pipeline().hmget(keys.objects, ...labels).hmget(keys.extraData, ...labels);
    pipeline.hgetall(keys.holdTokens).zrangebyscore(keys.gaHoldExpiry, `(${now}`, '+inf').hgetall(keys.gaHolds);
    const [records, extras, tokens, unexpired, entries] = await execAll(pipeline);
    const known = tokens as Record<string, string>;
    const { decode } = decoder((token) => known[token], areaHoldsOf(unexpired as string[], entries as Record<string, string>), now);
    const snapshots = new Map<string, ObjectSnapshot>();
    labels.forEach((label, i) => snapshots.set(label, decode(index.byLabel.get(label), label, (records as (string | null)[])[i] ?? null, (extras as (string | null)[])[i] ?? null)));
    return snapshots;
  }

  /**
   * The whole state of an event at one moment (reports): its records, extra data (unless
   * `extraData` is false: summaries count statuses only), hold tokens and GA holds in one
   * transaction (a bulk read: src/inventory/bulkReader.ts), decoded object by object when
   * asked. Objects without a record (most of a big venue) are free and cost nothing until
   * then; the lookup by label is built on the first snapshot asked for.
   */
  async readWhole(event: EventRef, now: number, extraData = true): Promise<WholeEventState> {
    const keys = eventKeys(event);
    const commands: BulkCommand[] = [
      ['HKEYS', keys.objects],
      ['HVALS', keys.objects],
      ...(extraData ? ([['HKEYS', keys.extraData], ['HVALS', keys.extraData]] as BulkCommand[]) : []),
      ['HKEYS', keys.holdTokens],
      ['HVALS', keys.holdTokens],
      ['ZRANGEBYSCORE', keys.gaHoldExpiry, `(${now}`, '+inf'],
      ['HGETALL', keys.gaHolds],
    ];
    const replies = await this.bulk.transaction(commands);
    const [labels, values] = replies as [string[], string[]];
    const [extraKeys, extraValues] = extraData ? replies.slice(2, 4) : [[], []];
    const [tokenKeys, tokenValues, unexpired, entries] = replies.slice(extraData ? 4 : 2);
    const extras = hashOf(extraKeys, extraValues);
    const tokens = hashOf(tokenKeys, tokenValues);
    const { decode, statusOf } = decoder((token) => tokens.get(token), areaHoldsOf(unexpired as string[], hashFromPairs(entries)), now);
    let records: Map<string, string> | undefined;
    return {
      labels,
      values,
      statusOf,
      snapshot: (object) => {
        records ??= hashOf(labels, values);
        return decode(object, object.label, records.get(object.label) ?? null, extras.get(object.label) ?? null);
      },
    };
  }

  /**
   * The event's objects that have a record (GA areas: every one with places taken or held),
   * decoded at `now`, its places not for sale by label, and the number of the last history
   * entry written with them, from one transaction: the state as of that entry exactly (the
   * status stream's snapshot, docs/status-stream.md). No history stream yet: entry 0.
   * For an event of a season, `season.units` (its season and partial seasons): their seats',
   * tables' and booths' records too, the event's overrides, the places its top-level season
   * keeps off sale, and the number of the last entry of the season's feed instead
   * (docs/status-stream.md, "Seasons").
   */
  async readWithPosition(event: EventRef, index: ObjectIndex, now: number, season?: { units: EventRef[]; top: EventRef }): Promise<StreamPosition> {
    const seasonUnits = season?.units;
    const keys = eventKeys(event);
    const multi = this.redis
      .multi()
      .hgetall(keys.objects)
      .hgetall(keys.holdTokens)
      .zrangebyscore(keys.gaHoldExpiry, `(${now}`, '+inf')
      .hgetall(keys.gaHolds)
      .hgetall(keys.saleConfig);
    for (const unit of seasonUnits ?? []) multi.hgetall(eventKeys(unit).objects).hgetall(eventKeys(unit).holdTokens);
    if (season) multi.hkeys(seasonOverridesKey(event)).hgetall(eventKeys(season.top).saleConfig);
    // lua/stream-last-entry-1.lua, defined on this connection by src/inventory/scripts.ts.
    (multi as unknown as { streamLastEntry(key: string): unknown }).streamLastEntry(seasonUnits ? seasonFeedKey(event) : keys.history);
    const replies = await multi.exec();
    if (!replies) throw new Error('Redis aborted the transaction of a stream snapshot');
    for (const [error] of replies) if (error) throw error;
    const values = replies.map(([, value]) => value);
    const [records, tokens, unexpired, entries, saleConfig] = values as [Record<string, string>, Record<string, string>, string[], Record<string, string>, Record<string, string>];
    const seq = values[values.length - 1] as number;
    const notForSale = notForSaleOfFields(saleConfig);
    const holdsByArea = areaHoldsOf(unexpired, entries);
    const { decode } = decoder((token) => tokens[token], holdsByArea, now);
    const snapshots = new Map<string, ObjectSnapshot>();
    for (const label of new Set([...Object.keys(records), ...holdsByArea.keys()])) {
      snapshots.set(label, decode(index.byLabel.get(label), label, records[label] ?? null, null));
    }
    if (!seasonUnits) return { seq, snapshots, notForSale };
    const at = 5 + 2 * seasonUnits.length;
    // Each unit's seats, tables and booths (a season's GA places are not streamed).
    const units = seasonUnits.map((_, i) => {
      const [unitRecords, unitTokens] = values.slice(5 + 2 * i, 7 + 2 * i) as [Record<string, string>, Record<string, string>];
      const unit = decoder((token) => unitTokens[token], new Map(), now);
      const decoded = new Map<string, ObjectSnapshot>();
      for (const [label, record] of Object.entries(unitRecords)) {
        const object = index.byLabel.get(label);
        if (object && object.objectType !== 'generalAdmission') decoded.set(label, unit.decode(object, label, record, null));
      }
      return decoded;
    });
    const overrides = new Set(values[at] as string[]);
    return { seq, snapshots, notForSale, season: { units, overrides, topNotForSale: notForSaleOfFields(values[at + 1] as Record<string, string>) } };
  }

  /** Which of the labels (null: of all objects) the event overrides its season's status of. */
  async readOverrides(event: EventRef, labels: string[] | null): Promise<Set<string>> {
    if (labels === null) return new Set(await this.redis.hkeys(seasonOverridesKey(event)));
    const values = await this.redis.hmget(seasonOverridesKey(event), ...labels);
    return new Set(labels.filter((_, i) => values[i] !== null));
  }

  /** The labels a season's events keep back from it (its `e:` sale config fields). */
  async heldBackByEvents(season: EventRef, labels: string[]): Promise<Set<string>> {
    const values = await this.redis.hmget(eventKeys(season).saleConfig, ...labels.map((l) => `e:${l}`));
    return new Set(labels.filter((_, i) => values[i] !== null));
  }

  /** The labels some partial season or event of the season has a record of (its seasonUse count). */
  async recordedInSeason(season: EventRef, labels: string[]): Promise<string[]> {
    const counts = await this.redis.hmget(seasonUseKey(season), ...labels);
    return labels.filter((_, i) => Number(counts[i] ?? 0) > 0);
  }

  /**
   * What best available reads to know what is open (src/services/availabilityViews.ts), in
   * one pipelined round trip: the event's records and token expiries and, for a unit of a
   * season, what its season holds: the records of `top` (its top-level season) and the
   * event's overrides (an event), or the labels some unit has a record of (a season or
   * partial season).
   */
  async readAvailability(event: EventRef, top: EventRef | null): Promise<AvailabilityRecords> {
    const keys = eventKeys(event);
    const pipeline = this.redis.pipeline().hgetall(keys.objects).hgetall(keys.holdTokens);
    const role = event.season?.role;
    if (role === 'event') pipeline.hgetall(eventKeys(top!).objects).hkeys(seasonOverridesKey(event));
    else if (role) pipeline.hkeys(seasonUseKey(event));
    const results = (await pipeline.exec()) ?? [];
    for (const [error] of results) if (error) throw error;
    const value = <T>(i: number) => results[i]?.[1] as T;
    return {
      records: value<Record<string, string>>(0),
      tokens: value<Record<string, string>>(1),
      seasonRecords: role === 'event' ? value<Record<string, string>>(2) : null,
      overridden: role === 'event' ? new Set(value<string[]>(3)) : null,
      usedInSeason: role && role !== 'event' ? new Set(value<string[]>(2)) : null,
    };
  }

  /** Every stored record of the event: label -> record (free objects have none). */
  storedRecords(event: EventRef): Promise<Record<string, string>> {
    return this.redis.hgetall(eventKeys(event).objects);
  }

  /** Replaces the extra data of the given objects: label -> extra data JSON. */
  async setExtraData(event: EventRef, fields: Map<string, string>): Promise<void> {
    if (fields.size > 0) await this.redis.hset(eventKeys(event).extraData, fields);
  }
}
