import type { Logger } from 'pino';
import { compose, type AppParts } from './compose.js';
import { CLOSE_TIMEOUT_MS, STARTUP_TIMEOUT_MS } from './readers.js';
import type { Config } from './config.js';
import { routeTableOf } from './http/routeTable.js';
import { HttpServer } from './http/server.js';
import { loadUws } from './http/uws.js';
import { closeRedis, connected, connectRedis, describeTarget, settleStrayRejections } from './inventory/redis.js';
import { BackgroundJobs } from './jobs/backgroundJobs.js';
import { InvalidationBus } from './metadata/invalidationBus.js';
import { connectMongo } from './metadata/mongo.js';
import { storeOutageAnswer } from './services/storeOutage.js';
import { openFileLimit } from './util/openFileLimit.js';
import { settleWithin, withTimeout } from './util/timeout.js';

// Starts the server: connections, the parts composed in compose.ts, the background jobs
// (unless BACKGROUND_JOBS=off), the HTTP listener; and stops it again. main.ts, the dev
// launcher and the tests start it through startApp; src/worker.ts (`npm run worker`) starts
// the background jobs alone through startWorker.

export interface RunningApp {
  port: number;
  parts: AppParts;
  /** Stops accepting, lets in-flight requests finish, closes every connection. True if none was cut. */
  shutdown(timeoutMs: number): Promise<boolean>;
}

/** Shutdown keeps accepting until requests stop arriving for this long (see drainAccepted). */
const ACCEPT_QUIET_MS = 100;
const ACCEPT_DRAIN_MAX_MS = 1_000;

/** The connections and the parts composed on them; `close` ends every connection. */
interface Core {
  parts: AppParts;
  close(): Promise<void>;
}

async function connect(config: Config, logger: Logger): Promise<Core> {
  settleStrayRejections(logger);
  const commands = { keyPrefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs };
  const redis = connectRedis(config.redis, 'seatsio-commands', logger, commands);
  // No command timeout here: AtMostOnceCalls bounds each status change itself, and a
  // timeout of ioredis's would race it and hide whether the change was applied.
  const statusRedis = connectRedis(config.redis, 'seatsio-status-changes', logger, { keyPrefix: config.redisKeyPrefix, resendUnanswered: false });
  const subscriber = connectRedis(config.redis, 'seatsio-invalidation', logger);
  // BullMQ puts its own prefix in front of its keys: this connection has none of ioredis's.
  const jobsRedis = connectRedis(config.redis, 'seatsio-jobs', logger, { timeoutMs: config.redisTimeoutMs });
  const redisConnections = [redis, statusRedis, subscriber, jobsRedis];
  let metadata;
  try {
    const redisUp = Promise.all([connected(redis), connected(statusRedis)]);
    // Through sentinels the primary may be failing over: the server waits for one, saying
    // in its log every 10 s why it is not ready (src/inventory/redis.ts), rather than exit
    // and be restarted into the same wait.
    if ('sentinels' in config.redis) await redisUp;
    else await withTimeout(redisUp, STARTUP_TIMEOUT_MS, `Redis at ${describeTarget(config.redis)}`);
    metadata = await withTimeout(connectMongo(config.mongodbUrl, config.mongodbDb), STARTUP_TIMEOUT_MS, `MongoDB at ${config.mongodbUrl}`);
  } catch (error) {
    for (const connection of redisConnections) connection.disconnect();
    throw error;
  }

  const bus = new InvalidationBus(redis, subscriber);
  await bus.start();
  const parts = compose({ redis, statusRedis, db: metadata.db, bus, jobsRedis }, config, logger);
  const client = metadata.client;
  return {
    parts,
    async close() {
      parts.redisClock.stop();
      await settleWithin(parts.reports.stop(), CLOSE_TIMEOUT_MS);
      await settleWithin(parts.statusStream.close(), CLOSE_TIMEOUT_MS);
      // The last changes' streams reach the drain's list (the sweep would find them too, later),
      // and tokens that stopped holding lose their expiry jobs (else those find nothing).
      await settleWithin(Promise.all([parts.historyStreams.flush(), parts.holdExpiry.close()]), CLOSE_TIMEOUT_MS);
      await Promise.all(redisConnections.map((connection) => closeRedis(connection, CLOSE_TIMEOUT_MS)));
      // Like QUIT, closing MongoDB can wait on a server that is gone: bound it too.
      await settleWithin(client.close(true), CLOSE_TIMEOUT_MS);
    },
  };
}

