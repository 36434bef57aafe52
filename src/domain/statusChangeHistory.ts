import { badRequest } from './errors.js';
import { FIELD_SEPARATOR } from './objectStates.js';
import type { NotBookableReason } from './eventObjectRules.js';

// The status-change history (docs/history.md): what the status script appends to an event's
// history stream (lua/includes/history.lua), the document the drain stores per entry, and
// the item the history routes answer with. The stream also holds the event's for-sale
// changes (lua/write-sale-config.lua), numbered with the status changes so the live
// stream can order both; the history routes skip them (docs/history.md, "For-sale entries").

export type OriginType = 'API_CALL' | 'HOLD_EXPIRED';

/** One status change: one object changed by one call. */
export interface StatusChangeRecord {
  eventId: number;
  /** The entry's number in its event's stream: 1, 2, 3, ... in the order the changes were made. */
  id: number;
  label: string;
  status: string;
  quantity: number;
  date: Date;
  orderId: string | null;
  holdToken: string | null;
  origin: { type: OriginType; ip?: string };
  /** JSON text, as the change carried it. */
  extraData: string | null;
}

/**
 * A change of the places not for sale of some objects (mark-as-for-sale and the like,
 * or a chart publish changing a for-sale category), as the event's stream holds it.
 */
export interface ForSaleChangeRecord {
  eventId: number;
  id: number;
  date: Date;
  /** Per object whose places not for sale changed, how many are now (0: all for sale again). */
  notForSale: [label: string, places: number][];
}

/** Any entry of an event's history stream. */
export type HistoryEntry = StatusChangeRecord | ForSaleChangeRecord;

export const isForSaleChange = (entry: HistoryEntry): entry is ForSaleChangeRecord => 'notForSale' in entry;

/**
 * The status field of a for-sale entry (its label field is empty): no status can hold a
 * control character (src/domain/statusChangeRequest.ts), so no status change has it.
 */
export const FOR_SALE_ENTRY = '\u0002notForSale';

/** The number an entry id `0-<n>` carries (lua/includes/history.lua). */
export function entryNumber(entryId: string): number {
  const match = /^0-(\d+)$/.exec(entryId);
  if (!match) throw new Error(`unexpected history entry id ${entryId}`);
  return Number(match[1]);
}

/**
 * Separates the changes of one stream entry (an entry holds the changes a call made to
 * objects one after the other: lua/includes/historyEntries.lua), and the changes of a batch
 * of them as one text (src/inventory/historyStreams.ts, oldest).
 */
export const ENTRY_SEPARATOR = '\u001e';

/**
 * The changes of one history stream entry with their numbers: the first is numbered as the
 * entry's id `0-<n>` says, the others after it (lua/includes/historyEntries.lua). An entry
 * written before entries were shared holds one change.
 */
export function entryChanges(entryId: string, c: string): [number, string][] {
  const first = entryNumber(entryId);
  if (!c.includes(ENTRY_SEPARATOR)) return [[first, c]];
  return c.split(ENTRY_SEPARATOR).map((change, i) => [first + i, change]);
}

/**
 * The distinct labels of a batch of entries as one text (each entry's second field), without
 * decoding them. A for-sale entry's is empty and left out: an object's history has no such entry.
 */
export function batchLabels(entries: string): string[] {
  const labels = new Set<string>();
  let at = 0;
  while (at < entries.length) {
    const start = entries.indexOf(FIELD_SEPARATOR, at) + 1;
    const label = entries.slice(start, entries.indexOf(FIELD_SEPARATOR, start));
    if (label !== '') labels.add(label);
    const next = entries.indexOf(ENTRY_SEPARATOR, start);
    at = next < 0 ? entries.length : next + 1;
  }
  return [...labels];
}

/**
 * A batch's distinct labels (batchLabels), worked out once and kept with it: the drain's
 * usage count may need them before storing the batch does.
 */
export const batchLabelsOf = (batch: { entries: string; labels?: string[] }): string[] => (batch.labels ??= batchLabels(batch.entries));

/** The time (ms) and label of one entry's `c` field (its first two fields), without decoding the rest. */
export function entryTimeAndLabel(c: string): { time: number; label: string } {
  const first = c.indexOf(FIELD_SEPARATOR);
  return { time: Number(c.slice(0, first)), label: c.slice(first + 1, c.indexOf(FIELD_SEPARATOR, first + 1)) };
}

/** The entries of a batch of them as one text whose first entry is number `first`. */
export function decodeBatchEntries(eventId: number, first: number, entries: string): HistoryEntry[] {
  return entries.split(ENTRY_SEPARATOR).map((c, i) => decodeHistoryEntry(eventId, first + i, c));
}

