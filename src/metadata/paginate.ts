import type { Collection, Document, Filter } from 'mongodb';
import { buildPage, type Page, type PageRequest } from '../domain/pagination.js';

/** The order of a list: by `field`, ties newest first (the id descending). */
export interface ListOrder {
  field: string;
  ascending: boolean;
}

/**
 * Runs a page request against a collection whose `_id` is an integer id, newest first.
 */
export function paginate<D extends Document & { _id: number }, T extends { id: number }>(
  collection: Collection<D>,
  baseFilter: Filter<D>,
  request: PageRequest,
  toItem: (doc: D) => T,
): Promise<Page<T>> {
  return paginateInOrder(collection, baseFilter, request, { field: '_id', ascending: false }, '_id', toItem);
}

/**
 * Runs a page request in any order (src/domain/pagination.ts says what a page is). Items
 * are named by the integer in `idField`; a cursor names the item a page starts after or
 * ends before, so with an order by another field the cursor's item is read first to find
 * its place. One query for the page (limit + 1 to see whether more follow) and, only when
 * the request came with a cursor, one existence check in the other direction.
 */
export async function paginateInOrder<D extends Document, T extends { id: number }>(
  collection: Collection<D>,
  baseFilter: Filter<D>,
  request: PageRequest,
  order: ListOrder,
  idField: string,
  toItem: (doc: D) => T,
): Promise<Page<T>> {
  const byId = order.field === idField;
  const forward: Record<string, 1 | -1> = byId ? { [idField]: order.ascending ? 1 : -1 } : { [order.field]: order.ascending ? 1 : -1, [idField]: -1 };
  const backward = Object.fromEntries(Object.entries(forward).map(([field, direction]) => [field, -direction])) as Record<string, 1 | -1>;
  // Where an item stands in the order: its sort value (read once per cursor) and its id.
  const positionOf = async (id: number): Promise<{ value: unknown; id: number } | null> => {
    if (byId) return { value: id, id };
    const doc = await collection.findOne({ ...baseFilter, [idField]: id } as Filter<D>, { projection: { [order.field]: 1 } });
    return doc ? { value: (doc as Document)[order.field], id } : null;
  };
  // The items after (or before) a position in the order.
  const beyond = (at: { value: unknown; id: number }, after: boolean): Document => {
    const later = after === order.ascending ? '$gt' : '$lt';
    if (byId) return { [idField]: { [later]: at.id } };
    return { $or: [{ [order.field]: { [later]: at.value } }, { [order.field]: at.value, [idField]: { [after ? '$lt' : '$gt']: at.id } }] };
  };
  const placeOf = (doc: D) => ({ value: (doc as Document)[order.field], id: (doc as Document)[idField] as number });
  const find = async (extra: Document, sort: Record<string, 1 | -1>, limit: number) =>
    (await collection
      // $and: both may be an $or (a name filter, a position in the order).
      .find((Object.keys(extra).length === 0 ? baseFilter : { $and: [baseFilter, extra] }) as Filter<D>)
      .sort(sort)
      .limit(limit)
      .toArray()) as D[];

  const cursor = request.direction === 'first' ? null : await positionOf(request.cursor);
  if (request.direction !== 'first' && !cursor) return { items: [] };
  const after = request.direction !== 'before';
  const docs = await find(cursor ? beyond(cursor, after) : {}, after ? forward : backward, request.limit + 1);
  const fetched = docs.map(toItem);
  const kept = docs.slice(0, request.limit);
  let newer = false;
  let older = false;
  if (kept.length > 0 && request.direction === 'after') {
    newer = (await find(beyond(placeOf(kept[0]!), false), backward, 1)).length > 0;
  }
  if (kept.length > 0 && request.direction === 'before') {
    older = (await find(beyond(placeOf(kept[kept.length - 1]!), true), forward, 1)).length > 0;
  }
  return buildPage(request, fetched, { newer, older });
}

/** A case-insensitive substring match on any of the fields, with the user's text escaped. */
export function containsFilter(text: string, fields: string[]): Document {
  const pattern = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { $or: fields.map((field) => ({ [field]: { $regex: pattern, $options: 'i' } })) };
}
