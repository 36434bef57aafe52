import { MongoClient, type Db } from 'mongodb';
import { HISTORY_COLLECTION } from './statusChangeHistory.js';

export interface Metadata {
  client: MongoClient;
  db: Db;
}

export async function connectMongo(url: string, dbName: string): Promise<Metadata> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000 });
  await client.connect();
  const db = client.db(dbName);
  await ensureIndexes(db);
  return { client, db };
}

/** The history's batches (src/metadata/statusChangeHistory.ts): an event's, one object's. */
export const HISTORY_INDEXES = [{ eventId: 1, first: -1 }, { eventId: 1, labels: 1 }] as const;

/** Indexes are declared here, in one place, and created at start-up. */
async function ensureIndexes(db: Db): Promise<void> {
  await db.collection('companies').createIndex({ adminKey: 1 }, { unique: true });
  await db.collection('workspaces').createIndex({ key: 1 }, { unique: true });
  await db.collection('workspaces').createIndex({ secretKeys: 1 }, { unique: true });
  await db.collection('workspaces').createIndex({ companyId: 1, _id: -1 });
  await db.collection('charts').createIndex({ workspaceId: 1, key: 1 }, { unique: true });
  await db.collection('charts').createIndex({ workspaceId: 1, archived: 1, _id: -1 });
  await db.collection('events').createIndex({ workspaceId: 1, key: 1 }, { unique: true });
  await db.collection('events').createIndex({ chartId: 1, _id: -1 });
  await db.collection('eventLog').createIndex({ workspaceId: 1, _id: 1 });
  // A workspace's ticket buyer ids: each once (src/metadata/ticketBuyers.ts), listed newest first.
  await db.collection('ticketBuyers').createIndex({ workspaceId: 1, buyerId: 1 }, { unique: true });
  await db.collection('ticketBuyers').createIndex({ workspaceId: 1, _id: -1 });
  for (const index of HISTORY_INDEXES) await db.collection(HISTORY_COLLECTION).createIndex(index);
  // A season's units, read whenever one of them is loaded for the sales flow (Events.seasonFamily).
  await db.collection('events').createIndex({ 'season.topId': 1 });
}

export async function pingMongo(db: Db): Promise<void> {
  await db.command({ ping: 1 });
}
