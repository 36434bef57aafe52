import { MongoClient, MongoNetworkError, MongoServerSelectionError, type Db } from 'mongodb';
import { ApiError } from '../domain/errors.js';
import { HISTORY_COLLECTION } from './statusChangeHistory.js';

export interface Metadata {
  client: MongoClient;
  db: Db;
}

/**
 * Majority write concern on a replica set (the URL names one, or is `mongodb+srv://`, as a
 * hosted replica set is), unless the URL's own `w=` says otherwise: a metadata write is
 * acknowledged once most members have it, so a failover of MongoDB loses none
 * (docs/operations.md, "High availability"). A single node (the embedded one) has no replicas.
 */
export function writeConcernFor(url: string): { writeConcern?: { w: 'majority' } } {
  const params = new URL(url).searchParams;
  const replicaSet = params.has('replicaSet') || url.startsWith('mongodb+srv://');
  return replicaSet && !params.has('w') ? { writeConcern: { w: 'majority' } } : {};
}

/**
 * 503 for a request that failed because MongoDB could not be reached (a dropped connection, or
 * no server found within serverSelectionTimeoutMS), as for Redis (src/inventory/redis.ts,
 * redisOutageAnswer): the client may try again. Status changes read MongoDB only before they
 * reach Redis (the company and the event, when not cached), so one that fails here changed
 * nothing; an admin change may have been written before the connection dropped.
 */
export function mongoOutageAnswer(error: unknown): ApiError | undefined {
  if (!(error instanceof MongoNetworkError || error instanceof MongoServerSelectionError)) return undefined;
  return new ApiError(503, 'SERVICE_UNAVAILABLE', `The metadata store is unavailable (${error.message}). Try again; an admin change may have been made, so read it back first.`, {
    headers: { 'Retry-After': '1' },
  });
}

export async function connectMongo(url: string, dbName: string): Promise<Metadata> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5_000, connectTimeoutMS: 5_000, ...writeConcernFor(url) });
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
