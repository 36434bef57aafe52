import { badRequest } from './errors.js';

// Cursor pagination shared by every list route (workspaces now; charts, events, status
// changes later). Items are ordered newest first, i.e. by integer id descending.
//   start_after_id=X  -> the next `limit` items with id < X
//   end_before_id=X   -> the `limit` items with id > X closest to X, still newest first
// A page says `next_page_starts_after` (id of its last item) only when older items exist
// and `previous_page_ends_before` (id of its first item) only when newer items exist.
// Cursors are strings on the wire, as the SDKs compare them with String(id).

export interface PageLimits {
  defaultLimit: number;
  maxLimit: number;
}

export type PageRequest =
  | { direction: 'first'; limit: number }
  | { direction: 'after'; limit: number; cursor: number }
  | { direction: 'before'; limit: number; cursor: number };

export interface Page<T> {
  items: T[];
  next_page_starts_after?: string;
  previous_page_ends_before?: string;
}

export interface PageQuery {
  limit?: string;
  start_after_id?: string;
  end_before_id?: string;
}

function parseId(name: string, raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw badRequest('GENERAL_ERROR', `${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

export function parsePageRequest(query: PageQuery, limits: PageLimits): PageRequest {
  let limit = limits.defaultLimit;
  if (query.limit !== undefined && query.limit !== '') {
    if (!/^\d{1,9}$/.test(query.limit)) throw badRequest('GENERAL_ERROR', `limit must be a whole number, got "${query.limit}"`);
    limit = Number(query.limit);
    if (limit < 1 || limit > limits.maxLimit) {
      throw badRequest('GENERAL_ERROR', `limit must be between 1 and ${limits.maxLimit}, got ${limit}`);
    }
  }
  const after = query.start_after_id !== undefined && query.start_after_id !== '';
  const before = query.end_before_id !== undefined && query.end_before_id !== '';
  if (after && before) throw badRequest('GENERAL_ERROR', 'start_after_id and end_before_id cannot be combined');
  if (after) return { direction: 'after', limit, cursor: parseId('start_after_id', query.start_after_id!) };
  if (before) return { direction: 'before', limit, cursor: parseId('end_before_id', query.end_before_id!) };
  return { direction: 'first', limit };
}

/**
 * Builds the page from what the store returned. `fetched` holds up to limit + 1 items in
 * the order they were read (descending for first/after, ascending for before); the extra
 * item tells whether more exist in the reading direction. `existsBeyond` answers whether
 * any item lies past the far end of the page in the other direction.
 */
export function buildPage<T extends { id: number }>(
  request: PageRequest,
  fetched: T[],
  existsBeyond: { newer: boolean; older: boolean },
): Page<T> {
  const moreInReadingDirection = fetched.length > request.limit;
  const kept = fetched.slice(0, request.limit);
  const items = request.direction === 'before' ? kept.reverse() : kept;
  const page: Page<T> = { items };
  if (items.length === 0) return page;
  const hasOlder = request.direction === 'before' ? existsBeyond.older : moreInReadingDirection;
  const hasNewer = request.direction === 'before' ? moreInReadingDirection : request.direction === 'after' && existsBeyond.newer;
  if (hasOlder) page.next_page_starts_after = String(items[items.length - 1]!.id);
  if (hasNewer) page.previous_page_ends_before = String(items[0]!.id);
  return page;
}

/**
 * A page of a list held whole in memory, `sorted` in the list's order: the same pages and
 * cursors as buildPage gives a store's list. A cursor naming no item gives an empty page.
 */
export function pageOf<T extends { id: number }>(sorted: T[], request: PageRequest): Page<T> {
  let start = 0;
  let end = Math.min(sorted.length, request.limit);
  if (request.direction !== 'first') {
    const at = sorted.findIndex((item) => item.id === request.cursor);
    if (at < 0) return { items: [] };
    start = request.direction === 'after' ? at + 1 : Math.max(0, at - request.limit);
    end = request.direction === 'after' ? Math.min(sorted.length, start + request.limit) : at;
  }
  const items = sorted.slice(start, end);
  const page: Page<T> = { items };
  if (items.length === 0) return page;
  if (end < sorted.length) page.next_page_starts_after = String(items[items.length - 1]!.id);
  if (start > 0) page.previous_page_ends_before = String(items[0]!.id);
  return page;
}
