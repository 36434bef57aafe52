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
 * The plain statement of what PageSelector computes without the whole list (its unit test
 * checks the two agree).
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

/**
 * pageOf for a list too long to hold and sort at once: items are offered one by one, in any
 * order, and only those that can still be on the page are kept (at most limit + 1, in a
 * heap), so a page of a list of n items costs n log(limit) comparisons and limit items of
 * memory. `compare` orders the list (a total order: ties broken by id); `cursorItem` is the
 * cursor's item for a page after or before one, null when the list has none (an empty page,
 * as pageOf gives).
 */
export class PageSelector<T extends { id: number }> {
  private readonly kept: BoundedHeap<T>;

  constructor(
    private readonly compare: (a: T, b: T) => number,
    private readonly request: PageRequest,
    private readonly cursorItem: T | null,
  ) {
    // A page after the cursor (or the first) keeps the items that come first in the list's
    // order; a page before it, those that come last: the heap's top is the one to drop.
    const keepLast = request.direction === 'before';
    this.kept = new BoundedHeap(request.limit + 1, keepLast ? (a, b) => compare(b, a) : compare);
  }

  offer(item: T): void {
    const { cursorItem } = this;
    if (this.request.direction !== 'first') {
      if (!cursorItem) return;
      const side = this.compare(item, cursorItem);
      if (this.request.direction === 'after' ? side <= 0 : side >= 0) return;
    }
    this.kept.offer(item);
  }

  page(): Page<T> {
    const { limit, direction } = this.request;
    if (direction !== 'first' && !this.cursorItem) return { items: [] };
    const kept = this.kept.items().sort(this.compare);
    const more = kept.length > limit;
    // Before the cursor, the page is the last `limit` of what precedes it; the cursor itself follows.
    const items = direction === 'before' ? kept.slice(kept.length - Math.min(limit, kept.length)) : kept.slice(0, limit);
    const page: Page<T> = { items };
    if (items.length === 0) return page;
    if (direction === 'before' || more) page.next_page_starts_after = String(items[items.length - 1]!.id);
    if (direction === 'after' || (direction === 'before' && more)) page.previous_page_ends_before = String(items[0]!.id);
    return page;
  }
}

/** The `size` items that come first by `compare` among those offered; the heap's top is the last of them. */
class BoundedHeap<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly size: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  offer(item: T): void {
    const { heap, compare } = this;
    if (heap.length < this.size) {
      heap.push(item);
      this.up(heap.length - 1);
    } else if (compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.down(0);
    }
  }

  items(): T[] {
    return [...this.heap];
  }

  /** Max-heap by `compare`: a parent comes after its children. */
  private up(at: number): void {
    const { heap, compare } = this;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (compare(heap[at]!, heap[parent]!) <= 0) return;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  }

  private down(at: number): void {
    const { heap, compare } = this;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let last = at;
      if (left < heap.length && compare(heap[left]!, heap[last]!) > 0) last = left;
      if (right < heap.length && compare(heap[right]!, heap[last]!) > 0) last = right;
      if (last === at) return;
      [heap[at], heap[last]] = [heap[last]!, heap[at]!];
      at = last;
    }
  }
}
