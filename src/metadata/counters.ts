import type { Db } from 'mongodb';

/** Next integer id of a sequence (workspace ids, company ids, ...), atomic across processes. */
export async function nextId(db: Db, sequence: string): Promise<number> {
  const doc = await db
    .collection<{ _id: string; value: number }>('counters')
    .findOneAndUpdate({ _id: sequence }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
  if (!doc) throw new Error(`counter ${sequence} did not return a value`);
  return doc.value;
}
