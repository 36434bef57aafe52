import type { StreamLimits } from './services/streamSockets.js';
import type { RedisTarget } from './inventory/redis.js';

// Environment -> typed config. Every variable is checked once at start-up; a bad value
// stops the process with one line that names the variable (see main.ts).

export interface Config {
  host: string;
  port: number;
  /** The inventory's Redis: REDIS_URL, the primary REDIS_SENTINELS watch, or the cluster of REDIS_CLUSTER_NODES (docs/operations.md, "Redis Cluster", "High availability"). */
  redis: RedisTarget;
  /** Put before every Redis key, so several deployments (or test servers) can share one Redis. */
  redisKeyPrefix: string;
  mongodbUrl: string;
  mongodbDb: string;
  /** User name of the Basic auth on /system/private/*; undefined disables those routes. */
  systemApiSecret: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest request body accepted, in bytes (413 beyond). */
  maxBodyBytes: number;
  /** How long a graceful shutdown waits for in-flight requests. */
  shutdownTimeoutMs: number;
  /** Base URL clients reach this server at (thumbnail URLs); undefined: the request's Host. */
  publicUrl: string | undefined;
  /** How long a request waits for Redis before it is answered 503 (docs/faults.md). */
  redisTimeoutMs: number;
  /**
   * How many replicas must confirm a status change (Redis WAIT) before it is answered 2xx
   * (docs/operations.md, "High availability"); 0: answered once the primary applied it.
   */
  replicaAcks: number;
  /** How many status changes may wait for Redis at once; more are refused with 503 at once. */
  maxPendingStatusChanges: number;
  /**
   * Whether this process runs the background jobs (history drain, hold expiry) beside the
   * HTTP server; off when they run as their own process (`npm run worker`).
   */
  backgroundJobs: boolean;
  /** Where the legacy V1 interface is served (docs/api.md, "Legacy V1 interface"): `/api` by default. */
  legacyV1Prefix: string;
  /** Server processes `npm start` runs on one port (docs/operations.md, "One process per core"); 1: this process serves. */
  workers: number;
  /**
   * Requests per company in flight at once in this process, per lane (docs/operations.md, "Concurrency
   * limits"); 0: no limit. seats.io allows 100 in the priority lane and 10 in the regular one.
   */
  concurrencyLimits: { priority: number; regular: number };
  /**
   * The CPU priority (nice, 0-19) of the reader threads: the status stream's and the reports'
   * (docs/operations.md, "Reader threads"); higher yields more to the sale's thread.
   */
  readerThreadNice: number;
  /** The status stream's limits (docs/status-stream.md, "Limits"). */
  statusStream: StreamLimits & {
    /** Largest frame a client may send; a bigger one closes its socket (1009). */
    maxMessageBytes: number;
  };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

/** Braces would change the hash slot of every key (Redis Cluster hash tags). */
function keyPrefix(env: Env): string {
  const raw = env.REDIS_KEY_PREFIX ?? '';
  if (!/^[A-Za-z0-9_:.-]{0,64}$/.test(raw)) {
    throw new ConfigError('REDIS_KEY_PREFIX', 'use at most 64 letters, digits and _ : . -');
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, schemes: string[]): string {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    throw new ConfigError(name, `is required (for example ${schemes[0]}://127.0.0.1); "npm run dev" starts local servers when it is unset`);
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a URL: "${raw}"`);
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (!schemes.includes(scheme)) throw new ConfigError(name, `must start with ${schemes.map((s) => s + '://').join(' or ')}, got "${raw}"`);
  return raw;
}


/** `host:port` entries separated by commas (REDIS_CLUSTER_NODES, REDIS_SENTINELS). */
function addresses(name: string, raw: string): { host: string; port: number }[] {
  return raw.split(',').map((entry) => {
    const match = /^\s*([A-Za-z0-9.:[\]-]+):(\d{1,5})\s*$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) {
      throw new ConfigError(name, `expected host:port entries separated by commas (for example 10.0.0.1:7000,10.0.0.2:7000), got "${entry.trim()}"`);
    }
    return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
  });
}

/**
 * REDIS_SENTINELS, the `host:port` of Redis Sentinels separated by commas, with
 * REDIS_SENTINEL_NAME, the primary they watch (and REDIS_SENTINEL_PASSWORD if the sentinels
 * require one; REDIS_PASSWORD for the primary and replicas); else REDIS_CLUSTER_NODES,
 * `host:port` seed nodes (any of the cluster's nodes will do; the rest are found from them),
 * with REDIS_CLUSTER_PASSWORD (and REDIS_CLUSTER_USERNAME for ACLs); else REDIS_URL.
 */
function redisTarget(env: Env): RedisTarget {
  const optional = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const sentinels = env.REDIS_SENTINELS ?? '';
  if (sentinels !== '') {
    if (optional('REDIS_CLUSTER_NODES')) throw new ConfigError('REDIS_SENTINELS', 'set REDIS_SENTINELS or REDIS_CLUSTER_NODES, not both');
    const name = env.REDIS_SENTINEL_NAME ?? '';
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(name)) {
      throw new ConfigError('REDIS_SENTINEL_NAME', `is required with REDIS_SENTINELS: the name the sentinels know the primary by (letters, digits and . _ -), got "${name}"`);
    }
    return { sentinels: addresses('REDIS_SENTINELS', sentinels), name, sentinelPassword: optional('REDIS_SENTINEL_PASSWORD'), password: optional('REDIS_PASSWORD') };
  }
  const raw = env.REDIS_CLUSTER_NODES ?? '';
  if (raw === '') return { url: url(env, 'REDIS_URL', ['redis', 'rediss']) };
  const clusterNodes = addresses('REDIS_CLUSTER_NODES', raw);
  return { clusterNodes, username: optional('REDIS_CLUSTER_USERNAME'), password: optional('REDIS_CLUSTER_PASSWORD') };
}

/** The database when neither MONGODB_DB nor the URL's path names one. */
export const DEFAULT_MONGODB_DB = 'seatsio';

/** The database named in the URL path, else DEFAULT_MONGODB_DB. */
function databaseName(env: Env, mongodbUrl: string): string {
  const explicit = env.MONGODB_DB;
  if (explicit !== undefined && explicit !== '') {
    if (!/^[A-Za-z0-9_-]{1,63}$/.test(explicit)) throw new ConfigError('MONGODB_DB', `not a valid database name: "${explicit}"`);
    return explicit;
  }
  const path = new URL(mongodbUrl).pathname.replace(/^\//, '');
  return path === '' ? DEFAULT_MONGODB_DB : decodeURIComponent(path);
}

function backgroundJobs(env: Env): boolean {
  const raw = env.BACKGROUND_JOBS ?? 'in-process';
  if (raw !== 'in-process' && raw !== 'off') throw new ConfigError('BACKGROUND_JOBS', `must be in-process or off, got "${raw}"`);
  return raw === 'in-process';
}

/** Where the legacy V1 interface is served unless LEGACY_V1_PREFIX says otherwise. */
export const DEFAULT_LEGACY_V1_PREFIX = '/api';

/** One or more path segments, no trailing slash: `/api`, `/legacy/v1`. */
function legacyV1Prefix(env: Env): string {
  const raw = env.LEGACY_V1_PREFIX ?? '';
  if (raw === '') return DEFAULT_LEGACY_V1_PREFIX;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw) || raw.length > 100) {
    throw new ConfigError('LEGACY_V1_PREFIX', `must be a path such as /api (segments of letters, digits and . _ ~ -, no trailing slash), got "${raw}"`);
  }
  return raw;
}

/**
 * Variables of earlier versions that no longer do anything, and what replaced them: set, they
 * stop the start rather than being ignored (docs/status-stream.md, "Limits and close codes").
 */
const RETIRED: Record<string, string> = {
  STREAM_MAX_BACKPRESSURE_BYTES: 'no longer used: a slow subscriber is skipped and conflated, and closed only when blocked past STREAM_BLOCKED_CLOSE_MS',
  STREAM_MAX_BUFFERED_BYTES: 'no longer used: a slow subscriber holds at most about one frame (see STREAM_BLOCKED_CLOSE_MS)',
  STREAM_BATCH_MS: 'replaced by STREAM_TICK_MS',
};

export function loadConfig(env: Env = process.env): Config {
  for (const [name, why] of Object.entries(RETIRED)) if (env[name] !== undefined && env[name] !== '') throw new ConfigError(name, why);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  const systemApiSecret = env.SYSTEM_API_SECRET;
  if (systemApiSecret !== undefined && systemApiSecret !== '' && systemApiSecret.length < 8) {
    throw new ConfigError('SYSTEM_API_SECRET', 'must be at least 8 characters long');
  }
  const mongodbUrl = url(env, 'MONGODB_URL', ['mongodb', 'mongodb+srv']);
  return {
    host: env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0',
    port: integer(env, 'PORT', 9001, 0, 65535),
    redis: redisTarget(env),
    redisKeyPrefix: keyPrefix(env),
    mongodbUrl,
    mongodbDb: databaseName(env, mongodbUrl),
    systemApiSecret: systemApiSecret === '' ? undefined : systemApiSecret,
    logLevel: logLevel as Config['logLevel'],
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    publicUrl: env.PUBLIC_URL ? url(env, 'PUBLIC_URL', ['http', 'https']).replace(/\/+$/, '') : undefined,
    redisTimeoutMs: integer(env, 'REDIS_TIMEOUT_MS', 2_000, 100, 60_000),
    replicaAcks: integer(env, 'REDIS_REPLICA_ACKS', 0, 0, 16),
    maxPendingStatusChanges: integer(env, 'MAX_PENDING_STATUS_CHANGES', 10_000, 1, 1_000_000),
    backgroundJobs: backgroundJobs(env),
    legacyV1Prefix: legacyV1Prefix(env),
    workers: integer(env, 'WORKERS', 1, 1, 64),
    concurrencyLimits: {
      priority: integer(env, 'PRIORITY_LANE_CONCURRENCY_LIMIT', 0, 0, 1_000_000),
      regular: integer(env, 'REGULAR_LANE_CONCURRENCY_LIMIT', 0, 0, 1_000_000),
    },
    readerThreadNice: integer(env, 'READER_THREAD_NICE', 10, 0, 19),
    statusStream: {
      maxSubscribers: integer(env, 'STREAM_MAX_SUBSCRIBERS', 20_000, 1, 1_000_000),
      maxEventSubscribers: integer(env, 'STREAM_MAX_EVENT_SUBSCRIBERS', 10_000, 1, 1_000_000),
      retainedChanges: integer(env, 'STREAM_RETAINED_CHANGES', 10_000, 0, 10_000_000),
      tickMs: integer(env, 'STREAM_TICK_MS', 100, 5, 1_000),
      blockedCloseMs: integer(env, 'STREAM_BLOCKED_CLOSE_MS', 30_000, 1_000, 3_600_000),
      maxMessageBytes: integer(env, 'STREAM_MAX_MESSAGE_BYTES', 1024, 16, 1024 * 1024),
    },
  };
}

/** The configuration of a process started from the command line; a bad one ends it with the reason. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
