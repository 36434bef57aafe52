import { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { settleWithin } from '../util/timeout.js';
import { ApiError } from '../domain/errors.js';

// Connections to Redis, bounded in every wait (docs/faults.md, "Outages"):
// - reconnects retry every 50-200 ms, so a Redis that comes back is used within a second;
// - a command waits at most `timeoutMs` for its answer (ioredis `commandTimeout`), and
//   commands queued while disconnected fail after a few reconnect attempts instead of
//   piling up for the whole outage.
// ioredis's auto-pipelining is off: each command is written when it is made. With it, the
// history drain's replies (an XRANGE of up to 1,000 changes) outlived the young generation:
// during a booking run about 5 MB was promoted per scavenge against 0.4 MB without, which
// cost a full collection every two seconds and about a tenth of the server's CPU per booking
// (docs/performance.md, "What outlives a scavenge"). Its pipelines also
// stalled for good after a dropped connection (src/inventory/scripts.ts). Script calls are
// still batched per turn of the event loop (Scripts, batched), and the status function's
// calls leave in one write per turn (corkForTheTurn).

/** Reconnect delays: 50, 100, 150, then every 200 ms. */
const retryStrategy = (attempt: number) => Math.min(attempt * 50, 200);
/** Reconnect attempts after which commands queued offline fail (about 2 s of them). */
const OFFLINE_ATTEMPTS = 10;

export interface RedisConnectionOptions {
  keyPrefix?: string;
  /** How long a command waits for its answer; undefined: no limit (pub/sub). */
  timeoutMs?: number;
  /**
   * False for the status script's connection: an unanswered command is not sent again after
   * a reconnect, since the script may have run (AtMostOnceCalls sends it again, safely).
   */
  resendUnanswered?: boolean;
}

/** A connection to one Redis, or to a Redis Cluster (docs/operations.md, "Redis Cluster"). */
export type RedisClient = Redis | Cluster;

/** A Redis's host and port. */
export interface RedisAddress {
  host: string;
  port: number;
}

/**
 * Where the inventory lives (config.ts): one Redis by URL, the primary that Redis Sentinels
 * watch under `name` (docs/operations.md, "High availability"), or the seed nodes of a cluster.
 */
export type RedisTarget =
  | { url: string }
  | { sentinels: RedisAddress[]; name: string; sentinelPassword?: string; password?: string }
  | { clusterNodes: RedisAddress[]; username?: string; password?: string };

export const isCluster = (redis: RedisClient): redis is Cluster => redis instanceof Cluster;

/** The masters of a cluster (each holds its share of the slots), or the one Redis. */
export const mastersOf = (redis: RedisClient): Redis[] => (isCluster(redis) ? redis.nodes('master') : [redis]);

/**
 * The keys matching `pattern` (which carries the key prefix: SCAN does not add it), a page
 * at a time, from every master: a cluster's keys are spread over them. A key whose slot
 * moves meanwhile may be seen twice or not at all; callers use this for hints and sweeps.
 */
export async function* scanKeys(redis: RedisClient, pattern: string, type?: string): AsyncGenerator<string[]> {
  for (const node of mastersOf(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = type
        ? await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000, 'TYPE', type)
        : await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) yield keys;
    } while (cursor !== '0');
  }
}

/** What a target is called in messages: the URL, or the cluster's seed nodes. */
export const describeTarget = (target: RedisTarget): string => {
  const list = (nodes: RedisAddress[]) => nodes.map((n) => `${n.host}:${n.port}`).join(',');
  if ('url' in target) return target.url;
  if ('sentinels' in target) return `the primary "${target.name}" of the sentinels at ${list(target.sentinels)}`;
  return `the cluster at ${list(target.clusterNodes)}`;
};

/** A node that is no longer (or not yet) the primary: the command did not run. */
export const NOT_PRIMARY = /^(READONLY|MASTERDOWN|LOADING) /;

