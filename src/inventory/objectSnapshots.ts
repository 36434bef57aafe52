import type { Redis } from 'ioredis';
import type { ObjectSnapshot } from '../domain/eventObjectInfo.js';
import type { ObjectIndex } from '../domain/objectIndex.js';
import { areaState, holdMember, objectState } from '../domain/objectRecords.js';
import { eventKeys } from './eventKeys.js';

// Reads the state of an event's objects for object info and reports (not the sales flow:
// that only changes state, through the script). One pipelined round trip; the state is
// what Redis had at that moment, decoded exactly as the scripts would see it at `now`.

type EventRef = { tag: string; _id: number };

/** Snapshots of the given labels (every one, free ones included), or of every object of the chart. */
export async function readSnapshots(
  redis: Redis,
  event: EventRef,
  index: ObjectIndex,
  labels: string[] | null,
  now: number,
): Promise<Map<string, ObjectSnapshot>> {
  const keys = eventKeys(event);
  const wanted = labels ?? index.objects.map((o) => o.label);
  const pipeline = redis.pipeline();
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
  const gaHolds = value(4) as Record<string, string>;
  const holdsByArea = new Map<string, Map<string, number>>();
  for (const member of value(3) as string[]) {
    const { label, token } = holdMember(member);
    const places = Number(gaHolds[member] ?? 0);
    if (places > 0) holdsByArea.set(label, (holdsByArea.get(label) ?? new Map<string, number>()).set(token, places));
  }

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
