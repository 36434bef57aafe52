import type { Redis } from 'ioredis';
import type { ObjectSnapshot } from '../domain/eventObjectInfo.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import { areaState, heldByTicketType, holdMember, objectState, type AreaHolds } from '../domain/objectStates.js';
import { eventKeys, seasonOverridesKey, seasonUseKey, type EventRef } from './eventKeys.js';

// Reads the state of an event's objects for object info and reports, and writes their
// extra data (not the sales flow: that changes state only through the status script).
// Reads are one pipelined round trip; the state is what Redis had at that moment, decoded
// exactly as the scripts would see it at `now`.

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

export interface AvailabilityRecords {
  records: Record<string, string>;
  /** Hold token -> expiry (ms). */
  tokens: Record<string, string>;
  /** An event of a season: the top-level season's records, and the labels it overrides. */
  seasonRecords: Record<string, string> | null;
  overridden: Set<string> | null;
  /** A season or partial season: labels some unit of the season has a record of. */
  usedInSeason: Set<string> | null;
}

export class EventObjectStore {
  constructor(private readonly redis: Redis) {}

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
    const keys = eventKeys(event);
    const wanted = labels ?? index.objects.map((o) => o.label);
    // HMGET needs at least one field.
    if (wanted.length === 0) return new Map();
    const pipeline = this.redis.pipeline();
    if (labels) {
      pipeline.hmget(keys.objects, ...labels).hmget(keys.extraData, ...labels);
    } else {
      pipeline.hgetall(keys.objects).hgetall(keys.extraData);
    }
    pipeline.hgetall(keys.holdTokens).zrangebyscore(keys.gaHoldExpiry, `(${now}`, '+inf').hgetall(keys.gaHolds);
    const results = (await pipeline.exec()) ?? [];
    for (const [error] of results) if (error) throw error;
    const value = (i: number) => results[i]![1];
    const lookup = (i: number): ((label: string, position: number) => string | null) => {
      const raw = value(i);
      return Array.isArray(raw) ? (_, position) => (raw[position] as string | null) ?? null : (label) => (raw as Record<string, string>)[label] ?? null;
    };
    const recordOf = lookup(0);
    const extraOf = lookup(1);
    const tokens = value(2) as Record<string, string>;
    const tokenExpiry = (token: string) => Number(tokens[token] ?? 0);
    const holdsByArea = areaHoldsOf(value(3) as string[], value(4) as Record<string, string>);

    const snapshots = new Map<string, ObjectSnapshot>();
    wanted.forEach((label, position) => {
      const object = index.byLabel.get(label);
      const record = recordOf(label, position);
      const state =
        object?.objectType === 'generalAdmission'
          ? areaState(record, holdsByArea.get(label) ?? new Map())
          : objectState(record, tokenExpiry, now);
      const extra = extraOf(label, position);
      snapshots.set(label, extra ? { state, extraData: JSON.parse(extra) as Record<string, unknown> } : { state });
    });
    return snapshots;
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