/**
 * A primary that has fewer good replicas than its `min-replicas-to-write` asks for refuses a
 * write before running it (docs/operations.md, "High availability"): nothing changed.
 */
const TOO_FEW_REPLICAS = /^NOREPLICAS /;

/**
 * The 503 of a write the primary refused for want of replicas (TOO_FEW_REPLICAS), alone or as
 * the reason a MULTI was discarded (ioredis's EXECABORT carries its commands' errors): nothing
 * ran, so `applied` is false whatever the write was. Undefined for any other error.
 */
export function refusedForReplicas(error: unknown): ApiError | undefined {
  if (!(error instanceof Error)) return undefined;
  const reasons = [error, ...((error as { previousErrors?: Error[] }).previousErrors ?? [])];
  if (!reasons.some((reason) => TOO_FEW_REPLICAS.test(String(reason?.message)))) return undefined;
  return unavailable('the primary has fewer replicas following it than its min-replicas-to-write asks for', false);
}

/**
 * The connection closed under the command, which may or may not have run: ioredis's "Connection
 * is closed.", or its AbortError for the unanswered rest of a pipeline whose first commands
 * were answered (a status call's WAIT on a cluster, when the master dies while it waits).
 */
export const CONNECTION_LOST = /^(Connection is closed|Command aborted due to connection close)/;

/**
 * ioredis's options for the primary that sentinels watch: it asks them for the primary's
 * address on every (re)connect, taking the next sentinel each time, and checks that the node
 * it reaches is a primary. A primary killed drops its connections, which then reconnect to
 * whichever node the sentinels name; one demoted while its connections stay up answers
 * writes READONLY, which drops the connection too. (ioredis's own `failoverDetector` is
 * off: its +switch-master closed a connection that was reconnecting for good.) A round of
 * sentinels none of which led to a primary is tried again after half a second, for good:
 * the process waits, not ready, and says so in its log (connectRedis).
 */
export function sentinelOptions(target: Extract<RedisTarget, { sentinels: unknown }>) {
  return {
    sentinels: target.sentinels,
    name: target.name,
    sentinelPassword: target.sentinelPassword,
    password: target.password,
    sentinelRetryStrategy: () => 500,
    reconnectOnError: (error: Error) => NOT_PRIMARY.test(error.message),
  };
}

/** Connection errors go to the log (ioredis would print each retry to stderr otherwise). */
export function connectRedis(target: RedisTarget, name: string, logger: Logger, options: RedisConnectionOptions = {}): RedisClient {
  const perConnection = {
    connectionName: name,
    maxRetriesPerRequest: OFFLINE_ATTEMPTS,
    commandTimeout: options.timeoutMs,
    autoResendUnfulfilledCommands: options.resendUnanswered ?? true,
  };
  const single = { ...perConnection, keyPrefix: options.keyPrefix ?? '', enableAutoPipelining: false, lazyConnect: false, retryStrategy };
  const redis =
    'url' in target
      ? new Redis(target.url, single)
      : 'sentinels' in target
        ? new Redis({ ...single, ...sentinelOptions(target) })
        : // On a cluster ioredis follows MOVED and ASK itself, and waits out TRYAGAIN and
        // CLUSTERDOWN (a slot moving, a failover): none of those ran the command. A command
        // may be retried for 64 x 20 ms, about 1.3 s of a slot half moved, inside the 2 s
        // REDIS_TIMEOUT_MS by default.
        new Cluster(target.clusterNodes, {
          keyPrefix: options.keyPrefix ?? '',
          enableAutoPipelining: false,
          clusterRetryStrategy: retryStrategy,
          retryDelayOnTryAgain: 20,
          maxRedirections: 64,
          redisOptions: { ...perConnection, username: target.username, password: target.password },
        });
  if ('sentinels' in target) {
    // ioredis says "All sentinels are unreachable" through 'error' after each round of the
    // list (every second): said once every 10 s, naming what to fix.
    let told = 0;
    redis.on('error', (error: Error) => {
      if (!/^All sentinels are unreachable/.test(error.message)) return logger.warn({ connection: name, err: error.message }, 'redis connection error');
      if (Date.now() - told < 10_000) return;
      told = Date.now();
      logger.error({ connection: name, err: error.message }, `no primary "${target.name}" reached through REDIS_SENTINELS (no sentinel answered, or the node named refused or is no primary): waiting, not ready, until one is`);
    });
    redis.on('sentinelError', (error: Error) => logger.debug({ connection: name, err: error.message }, 'a sentinel did not answer'));
  } else {
    redis.on('error', (error: Error) => logger.warn({ connection: name, err: error.message }, 'redis connection error'));
  }
  if (isCluster(redis)) redis.on('node error', (error: Error, node: string) => logger.warn({ connection: name, node, err: error.message }, 'redis cluster node error'));
  if (options.timeoutMs !== undefined) {
    settleTimeouts(redis);
    if (isCluster(redis)) boundPipelines(redis, options.timeoutMs);
  }
  return redis;
}

