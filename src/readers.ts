import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { bulkReadsFor } from './inventory/bulkReader.js';
import { EventObjectStore } from './inventory/eventObjectStore.js';
import { closeRedis, connected, connectRedis, describeTarget, settleStrayRejections, type RedisClient } from './inventory/redis.js';
import { Scripts } from './inventory/scripts.js';
import { waitMsOf } from './inventory/replicaAcks.js';
import { SeasonStore } from './inventory/seasonStore.js';
import { InvalidationBus } from './metadata/invalidationBus.js';
import { connectMongo } from './metadata/mongo.js';
import { repositories, type Repositories } from './metadata/repositories.js';
import { EventCatalog } from './services/eventCatalog.js';
import { ObjectIndexes } from './services/objectIndexes.js';
import { ObjectInfoService } from './services/objectInfoService.js';
import { settleWithin, withTimeout } from './util/timeout.js';

// The reading half of the server: the parts that read events (composeReaders), which
// compose.ts builds the server on, and the connections of a reader thread (connectReaders:
// src/streamThread.ts, src/reportThread.ts). Apart from compose.ts and app.ts so that a reader thread loads
// what reading needs and not the routes, the jobs and the HTTP server: loading those too
// cost each thread some 13 MB more.

export const STARTUP_TIMEOUT_MS = 10_000;
export const CLOSE_TIMEOUT_MS = 2_000;

/** What a reader thread (src/streamThread.ts, src/reportThread.ts) connects to. */
export interface ReaderConnections {
  redis: RedisClient;
  /** The status function's connection, on the server's event loop; a reader thread has none (it changes no status). */
  statusRedis?: RedisClient;
  db: Db;
  bus: InvalidationBus;
}

/** The parts that read events: the server composes them, and so does each reader thread on its own connections. */
export interface ReaderParts {
  repos: Repositories;
  scripts: Scripts;
  eventObjects: EventObjectStore;
  indexes: ObjectIndexes;
  seasonStore: SeasonStore;
  catalog: EventCatalog;
  objectInfo: ObjectInfoService;
}

/**
 * `replicaAcks`: the server's writes wait for that many replicas; a reader thread writes nothing.
 * `bestAvailable`: whether object indexes prepare best available's tables as they are built:
 * the server's do; a reader thread never serves best available, and would spend some 0.3 s
 * and 6 MB per 100,000-seat chart on them.
 */
export function composeReaders(connections: ReaderConnections, config: Pick<Config, 'redisTimeoutMs'> & Partial<Pick<Config, 'replicaAcks'>>, options: { bestAvailable: boolean }): ReaderParts {
  const { redis, statusRedis, db, bus } = connections;
  const repos = repositories(db);
  // Writes answered only once REDIS_REPLICA_ACKS replicas have them (src/inventory/replicaAcks.ts).
  const scripts = new Scripts(redis, statusRedis ?? redis, undefined, { acks: config.replicaAcks ?? 0, waitMs: waitMsOf(config.redisTimeoutMs) });
  const eventObjects = new EventObjectStore(redis, bulkReadsFor(redis, config.redisTimeoutMs));
  // Kept coherent across processes (and threads) through the bus.
  const indexes = new ObjectIndexes(repos.charts, options.bestAvailable);
  const seasonStore = new SeasonStore(redis, scripts);
  const catalog = new EventCatalog(repos, indexes, bus, seasonStore);
  const objectInfo = new ObjectInfoService(catalog, eventObjects);
  return { repos, scripts, eventObjects, indexes, seasonStore, catalog, objectInfo };
}

/** A reader thread's connections (src/streamThread.ts, src/reportThread.ts): commands and invalidations on Redis, and MongoDB. */
export async function connectReaders(config: Config, logger: Logger): Promise<{ connections: ReaderConnections; close(): Promise<void> }> {
  settleStrayRejections(logger);
  const redis = connectRedis(config.redis, 'seatsio-reader', logger, { keyPrefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs });
  const subscriber = connectRedis(config.redis, 'seatsio-reader-invalidation', logger);
  let metadata;
  try {
    await withTimeout(connected(redis), STARTUP_TIMEOUT_MS, `Redis at ${describeTarget(config.redis)}`);
    metadata = await withTimeout(connectMongo(config.mongodbUrl, config.mongodbDb), STARTUP_TIMEOUT_MS, `MongoDB at ${config.mongodbUrl}`);
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    throw error;
  }
  const bus = new InvalidationBus(redis, subscriber);
  await bus.start();
  const client = metadata.client;
  return {
    connections: { redis, db: metadata.db, bus },
    async close() {
      await Promise.all([redis, subscriber].map((connection) => closeRedis(connection, CLOSE_TIMEOUT_MS)));
      await settleWithin(client.close(true), CLOSE_TIMEOUT_MS);
    },
  };
}
