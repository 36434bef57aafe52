// The object states of an event's `objects` hash and its GA holds, read back in
// TypeScript. The scripts write them in the format of lua/includes/objectStates.lua, with
// the constants of lua/includes/constants.lua; keep the two in step (docs/redis-layout.md;
// test/integration/luaScripts.test.ts decodes what each script writes with these).

/** Joins the fields of a stored state, a GA hold, a channel allotment, and `<label>SEP<token>`. */
export const FIELD_SEPARATOR = '\u001f';
const SEP = FIELD_SEPARATOR;
export const HELD = 'reservedByToken';

/**
 * The expiry (ms) in a hold token's entry of an event's holdTokens hash, `expiry SEP label
 * ...` (docs/redis-layout.md, "Hold tokens"); 0 when the event has no entry for the token.
 */
export function tokenEntryExpiry(entry: string | undefined): number {
  if (!entry) return 0;
  const end = entry.indexOf(SEP);
  return Number(end < 0 ? entry : entry.slice(0, end));
}

/** The labels a hold token's entry says it holds in the event. */
export function tokenEntryLabels(entry: string | undefined): string[] {
  return entry ? entry.split(SEP).slice(1) : [];
}

/** A seat, table or booth as it stands now. */
export interface ObjectState {
  status: string;
  holdToken: string | null;
  orderId: string | null;
  ticketType: string | null;
  /** Set by putting the object up for resale (any status change can carry it). */
  resaleListingId: string | null;
}

/** The places held in a GA area: token -> ticket type ('' for none) -> places. */
export type AreaHolds = Map<string, Map<string, number>>;

/** A GA area as it stands now. */
export interface AreaState {
  /** Places booked or in a custom status. */
  nonFree: number;
  /** Places held. */
  held: number;
  /** Places held by unexpired tokens, when read with them (object info). */
  holds: AreaHolds | null;
  /** The last status set on the area (shown once it is full). */
  status: string;
}

export const FREE_OBJECT: ObjectState = { status: 'free', holdToken: null, orderId: null, ticketType: null, resaleListingId: null };

const orNull = (value: string | undefined) => (value === undefined || value === '' ? null : value);

/**
 * A seat, table or booth from its record. A hold whose token expired by `now` is what the
 * object was before it (free, or resale), exactly as the scripts see it.
 */
export function objectState(record: string | null | undefined, tokenExpiry: (token: string) => number, now: number): ObjectState {
  if (!record) return FREE_OBJECT;
  const [status = 'free', token, orderId, ticketType, previous, listing] = record.split(SEP);
  const kept = { orderId: orNull(orderId), ticketType: orNull(ticketType), resaleListingId: orNull(listing) };
  if (status === HELD && tokenExpiry(token ?? '') <= now) return { status: orNull(previous) ?? 'free', holdToken: null, ...kept };
  return { status, holdToken: status === HELD ? orNull(token) : null, ...kept };
}

/**
 * The status of a seat, table or booth's record at `now`, as `objectState` would say,
 * without splitting it: the status is the first field, and only a hold needs the rest.
 * For reading every record of a busy event (best available's views, summaries).
 */
export function recordStatus(record: string, tokenExpiry: (token: string) => number, now: number): string {
  const status = statusField(record);
  return status === HELD ? objectState(record, tokenExpiry, now).status : status;
}

/** The statuses most records have (lua/includes/constants.lua). */
const COMMON_STATUSES = ['booked', HELD, 'resale'];
const SEP_CODE = SEP.charCodeAt(0);

/**
 * A record's first field. One of the common statuses comes back as the same string each
 * time rather than a new copy: counting 50,000 records by status (summaries) then looks up
 * a string whose hash is known instead of hashing each copy.
 */
function statusField(record: string): string {
  for (const status of COMMON_STATUSES) {
    if (record.startsWith(status) && (record.length === status.length || record.charCodeAt(status.length) === SEP_CODE)) return status;
  }
  const end = record.indexOf(SEP);
  return end < 0 ? record : record.slice(0, end);
}

/** Whether a seat, table or booth's record reads as free at `now` (recordStatus). */
export function recordIsFree(record: string, tokenExpiry: (token: string) => number, now: number): boolean {
  return recordStatus(record, tokenExpiry, now) === 'free';
}

/**
 * A GA area from its record. With `holds` (its unexpired holds by token) the held places
 * are counted from them; without, the record's count is used, which is exact right after a
 * script touched the area (scripts clean up expired holds first).
 */
export function areaState(record: string | null | undefined, holds: AreaHolds | null = null): AreaState {
  const [nonFree = '0', held = '0', status = 'free'] = record ? record.split(SEP) : [];
  let heldPlaces = Number(held);
  if (holds) {
    heldPlaces = 0;
    for (const byTicketType of holds.values()) for (const places of byTicketType.values()) heldPlaces += places;
  }
  return { nonFree: Number(nonFree), held: heldPlaces, holds, status };
}

/**
 * The places one token holds in one GA area, by ticket type ('' for none), from its entry
 * in the event's gaHolds hash: `channel \x1f ticketType \x1f places`, repeated.
 */
export function heldByTicketType(entry: string | null | undefined): Map<string, number> {
  const held = new Map<string, number>();
  if (!entry) return held;
  const fields = entry.split(SEP);
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const places = Number(fields[i + 2]);
    if (places > 0) held.set(fields[i + 1]!, (held.get(fields[i + 1]!) ?? 0) + places);
  }
  return held;
}

/** Splits a GA hold member `label\x1ftoken`. */
export function holdMember(member: string): { label: string; token: string } {
  const at = member.indexOf(SEP);
  return { label: member.slice(0, at), token: member.slice(at + 1) };
}
