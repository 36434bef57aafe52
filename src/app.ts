import type { Logger } from 'pino';
import { compose, type AppParts } from './compose.js';
import type { Config } from './config.js';
import { routeTableOf } from './http/routeTable.js';
import { HttpServer } from './http/server.js';
import { loadUws } from './http/uws.js';
import { closeRedis, connected, connectRedis, redisOutageAnswer } from './inventory/redis.js';
import { InvalidationBus } from './metadata/invalidationBus.js';
import { connectMongo } from './metadata/mongo.js';
import { settleWithin, withTimeout } from './util/timeout.js';

// Starts the server: connections, the parts composed in compose.ts, the HTTP listener;
// and stops it again. main.ts, the dev launcher and the tests all start it through startApp.

export interface RunningApp {
  port: number;
  parts: AppParts;
  /** Stops accepting, lets in-flight requests finish, closes every connection. True if none was cut. */
  shutdown(timeoutMs: number): Promise<boolean>;
}

const STARTUP_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 2_000;
/** Shutdown keeps accepting until requests stop arriving for this long (see drainAccepted). */
const ACCEPT_QUIET_MS = 100;
const ACCEPT_DRAIN_MAX_MS = 1_000;

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const uws = loadUws();

  const commands = { keyPrefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs };
  const redis = connectRedis(config.redisUrl, 'seatsio-commands', logger, commands);
  // No command timeout here: AtMostOnceCalls bounds each status change itself, and a
  // timeout of ioredis's would race it and hide whether the change was applied.
  const statusRedis = connectRedis(config.redisUrl, 'seatsio-status-changes', logger, { keyPrefix: config.redisKeyPrefix, resendUnanswered: false });
  const subscriber = connectRedis(config.redisUrl, 'seatsio-invalidation', logger);
  const redisConnections = [redis, statusRedis, subscriber];
  let metadata;
  try {
    await withTimeout(Promise.all([connected(redis), connected(statusRedis)]), STARTUP_TIMEOUT_MS, `Redis at ${config.redisUrl}`);
    metadata = await withTimeout(connectMongo(config.mongodbUrl, config.mongodbDb), STARTUP_TIMEOUT_MS, `MongoDB at ${config.mongodbUrl}`);
  } catch (error) {
    for (const connection of redisConnections) connection.disconnect();
    throw error;
  }

  const bus = new InvalidationBus(redis, subscriber);
  await bus.start();
  const parts = compose({ redis, statusRedis, db: metadata.db, bus }, config);
  const http = new HttpServer({
    uws,
    routes: routeTableOf(parts.routes),
    status: parts.status,
    tenants: parts.tenants,
    metrics: parts.metrics,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    systemApiSecret: config.systemApiSecret,
    outageAnswer: redisOutageAnswer,
  });
  const port = await http.listen(config.host, config.port);

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
      http.closeConnections();
      parts.redisClock.stop();
      await Promise.all(redisConnections.map((connection) => closeRedis(connection, CLOSE_TIMEOUT_MS)));
      // Like QUIT, closing MongoDB can wait on a server that is gone: bound it too.
      await settleWithin(metadata.client.close(true), CLOSE_TIMEOUT_MS);
      return drained;
    },
  };
}
