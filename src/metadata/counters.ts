import { MongoServerError, type Db } from 'mongodb';

/** Next integer id of a sequence (workspace ids, company ids, ...); with `count`, the last of that many. */
export async function nextId(db: Db, sequence: string, count = 1): Promise<number> {
  const doc = await db
    .collection<{ _id: string; value: number }>('counters')
    .findOneAndUpdate({ _id: sequence }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error(`counter ${sequence} did not return a value`);
  return doc.value;
}

const MAX_ID_ATTEMPTS = 20;

/** A unique index refused the write (E11000). */
export const isDuplicateKey = (error: unknown): error is MongoServerError => error instanceof MongoServerError && error.code === 11000;

/** A unique index refused the write because of its `_id` (not another unique field). */
export const isDuplicateId = (error: unknown): error is MongoServerError =>
  isDuplicateKey(error) && (error.keyPattern?._id !== undefined || /index: _id_ /.test(error.message));

/**
 * Inserts with a freshly allocated id, allocating again if the id is taken. MongoDB's $inc
 * never hands out an id twice, but the in-memory wire server used for development and tests
 * does under concurrent calls; the unique _id makes that visible, and a retry repairs it.
 */
export async function insertWithNewId<T>(db: Db, sequence: string, insert: (id: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const id = await nextId(db, sequence);
    try {
      return await insert(id);
    } catch (error) {
      if (!isDuplicateId(error) || attempt >= MAX_ID_ATTEMPTS) throw error;
    }
  }
}
