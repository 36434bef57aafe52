import type { MongoClient } from 'mongodb';
import { decodeBatch, type StatusChangeRecord } from '../../src/domain/statusChangeHistory.js';

// Reading what the history drain stored (docs/history.md, "Stored in batches"), straight
// from MongoDB, for the tests of the drain and of hold expiry.

/** The stored history of an event, oldest first. */
export async function storedHistory(mongo: MongoClient, database: string, eventId: number): Promise<StatusChangeRecord[]> {
  const batches = await mongo.db(database).collection('statusChanges').find({ eventId }).sort({ first: 1 }).toArray();
  return batches.flatMap((batch) => decodeBatch(eventId, batch.first, batch.entries));
}