/**
 * Files this process holds besides its status stream subscribers' sockets: HTTP connections,
 * Redis and MongoDB connections, files.
 */
const OTHER_OPEN_FILES = 1_000;

/** The open-file limit the server runs with, and a warning when its subscribers could not all connect (docs/operations.md, "Open files"). */
function logOpenFileLimit(config: Config, logger: Logger): void {
  const limit = openFileLimit();
  const needed = config.statusStream.maxSubscribers + OTHER_OPEN_FILES;
  logger.info({ openFileLimit: limit ?? 'unknown', statusStreamMaxSubscribers: config.statusStream.maxSubscribers }, 'open-file limit');
  if (limit !== undefined && limit < needed) {
    logger.warn({ openFileLimit: limit, needed }, `the open-file limit (${limit}) is below STREAM_MAX_SUBSCRIBERS plus ${OTHER_OPEN_FILES} (${needed}): raise it (ulimit -n, LimitNOFILE, docker --ulimit nofile) or lower STREAM_MAX_SUBSCRIBERS`);
  }
}

const backgroundJobs = (parts: AppParts, config: Config, logger: Logger) =>
  new BackgroundJobs(parts.historyDrain, parts.historyStreams, parts.holdExpiry, { redis: config.redis, keyPrefix: config.redisKeyPrefix, logger, reconnects: parts.jobsRedis });

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const uws = loadUws();
  const { parts, close } = await connect(config, logger);
  // The background jobs run on this event loop, on the server's own connections: a worker
  // thread of their own cost 70 MB idle and 100-150 MB under load (V8's flags size every
  // isolate's heap alike) for no measurable gain in latency. Given a young generation of its
  // own, the drain's thread took its pauses off the event loop but not its CPU off the
  // process, and cost 30-60 MB at the peak (docs/performance.md, "The background jobs on the
  // event loop"). A deployment that wants the jobs away from the sales flow runs `npm run
  // worker` instead.
  const jobs = config.backgroundJobs ? backgroundJobs(parts, config, logger) : undefined;
  await jobs?.start();
  const http = new HttpServer({
    uws,
    routes: routeTableOf(parts.routes),
    status: parts.status,
    tenants: parts.tenants,
    metrics: parts.metrics,
    concurrency: parts.concurrency,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    systemApiSecret: config.systemApiSecret,
    outageAnswer: storeOutageAnswer,
    webSockets: parts.webSockets,
  });
  let port: number;
  try {
    port = await http.listen(config.host, config.port);
  } catch (error) {
    // Nothing may keep running: the jobs and connections are this server's.
    if (jobs) await settleWithin(jobs.stop(), CLOSE_TIMEOUT_MS);
    await close();
    throw error;
  }

  logOpenFileLimit(config, logger);
  return {
    port,
    parts,
    async shutdown(timeoutMs: number): Promise<boolean> {
      const started = Date.now();
      await http.drainAccepted(ACCEPT_QUIET_MS, Math.min(ACCEPT_DRAIN_MAX_MS, timeoutMs));
      http.stopAccepting();
      logger.info({ inFlight: http.inFlightRequests }, 'stopped accepting connections; finishing in-flight requests');
      const drained = await http.waitForIdle(Math.max(0, timeoutMs - (Date.now() - started)));
      if (!drained) logger.warn({ inFlight: http.inFlightRequests }, 'shutdown timeout: closing with requests in flight');
      // Subscribers are told the server is going (1001), so they resume elsewhere with `since`.
      await parts.statusStream.close();
      http.closeConnections();
      if (jobs) await settleWithin(jobs.stop(), CLOSE_TIMEOUT_MS * 2);
      await close();
      return drained;
    },
  };
}

export interface RunningWorker {
  parts: AppParts;
  stop(): Promise<void>;
}

/** The background jobs without the HTTP server (`npm run worker`, src/worker.ts). */
export async function startWorker(config: Config, logger: Logger): Promise<RunningWorker> {
  const { parts, close } = await connect(config, logger);
  const jobs = backgroundJobs(parts, config, logger);
  await jobs.start();
  return {
    parts,
    async stop() {
      await settleWithin(jobs.stop(), CLOSE_TIMEOUT_MS);
      await close();
    },
  };
}