const ignore = () => undefined;

/**
 * ioredis's command timeout rejects a command's promise when its time is up, whether or not
 * anything still waits for it. One nothing waits for any more (a command whose sender moved on,
 * or one ioredis sends itself around a reconnect) would be an unhandled rejection, and Node
 * ends the process on one: a failover would take the server down with it. Every command's
 * promise gets a handler of its own here; whoever awaits it still gets its error.
 */
function settleTimeouts(redis: RedisClient): void {
  const send = redis.sendCommand;
  (redis as { sendCommand: typeof send }).sendCommand = function sendSettled(this: RedisClient, command: Parameters<typeof send>[0], ...rest: unknown[]) {
    command.promise?.catch(ignore);
    return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
  } as typeof send;
}

/**
 * On a cluster, ioredis sends a pipeline again by itself while all its commands meet the same
 * failover error ("Connection is closed.", CLUSTERDOWN, TRYAGAIN), up to `maxRedirections`
 * times with a pause and a fresh slot map between: 6 to 17 s of a master killed, during which
 * the command timeout never applies (it is armed once, on a live node, and a retry on a node
 * that is gone fails before it). Its last error then reached the client as a 500. A pipeline's
 * (or a MULTI's) outcome is bounded here as a command's is: after `timeoutMs` it fails with the
 * command timeout's error (redisOutageAnswer: 503); what Redis does with it later goes nowhere.
 * Only the first `exec` is bounded: ioredis's own retries call it again on the same pipeline.
 */
function boundPipelines(cluster: Cluster, timeoutMs: number): void {
  for (const name of ['pipeline', 'multi'] as const) {
    const make = cluster[name] as (...args: unknown[]) => ReturnType<Cluster['pipeline']>;
    (cluster as unknown as Record<string, unknown>)[name] = function boundedPipeline(this: Cluster, ...args: unknown[]) {
      const pipeline = make.apply(this, args);
      const exec = pipeline.exec;
      let first = true;
      pipeline.exec = function boundedExec(this: typeof pipeline, ...execArgs: unknown[]) {
        const outcome = (exec as (...a: unknown[]) => ReturnType<typeof exec>).apply(this, execArgs);
        if (!first) return outcome;
        first = false;
        outcome.catch(ignore);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(COMMAND_TIMED_OUT)), timeoutMs);
          outcome.then(
            (results) => (clearTimeout(timer), resolve(results)),
            (error: unknown) => (clearTimeout(timer), reject(error)),
          );
        });
      } as typeof exec;
      return pipeline;
    };
  }
}

/** ioredis's error for a command that got no answer within its timeout. */
const COMMAND_TIMED_OUT = 'Command timed out';

