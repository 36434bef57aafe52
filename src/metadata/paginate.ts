import type { Collection, Document, Filter } from 'mongodb';
import { buildPage, type Page, type PageRequest } from '../domain/pagination.js';

/**
 * Runs a page request against a collection whose `_id` is an integer id, newest first.
 * One query for the page (limit + 1 to see whether more follow) and, only when the
 * request came with a cursor, one existence check in the other direction.
 */
export async function paginate<D extends Document & { _id: number }, T extends { id: number }>(
  collection: Collection<D>,
  baseFilter: Filter<D>,
  request: PageRequest,
  toItem: (doc: D) => T,
): Promise<Page<T>> {
  const idFilter =
    request.direction === 'after' ? { _id: { $lt: request.cursor } } : request.direction === 'before' ? { _id: { $gt: request.cursor } } : {};
  const order = request.direction === 'before' ? 1 : -1;
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
    newer = (await collection.findOne({ ...baseFilter, _id: { $gt: firstId } } as Filter<D>, { projection: { _id: 1 } })) !== null;
  }
  if (kept.length > 0 && request.direction === 'before') {
    const oldestId = kept[kept.length - 1]!.id;
    older = (await collection.findOne({ ...baseFilter, _id: { $lt: oldestId } } as Filter<D>, { projection: { _id: 1 } })) !== null;
  }
  return buildPage(request, fetched, { newer, older });
}

/** A case-insensitive substring match on any of the fields, with the user's text escaped. */
export function containsFilter(text: string, fields: string[]): Document {
  const pattern = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { $or: fields.map((field) => ({ [field]: { $regex: pattern, $options: 'i' } })) };
}
