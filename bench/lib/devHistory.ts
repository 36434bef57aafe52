import { MongoClient } from 'mongodb';
import { DEFAULT_MONGODB_DB } from '../../src/config.js';
import { HISTORY_COLLECTION } from '../../src/metadata/statusChangeHistory.js';

// The stored history in the development MongoDB that the bench's server started (jongodb, as
// `npm run dev` starts it), emptied between scenarios (bench/lib/settle.ts). jongodb checks
// every write against its unique `_id` index by walking a list of the collection's
// documents and comparing each with all before it, so each insert costs in proportion to the
// square of the documents the collection holds (`node dist/bench/devMongoInserts.js`;
// docs/benchmarks.md, "Order, settling and warm-up"). By the scenarios after book2 a whole run's
// history made that process take a quarter of the machine and more, beside the server and
// Redis it is meant to be measured without; MongoDB itself finds an `_id` in its index. Only
// a MongoDB the server started for itself (its "MongoDB" line at start-up) is touched: never
// one named by MONGODB_URL.

export interface DevHistory {
  /** Deletes the stored history; how many batches it held. */
  clear(): Promise<number>;
  close(): Promise<void>;
}

/** The history of the MongoDB the server printed as its own, or undefined when it printed none. */
export async function devHistoryOf(serverOutput: string): Promise<DevHistory | undefined> {
  const url = /MongoDB\s+(mongodb:\/\/\S+)\s+\(private in-memory/.exec(serverOutput)?.[1];
  if (!url) return undefined;
  const client = await new MongoClient(url).connect();
  const collection = client.db(DEFAULT_MONGODB_DB).collection(HISTORY_COLLECTION);
  return {
    clear: async () => (await collection.deleteMany({})).deletedCount,
    close: () => client.close(),
  };
}
