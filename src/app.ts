import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { ApiDeps } from './api/deps.js';
import { Metrics } from './http/metrics.js';
import { buildRoutes } from './http/router.js';
import { HttpServer } from './http/server.js';
import { loadUws } from './http/uws.js';
import { HoldTokens } from './inventory/holdTokens.js';
import { closeRedis, connectRedis } from './inventory/redis.js';
import { defineScripts } from './inventory/scripts.js';
import { InvalidationBus } from './metadata/invalidationBus.js';
import { connectMongo } from './metadata/mongo.js';
import { repositories } from './metadata/repositories.js';
import { TenantCache } from './metadata/tenantCache.js';

// Wires the server together: connections, caches, routes, the HTTP listener. main.ts,
// the dev launcher and the tests all start the server through startApp.

export interface RunningApp {
  port: number;
  deps: ApiDeps;
  /** Stops accepting, lets in-flight requests finish, closes every connection. True if none was cut. */
  shutdown(timeoutMs: number): Promise<boolean>;
}

const STARTUP_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 2_000;
/** Shutdown keeps accepting until requests stop arriving for this long (see drainAccepted). */
const ACCEPT_QUIET_MS = 100;
const ACCEPT_DRAIN_MAX_MS = 1_000;

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${STARTUP_TIMEOUT_MS / 1000} s`)), STARTUP_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const uws = loadUws();

  const redis = connectRedis(config.redisUrl, 'seatsio-commands', logger, config.redisKeyPrefix);
  const subscriber = connectRedis(config.redisUrl, 'seatsio-invalidation', logger);
  let metadata;
  try {
    await within(redis.ping(), `Redis at ${config.redisUrl}`);
    metadata = await within(connectMongo(config.mongodbUrl, config.mongodbDb), `MongoDB at ${config.mongodbUrl}`);
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    throw error;
  }

  const bus = new InvalidationBus(redis, subscriber);
  await bus.start();
  const repos = repositories(metadata.db);
  const tenants = new TenantCache(repos.companies, repos.workspaces, bus);
  const metrics = new Metrics();

  let server: HttpServer | undefined;
  const scripts = defineScripts(redis);
  const holdTokens = new HoldTokens(redis, scripts);
  const deps: ApiDeps = {
    repos,
    tenants,
    bus,
    redis,
    db: metadata.db,
    metrics,
    holdTokens,
    scripts,
    publicUrl: config.publicUrl,
    inFlightRequests: () => server?.inFlightRequests ?? 0,
    isDraining: () => server?.isDraining ?? false,
  };
  server = new HttpServer({
    uws,
    routes: buildRoutes(deps),
    tenants,
    metrics,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    systemApiSecret: config.systemApiSecret,
  });
  const port = await server.listen(config.host, config.port);
  const http = server;

  return {
    port,
    deps,
    async shutdown(timeoutMs: number): Promise<boolean> {
      const started = Date.now();
      await http.drainAccepted(ACCEPT_QUIET_MS, Math.min(ACCEPT_DRAIN_MAX_MS, timeoutMs));
      http.stopAccepting();
      logger.info({ inFlight: http.inFlightRequests }, 'stopped accepting connections; finishing in-flight requests');
      const drained = await http.waitForIdle(Math.max(0, timeoutMs - (Date.now() - started)));
      if (!drained) logger.warn({ inFlight: http.inFlightRequests }, 'shutdown timeout: closing with requests in flight');
      http.closeConnections();
      await Promise.all([closeRedis(redis, CLOSE_TIMEOUT_MS), closeRedis(subscriber, CLOSE_TIMEOUT_MS)]);
      // Like QUIT, closing MongoDB can wait on a server that is gone: bound it too.
      await Promise.race([metadata.client.close(true), new Promise((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS).unref())]);
      return drained;
    },
  };
}
