import { expect } from 'vitest';

// Cursor pagination as every list route pages (docs/seatsio-behaviour.md, "Pagination"): newest first, at most
// `limit` items, `start_after_id` and `end_before_id` cursors handed out as strings.

export interface CursorPage {
  items: { id: number }[];
  next_page_starts_after?: string;
  previous_page_ends_before?: string;
}

/** GETs one page of the list at `path` (asserting the status there). */
export type ListPage<P extends CursorPage> = (path: string) => Promise<P>;

const ids = (page: CursorPage) => page.items.map((item) => item.id);
const withQuery = (basePath: string, query: string) => basePath + (basePath.includes('?') ? '&' : '?') + query;

/**
 * Walks the whole list forward in pages of `pageSize` (start_after_id) and back again from the
 * last page (end_before_id), asserting each page's ids and exact cursors: the next cursor is the
 * last id of every page but the last, the previous cursor the first id of every page but the
 * first. `allIdsNewestFirst` is the whole list and must span more than one page.
 */
export async function expectCursorWalk<P extends CursorPage>(
  list: ListPage<P>,
  basePath: string,
  allIdsNewestFirst: number[],
  pageSize: number,
): Promise<void> {
  const all = allIdsNewestFirst;
  if (all.length <= pageSize) throw new Error('expectCursorWalk needs a list of more than one page');
  const expected: number[][] = [];
  for (let i = 0; i < all.length; i += pageSize) expected.push(all.slice(i, i + pageSize));

  // Forward.
  const forward: P[] = [];
  let path = withQuery(basePath, `limit=${pageSize}`);
  for (;;) {
    const page = await list(path);
    forward.push(page);
    if (page.next_page_starts_after === undefined) break;
    expect(forward.length).toBeLessThan(expected.length + 2);
    path = withQuery(basePath, `limit=${pageSize}&start_after_id=${page.next_page_starts_after}`);
  }
  expect(forward.map(ids)).toEqual(expected);
  forward.forEach((page, i) => {
    const pageIds = expected[i]!;
    if (i === forward.length - 1) expect(page).not.toHaveProperty('next_page_starts_after');
    else expect(page.next_page_starts_after).toBe(String(pageIds[pageIds.length - 1]));
    if (i === 0) expect(page).not.toHaveProperty('previous_page_ends_before');
    else expect(page.previous_page_ends_before).toBe(String(pageIds[0]));
  });

  // Backward from the last page, back to the first: the same pages again.
  let later = forward[forward.length - 1]!;
  for (let i = forward.length - 2; i >= 0; i--) {
    const page = await list(withQuery(basePath, `limit=${pageSize}&end_before_id=${later.previous_page_ends_before}`));
    expect(page).toEqual(forward[i]);
    later = page;
  }
}

/**
 * `end_before_id=allIdsNewestFirst[index]`: the `limit` items above it closest to it, still newest
 * first, with a next cursor and, unless the page reaches the top of the list, a previous one.
 */
export async function expectPageEndingBefore<P extends CursorPage>(
  list: ListPage<P>,
  basePath: string,
  allIdsNewestFirst: number[],
  index: number,
  limit: number,
): Promise<void> {
  const all = allIdsNewestFirst;
  const from = Math.max(0, index - limit);
  const page = await list(withQuery(basePath, `limit=${limit}&end_before_id=${all[index]}`));
  expect(ids(page)).toEqual(all.slice(from, index));
  expect(page.next_page_starts_after).toBe(String(all[index - 1]));
  if (from === 0) expect(page).not.toHaveProperty('previous_page_ends_before');
  else expect(page.previous_page_ends_before).toBe(String(all[from]));
}
