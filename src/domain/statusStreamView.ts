import { HELD } from './objectStates.js';
import type { StatusChangeRecord } from './statusChangeHistory.js';

// What a status-stream subscriber sees of an event (docs/status-stream.md): every object
// that is not free, by label, kept current by applying the event's history entries in the
// order they were written. Pure: the hub (src/services/statusStreamHub.ts) reads and
// publishes; this decides what a message says.

/** One object that is not free, as the stream shows it. */
export interface StreamObject {
  status: string;
  /** Only to a client that authenticated with the secret key. */
  holdToken?: string;
  orderId?: string;
  /** GA areas: places booked (or in a custom status) and held. */
  booked?: number;
  held?: number;
}

/** One change as the `changes` message lists it. */
export interface StreamChange extends StreamObject {
  objectLabel: string;
  /** Places the change applied to (GA areas), 1 for a seat, table or booth. */
  quantity: number;
}

/** Which fields a subscriber may see: hold tokens and order ids only with the secret key. */
export type Audience = 'public' | 'secret';

/** The change a history entry records, before GA counts are known. */
export function changeOf(entry: StatusChangeRecord): StreamChange {
  const change: StreamChange = { objectLabel: entry.label, status: entry.status, quantity: entry.quantity };
  if (entry.holdToken && entry.status === HELD) change.holdToken = entry.holdToken;
  if (entry.orderId) change.orderId = entry.orderId;
  return change;
}

/** What an object shows after `change`; undefined once it is free (a free object is left out). */
export function objectAfter(change: StreamChange): StreamObject | undefined {
  if (change.booked !== undefined) {
    if (change.booked === 0 && change.held === 0) return undefined;
    return { status: change.status, booked: change.booked, held: change.held };
  }
  if (change.status === 'free') return undefined;
  const object: StreamObject = { status: change.status };
  if (change.holdToken) object.holdToken = change.holdToken;
  if (change.orderId) object.orderId = change.orderId;
  return object;
}

/** The object without what a public-key client may not see. */
function forAudience<T extends StreamObject>(object: T, audience: Audience): T {
  if (audience === 'secret' || (object.holdToken === undefined && object.orderId === undefined)) return object;
  const { holdToken: _token, orderId: _order, ...rest } = object;
  return rest as T;
}

export function snapshotMessage(seq: number, objects: Map<string, StreamObject>, audience: Audience, reset: boolean): string {
  const shown: Record<string, StreamObject> = {};
  for (const [label, object] of objects) shown[label] = forAudience(object, audience);
  return JSON.stringify(reset ? { type: 'snapshot', seq, reset: true, objects: shown } : { type: 'snapshot', seq, objects: shown });
}

export function changesMessage(seq: number, changes: StreamChange[], audience: Audience): string {
  return JSON.stringify({ type: 'changes', seq, changes: changes.map((change) => forAudience(change, audience)) });
}

/**
 * `since` as a client sends it: a whole number of at most 15 digits (a change number),
 * or undefined when absent; null when malformed (400).
 */
export function parseSince(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}
