import type { Collection, Document, Filter } from 'mongodb';
import { buildPage, type Page, type PageRequest } from '../domain/pagination.js';

/**
 * Runs a page request against a collection whose `_id` is an integer id, newest first
 * (`oldestFirst`: the other way round, the event log's order). One query for the page
 * (limit + 1 to see whether more follow) and, only when the request came with a cursor,
 * one existence check in the other direction.
 */
export async function paginate<D extends Document & { _id: number }, T extends { id: number }>(
  collection: Collection<D>,
  baseFilter: Filter<D>,
  request: PageRequest,
  toItem: (doc: D) => T,
  oldestFirst = false,
): Promise<Page<T>> {
  // "later": further along the list; "earlier": before it.
  const later = oldestFirst ? '$gt' : '$lt';
  const earlier = oldestFirst ? '$lt' : '$gt';
  const idFilter =
    request.direction === 'after' ? { _id: { [later]: request.cursor } } : request.direction === 'before' ? { _id: { [earlier]: request.cursor } } : {};
  // Read along the list, or back from the cursor for a page that ends before it.
  const alongTheList: 1 | -1 = oldestFirst ? 1 : -1;
  const order = (request.direction === 'before' ? -alongTheList : alongTheList) as 1 | -1;
  const docs = (await collection
    .find({ ...baseFilter, ...idFilter } as Filter<D>)
    .sort({ _id: order })
    .limit(request.limit + 1)
    .toArray()) as D[];
  const fetched = docs.map(toItem);

  const kept = fetched.slice(0, request.limit);
  let newer = false;
  let older = false;
  if (kept.length > 0 && request.direction === 'after') {
    const firstId = kept[0]!.id;
    newer = (await collection.findOne({ ...baseFilter, _id: { [earlier]: firstId } } as Filter<D>, { projection: { _id: 1 } })) !== null;
  }
  if (kept.length > 0 && request.direction === 'before') {
    const lastId = kept[kept.length - 1]!.id;
    older = (await collection.findOne({ ...baseFilter, _id: { [later]: lastId } } as Filter<D>, { projection: { _id: 1 } })) !== null;
  }
  return buildPage(request, fetched, { newer, older });
}

/** A case-insensitive substring match on any of the fields, with the user's text escaped. */
export function containsFilter(text: string, fields: string[]): Document {
  const pattern = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { $or: fields.map((field) => ({ [field]: { $regex: pattern, $options: 'i' } })) };
}