/** The status changes of a batch (what the history routes list): its for-sale entries left out. */
export function decodeBatch(eventId: number, first: number, entries: string): StatusChangeRecord[] {
  return decodeBatchEntries(eventId, first, entries).filter((entry): entry is StatusChangeRecord => !isForSaleChange(entry));
}

/** Decodes the `c` field of a history stream entry, number `id` of its stream. */
export function decodeHistoryEntry(eventId: number, id: number, c: string): HistoryEntry {
  // A for-sale entry: the time, an empty label, FOR_SALE_ENTRY (no status starts with a control character).
  const label = c.indexOf(FIELD_SEPARATOR) + 1;
  return c.startsWith(FIELD_SEPARATOR + FOR_SALE_ENTRY, label) ? decodeForSaleEntry(eventId, id, c) : decodeStatusChange(eventId, id, c);
}

/** Decodes the `c` field of a status change's entry (lua/includes/historyEntries.lua). */
export function decodeStatusChange(eventId: number, id: number, c: string): StatusChangeRecord {
  const [time, label, status, quantity, orderId, token, origin, ip, extra] = c.split(FIELD_SEPARATOR);
  const record: StatusChangeRecord = {
    eventId,
    id,
    label: label!,
    status: status!,
    quantity: Number(quantity),
    date: new Date(Number(time)),
    orderId: orderId || null,
    holdToken: token || null,
    origin: { type: (origin || 'API_CALL') as OriginType },
    extraData: extra || null,
  };
  if (ip) record.origin.ip = ip;
  return record;
}

/** A for-sale entry's `c`: time, empty label, FOR_SALE_ENTRY, then label and places per object. */
function decodeForSaleEntry(eventId: number, id: number, c: string): ForSaleChangeRecord {
  const fields = c.split(FIELD_SEPARATOR);
  const notForSale: [string, number][] = [];
  for (let i = 3; i + 1 < fields.length; i += 2) notForSale.push([fields[i]!, Number(fields[i + 1])]);
  return { eventId, id, date: new Date(Number(fields[0])), notForSale };
}

/** What the history routes answer per change (the label is also what is displayed). */
export function statusChangeItem(record: StatusChangeRecord, notPresent: NotBookableReason | null): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: record.id,
    eventId: record.eventId,
    status: record.status,
    quantity: record.quantity,
    objectLabel: record.label,
    date: record.date.toISOString(),
    orderId: record.orderId,
    extraData: record.extraData === null ? null : JSON.parse(record.extraData),
    holdToken: record.holdToken,
    origin: record.origin,
    isPresentOnChart: notPresent === null,
    displayedLabel: record.label,
  };
  if (notPresent) item.notPresentOnChartReason = notPresent;
  return item;
}

/** The order of a history list: by one field of the changes; ties as compareChanges says. */
export interface HistoryOrder {
  field: 'label' | 'status' | 'date' | 'id';
  ascending: boolean;
}

/** The fields a history list sorts by, as the query names them -> as stored. */
const SORT_FIELDS: Record<string, HistoryOrder['field']> = { objectLabel: 'label', status: 'status', date: 'date' };

/**
 * `sort=<field>[:asc|:desc]`: by date newest first when absent; a field without a direction
 * sorts ascending.
 */
export function historyOrder(sort: string | undefined): HistoryOrder {
  if (sort === undefined || sort === '') return { field: 'date', ascending: false };
  const [name, direction, ...rest] = sort.split(':');
  const field = SORT_FIELDS[name!];
  if (!field || rest.length > 0 || (direction !== undefined && direction !== 'asc' && direction !== 'desc')) {
    throw badRequest('GENERAL_ERROR', `sort must be objectLabel, status or date, optionally followed by :asc or :desc; got "${sort}"`);
  }
  return { field, ascending: direction !== 'desc' };
}

/**
 * Compares two changes in a list's order. The changes of one call share a date: by date,
 * ties go by id in the sort's direction, so they come in the order the call applied them
 * (ascending) or its reverse (descending), as ids are given in that order (docs/history.md).
 * By label or status, ties go newest first.
 */
export function compareChanges(order: HistoryOrder): (a: StatusChangeRecord, b: StatusChangeRecord) => number {
  const direction = order.ascending ? 1 : -1;
  const tie = order.field === 'date' ? direction : -1;
  return (a, b) => {
    const x = a[order.field];
    const y = b[order.field];
    return x < y ? -direction : x > y ? direction : tie * (a.id - b.id);
  };
}
