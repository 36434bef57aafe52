import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { buildPage, PageSelector, pageOf, parsePageRequest, type PageRequest } from '../../src/domain/pagination.js';
import { seededRandom } from '../../bench/lib/seededRandom.js';

const limits = { defaultLimit: 20, maxLimit: 100 };
const items = (...ids: number[]) => ids.map((id) => ({ id }));

describe('parsePageRequest', () => {
  it('defaults to the first page', () => {
    expect(parsePageRequest({}, limits)).toEqual({ direction: 'first', limit: 20 });
  });

  it('reads cursors and limits', () => {
    expect(parsePageRequest({ limit: '5', start_after_id: '10' }, limits)).toEqual({ direction: 'after', limit: 5, cursor: 10 });
    expect(parsePageRequest({ end_before_id: '3' }, limits)).toEqual({ direction: 'before', limit: 20, cursor: 3 });
  });

  it.each([
    [{ limit: '0' }, /between 1 and 100/],
    [{ limit: '101' }, /between 1 and 100/],
    [{ limit: 'ten' }, /whole number/],
    [{ start_after_id: '-1' }, /start_after_id/],
    [{ end_before_id: 'x' }, /end_before_id/],
    [{ start_after_id: '1', end_before_id: '2' }, /cannot be combined/],
  ])('rejects %o', (query, message) => {
    let error: unknown;
    try {
      parsePageRequest(query, limits);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toMatch(message);
  });
});

describe('buildPage', () => {
  it('first page: next cursor only when more items follow', () => {
    expect(buildPage({ direction: 'first', limit: 2 }, items(9, 8, 7), { newer: false, older: false })).toEqual({
      items: items(9, 8),
      next_page_starts_after: '8',
    });
    expect(buildPage({ direction: 'first', limit: 2 }, items(9, 8), { newer: false, older: false })).toEqual({ items: items(9, 8) });
  });

  it('after a cursor: previous cursor when newer items exist', () => {
    expect(buildPage({ direction: 'after', limit: 2, cursor: 8 }, items(7, 6), { newer: true, older: false })).toEqual({
      items: items(7, 6),
      previous_page_ends_before: '7',
    });
  });

  it('before a cursor: reads ascending, returns descending (ids 1..4, end_before 1, limit 2 -> [3, 2])', () => {
    expect(buildPage({ direction: 'before', limit: 2, cursor: 1 }, items(2, 3, 4), { newer: false, older: true })).toEqual({
      items: items(3, 2),
      next_page_starts_after: '2',
      previous_page_ends_before: '3',
    });
    expect(buildPage({ direction: 'before', limit: 2, cursor: 2 }, items(3, 4), { newer: false, older: true })).toEqual({
      items: items(4, 3),
      next_page_starts_after: '3',
    });
  });

  it('an empty page has no cursors', () => {
    expect(buildPage({ direction: 'after', limit: 2, cursor: 1 }, [], { newer: true, older: true })).toEqual({ items: [] });
  });
});

describe('pageOf (a list held in memory)', () => {
  const list = items(4, 3, 2, 1);

  it('pages like buildPage: first, after and before a cursor', () => {
    expect(pageOf(list, { direction: 'first', limit: 2 })).toEqual({ items: items(4, 3), next_page_starts_after: '3' });
    expect(pageOf(list, { direction: 'after', limit: 2, cursor: 3 })).toEqual({ items: items(2, 1), previous_page_ends_before: '2' });
    // ids 1..4, end_before 1, limit 2 -> [3, 2]
    expect(pageOf(list, { direction: 'before', limit: 2, cursor: 1 })).toEqual({ items: items(3, 2), next_page_starts_after: '2', previous_page_ends_before: '3' });
    expect(pageOf(list, { direction: 'before', limit: 2, cursor: 3 })).toEqual({ items: items(4), next_page_starts_after: '4' });
    expect(pageOf(list, { direction: 'first', limit: 4 })).toEqual({ items: list });
  });

  it('answers an empty page past either end and for a cursor naming nothing', () => {
    expect(pageOf(list, { direction: 'after', limit: 2, cursor: 1 })).toEqual({ items: [] });
    expect(pageOf(list, { direction: 'before', limit: 2, cursor: 4 })).toEqual({ items: [] });
    expect(pageOf(list, { direction: 'after', limit: 2, cursor: 9 })).toEqual({ items: [] });
  });
});

describe('PageSelector', () => {
  // Against pageOf on the whole list sorted: items offered in a shuffled order, a key with
  // ties broken by id (as the history's orders), every direction, cursors in and out of the list.
  interface Item {
    id: number;
    key: number;
  }
  const byKey = (ascending: boolean) => (a: Item, b: Item) => (a.key !== b.key ? (a.key < b.key ? -1 : 1) * (ascending ? 1 : -1) : a.id - b.id);
  // A seeded generator (the same lists every run).
  const next = seededRandom(7);
  const random = (n: number) => Math.floor(next() * n);

  it('gives the pages and cursors pageOf gives the sorted list', () => {
    let checked = 0;
    // Pages with both cursors: a page in the middle of a list longer than it.
    let both = 0;
    for (let round = 0; round < 300; round++) {
      const length = random(40);
      const list: Item[] = Array.from({ length }, (_, i) => ({ id: i * 3 + 1, key: random(8) }));
      const shuffled = [...list].sort(() => random(3) - 1);
      const compare = byKey(random(2) === 0);
      const sorted = [...list].sort(compare);
      const limit = 1 + random(6);
      const cursor = random(4) === 0 ? 2 : (list[random(Math.max(1, length))]?.id ?? 1);
      const requests: PageRequest[] = [
        { direction: 'first', limit },
        { direction: 'after', limit, cursor },
        { direction: 'before', limit, cursor },
      ];
      for (const request of requests) {
        const cursorItem = list.find((item) => request.direction !== 'first' && item.id === request.cursor) ?? null;
        const selector = new PageSelector(compare, request, cursorItem);
        for (const item of shuffled) selector.offer(item);
        const expected = pageOf(sorted, request);
        expect(selector.page(), `${JSON.stringify(request)} of ${length}`).toEqual(expected);
        checked++;
        if (expected.next_page_starts_after && expected.previous_page_ends_before) both++;
      }
    }
    expect(checked).toBe(900);
    expect(both).toBeGreaterThan(100);
  });
});