/**
 * A cluster that does not serve the slot: it is failing over (CLUSTERDOWN), a slot is half
 * moved (TRYAGAIN), ioredis ran out of redirections following them, or could read no slot map
 * from any node. Nothing ran on a node that answered so; after a redirection, perhaps.
 */
const CLUSTER_NOT_SERVING = /^(CLUSTERDOWN |TRYAGAIN |Too many Cluster redirections|Failed to refresh slots cache)/;

/**
 * 503 for a request Redis did not serve. `applied` says what became of a status change:
 * false, nothing changed; 'unknown', it ran only if Redis applied it just before it stopped
 * answering, and it will not run later. Undefined for requests that change nothing.
 */
export function unavailable(why: string, applied?: false | 'unknown'): ApiError {
  const outcome =
    applied === 'unknown'
      ? ' If Redis applied the change just before it stopped answering, the objects show it; otherwise it was not applied, and it will not be applied later.'
      : applied === false
        ? ' Nothing was changed.'
        : '';
  return new ApiError(503, 'SERVICE_UNAVAILABLE', `The inventory store is unavailable (${why}).${outcome}`, {
    data: applied === undefined ? undefined : { applied },
    headers: { 'Retry-After': '1' },
  });
}

/**
 * The answer to a request that failed because Redis did not answer (a command timed out, or
 * was dropped after the reconnect attempts): 503, not 500. Undefined for any other error.
 * Status changes never get here: AtMostOnceCalls answers for them, saying what was applied.
 */
export function redisOutageAnswer(error: unknown) {
  if (!(error instanceof Error)) return undefined;
  if (error.message === COMMAND_TIMED_OUT) return unavailable('a command got no answer in time');
  if (NOT_PRIMARY.test(error.message)) return unavailable('the primary is failing over');
  if (CLUSTER_NOT_SERVING.test(error.message)) return unavailable('the cluster does not serve the slot now');
  const refused = refusedForReplicas(error);
  if (refused) return refused;
  if (error.name === 'MaxRetriesPerRequestError' || CONNECTION_LOST.test(error.message) || /^Stream isn't writeable/.test(error.message)) {
    return unavailable('no connection');
  }
  return undefined;
}

let strayRejectionsSettled = false;

/**
 * A rejection nothing handled: one that is a Redis outage (redisOutageAnswer: a command timed
 * out, a connection dropped) is logged and the process goes on; any other is thrown again, as
 * an uncaught exception, which ends the process as Node ends it for an unhandled rejection.
 * settleTimeouts gives every command's own promise a handler, but a promise made from one (a
 * `.then` or an async function, in a library or here) that nobody waits for any more can still
 * reject unhandled when its command times out during a failover: about one failover test run in
 * ten showed one, never found. It must not take the server down mid-failover. Installed once per
 * process (or thread), by whatever connects to Redis first.
 */
export function settleStrayRejections(logger: Logger): void {
  if (strayRejectionsSettled) return;
  strayRejectionsSettled = true;
  process.on('unhandledRejection', (reason: unknown) => {
    if (!redisOutageAnswer(reason)) throw reason;
    logger.warn({ err: (reason as Error).message }, 'a Redis command failed after nothing waited for it any more');
  });
}

/** Resolves once the connection is up (it keeps retrying meanwhile; bound the wait with withTimeout). */
export function connected(redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

/**
 * Answers only on a live connection: while disconnected the PING would wait in the offline
 * queue until Redis returns, piling up one queued PING per readiness probe.
 */
export async function pingRedis(redis: RedisClient): Promise<void> {
  if (redis.status !== 'ready') throw new Error(`connection is ${redis.status}`);
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error(`Redis answered ${answer} to PING`);
}

/** QUIT waits for queued commands; if Redis is gone they never finish, so cut it after `ms`. */
export async function closeRedis(redis: RedisClient, ms: number): Promise<void> {
  await settleWithin(redis.quit(), ms);
  redis.disconnect();
}
