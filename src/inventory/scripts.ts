import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis } from 'ioredis';
import { ScriptWire } from './scriptWire.js';
import { FUNCTION_MISSING, StatusWire, type StatusArg, type StatusCommand, type StatusReceiver } from './statusWire.js';
import { scriptSource } from './luaSource.js';
import { BATCH_REQUEST_HEAD, STATUS_CONTRACT_INCLUDE, statusArgs, statusContractLua, type StatusRequest } from './statusContract.js';
import { isCluster, mastersOf, type RedisClient } from './redis.js';
import { confirmedOr, ReplicaAcks, waitFailed } from './replicaAcks.js';
import { projectDir } from '../util/projectDir.js';
import { ENTRY_SEPARATOR } from '../domain/statusChangeHistory.js';

// The Lua scripts of lua/, one typed function each. A script's file name carries its
// number of KEYS (`create-hold-token-2.lua` takes 2 keys, the convention BullMQ uses); a
// file without a number takes a number of keys that varies per call. The function's name
// is the file's name in camelCase without the number (`createHoldToken`). On one Redis a
// script's calls are EVALSHA written as bytes (scriptWire.ts); on a cluster, and for a call
// Redis answers NOSCRIPT, they go through ioredis `defineCommand` (EVALSHA, or EVAL with the
// source, which loads it). The status script is a Redis function instead (see STATUS_FILE
// below, lua/README.md).

/**
 * The priority lane's script runs as a Redis function (FUNCTION LOAD, FCALL): its file
 * defines `run`, and the library made from it registers that as the status function. Its
 * many rule functions are then made once per load instead of on every call.
 *
 * Redis functions are server-wide (REDIS_KEY_PREFIX does not apply to them), so the library
 * and the function are named by version, a hash of the assembled source, as BullMQ names
 * its scripts `name:version`: during a rolling deploy, or with two deployments sharing a
 * Redis, each server loads and calls its own version, and none overwrites another's
 * (docs/redis-layout.md, "The status function").
 */
const STATUS_FILE = 'change-object-status.lua';
const STATUS_LIBRARY = 'seatsio_status';
const STATUS_FUNCTION = 'change_object_status';
/** The same library's function that runs a batch of requests in one call (lua/change-object-status.lua, runBatch). */
const STATUS_BATCH_FUNCTION = 'change_object_statuses';

export interface StatusLibrary {
  /** The first 12 hex digits of the SHA-1 of the assembled source (includes resolved). */
  version: string;
  /** `seatsio_status_<version>` */
  name: string;
  /** `change_object_status_<version>` */
  functionName: string;
  /** `change_object_statuses_<version>`: a batch of requests of one event in one call. */
  batchFunctionName: string;
  /** What FUNCTION LOAD is given: the library header, the source, the registration. */
  source: string;
}

/**
 * The function library made from STATUS_FILE: its `runOne` (a lone call) and `runBatch` (a
 * batch of requests) registered under versioned names.
 */
export function statusLibrary(dir = luaDir()): StatusLibrary {
  const body = scriptSource(STATUS_FILE, dir, { [STATUS_CONTRACT_INCLUDE]: statusContractLua() });
  const version = createHash('sha1').update(body).digest('hex').slice(0, 12);
  const name = `${STATUS_LIBRARY}_${version}`;
  const functionName = `${STATUS_FUNCTION}_${version}`;
  const batchFunctionName = `${STATUS_BATCH_FUNCTION}_${version}`;
  const registered = `redis.register_function('${functionName}', runOne)\nredis.register_function('${batchFunctionName}', runBatch)\n`;
  return { version, name, functionName, batchFunctionName, source: `#!lua name=${name}\n${body}\n${registered}` };
}

/** One request of a batch (Scripts.sendStatusBatch): its keys after the batch's shared ones (a hold's token keys), and its arguments as a lone call's. */
export interface BatchedStatusRequest {
  moreKeys: readonly string[];
  args: StatusArg[];
}

/** FUNCTION LOAD's answer when a library of that name is there: the same source, as the name is its hash. */
const ALREADY_LOADED = /already exists/i;

/** The status function's reply when it applied the call and has nothing more to tell (lua/change-object-status.lua). */
export const APPLIED = 1;
/** APPLIED, or the function's reply list. */
export type StatusReply = typeof APPLIED | unknown[];

const SCRIPT_FILES = {
  createHoldToken: 'create-hold-token-2.lua',
  holdTokenForEvent: 'hold-token-for-event-2.lua',
  changeHoldTokenExpiry: 'change-hold-token-expiry-2.lua',
  retimeHoldToken: 'retime-hold-token-2.lua',
  forgetSeasonUnit: 'forget-season-unit-3.lua',
  dropIdleHoldToken: 'drop-idle-hold-token-1.lua',
  streamLastEntry: 'stream-last-entry-1.lua',
  historyAfter: 'history-after-1.lua',
  countUsedObjects: 'count-used-objects.lua',
  writeSaleConfig: 'write-sale-config.lua',
} as const;

type ScriptName = keyof typeof SCRIPT_FILES;

/**
 * The scripts besides the status function whose writes wait for REDIS_REPLICA_ACKS replicas
 * (replicaAcks.ts): a hold token's creation and its expiry's changes. The others write what
 * the drain, the sweeps or a retry make again.
 */
const ACKED_SCRIPTS: ReadonlySet<ScriptName> = new Set(['createHoldToken', 'changeHoldTokenExpiry', 'retimeHoldToken']);

/** REDIS_REPLICA_ACKS and how long a WAIT for them waits (src/inventory/replicaAcks.ts). */
export interface ReplicaWait {
  acks: number;
  waitMs: number;
}

/** A status call without keys between the events' and the record key (a hold's token keys, statusContract.ts). */
export const NO_MORE_KEYS: readonly string[] = Object.freeze([]);
type Arg = string | number;

/** The lua/ folder of the project. */
export const luaDir = (): string => join(projectDir(), 'lua');


/** The number of KEYS in a script's file name, or undefined when it varies per call. */
export function keyCount(file: string): number | undefined {
  const match = /-(\d+)\.lua$/.exec(file);
  return match ? Number(match[1]) : undefined;
}

export class Scripts {
  private readonly calls = new Map<ScriptName, (keys: string[], args: Arg[]) => Promise<unknown>>();

  /**
   * `statusRedis` carries the status script alone: a connection that never re-sends an
   * unanswered command (docs/faults.md, "Exactly once"); every other script is safe to
   * repeat and goes on `redis`. A call goes to Redis through `sendStatusNow`.
   */
  private readonly sendStatusNow: (keys: readonly string[], moreKeys: readonly string[], recordKey: string, args: StatusArg[], receiver: StatusReceiver) => void;
  /** The same for a batch's call (the batch function, sendStatusBatch). */
  private readonly sendBatchNow: (keys: readonly string[], moreKeys: readonly string[], recordKey: string, args: StatusArg[], receiver: StatusReceiver) => void;
  /**
   * Around a turn's batches (AtMostOnceCalls): on one Redis the status connection's socket
   * corked, so they leave in one write; nothing on a cluster, where the calls of a turn go as
   * a pipeline per slot anyway.
   */
  readonly corkStatus: () => void;
  readonly uncorkStatus: () => void;
  private readonly loadStatusLibrary: () => Promise<unknown>;

  /** The status function's library this server loads and calls. */
  readonly statusLibrary: StatusLibrary;

  /** `dir`: the Lua sources (lua/ of the project; a test loads another version from a copy). */
  constructor(redis: RedisClient, statusRedis: RedisClient = redis, dir = luaDir(), replicas?: ReplicaWait) {
    const declared = new Set<string>([STATUS_FILE, ...Object.values(SCRIPT_FILES)]);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua'))) {
      if (!declared.has(file)) throw new Error(`lua/${file} has no typed function in src/inventory/scripts.ts`);
    }
    const cluster = isCluster(redis);
    // On one Redis the scripts' calls are written as bytes (scriptWire.ts) and go to the client
    // with its socket corked for the turn; on a cluster a turn's calls go as one pipeline per slot.
    const cork = cluster ? undefined : corkForTheTurn(redis as Redis);
    const acked = replicas !== undefined && replicas.acks > 0 ? replicas : undefined;
    // A WAIT on the scripts' connection: how many replicas have what it wrote up to it.
    const waitOnce = (waits: ReplicaWait) => ((redis as Redis).call('WAIT', waits.acks, waits.waitMs) as Promise<number>).catch((error: unknown) => Promise.reject(waitFailed(error)));
    for (const [name, file] of Object.entries(SCRIPT_FILES) as [ScriptName, string][]) {
      const lua = scriptSource(file, dir);
      const fixedKeys = keyCount(file);
      redis.defineCommand(name, { lua, numberOfKeys: fixedKeys });
      // ioredis's own script command: EVALSHA, or EVAL with the source on a connection that has not sent it yet.
      const viaIoredis = (client: ScriptPipeline, callArgs: Arg[]) => client[name]!(...callArgs);
      const wire = new ScriptWire(lua, redis.options.keyPrefix ?? '');
      const waits = acked && ACKED_SCRIPTS.has(name) ? acked : undefined;
      // `value` once a WAIT sent now (behind the call on the connection) confirms it.
      const replicated = waits && ((value: unknown) => waitOnce(waits).then((n) => confirmedOr(n, waits, value)));
      const viaScriptCommand = (keys: readonly string[], args: readonly Arg[]) => viaIoredis(redis as unknown as ScriptPipeline, callArgsOf(fixedKeys, keys, args)) as Promise<unknown>;
      // A call Redis had no script for ran only when it went again, after the first WAIT: a
      // WAIT of its own follows it then (a new primary has no scripts: the first call after a failover).
      const again = replicated ? (keys: readonly string[], args: readonly Arg[]) => viaScriptCommand(keys, args).then(replicated) : viaScriptCommand;
      const send = cork
        ? (keys: readonly string[], args: Arg[]) => {
            cork();
            const result = wire.send(redis as Redis, keys, args, again);
            if (!waits) return result;
            // The WAIT goes in the same write, right behind the call.
            const confirmed = waitOnce(waits);
            return Promise.all([result, confirmed]).then(([value, n]) => confirmedOr(n, waits, value));
          }
        : batched(redis, viaIoredis, fixedKeys, waits);
      this.calls.set(name, (keys, args) => {
        if (fixedKeys !== undefined && keys.length !== fixedKeys) return Promise.reject(new Error(`${name} takes ${fixedKeys} keys, got ${keys.length}`));
        return send(keys, args);
      });
    }
    const library = (this.statusLibrary = statusLibrary(dir));
    // Loaded whenever the connection is (re)made, and again if Redis lost it meanwhile (a
    // restart without persistence). Without REPLACE: a library of this name is this very
    // source, and other versions' libraries stay for the servers that call them.
    // On a cluster every master gets it (a replica gets it from its master), and so does a
    // node the cluster gains (a replica among them refuses it, harmlessly).
    const loadOn = (node: RedisClient) =>
      node.call('FUNCTION', 'LOAD', library.source).catch((error: unknown) => {
        if (!(error instanceof Error && ALREADY_LOADED.test(error.message))) throw error;
      });
    this.loadStatusLibrary = () => Promise.all(mastersOf(statusRedis).map(loadOn));
    const load = () => void this.loadStatusLibrary().catch(() => undefined);
    statusRedis.on('ready', load);
    if (isCluster(statusRedis)) statusRedis.on('+node', (node: RedisClient) => void loadOn(node).catch(() => undefined));
    load();
    const functionName = library.functionName;
    // A Redis that lost the function (it restarted without persistence) gets it again, and
    // the call is sent again: it cannot have run.
    const reloadThen = (resend: () => void, receiver: StatusReceiver) => void this.loadStatusLibrary().then(resend, (error: unknown) => receiver.fail(error));
    if (isCluster(statusRedis)) {
      // On a cluster, the turn's calls go as one pipeline per slot (batched, below).
      const sender = (name: string) => {
        const call = batched(statusRedis, (pipeline, args) => (pipeline as unknown as FunctionPipeline).fcall(name, ...args), undefined, acked);
        const send = (keys: readonly string[], moreKeys: readonly string[], recordKey: string, args: StatusArg[], receiver: StatusReceiver): void =>
          void call([...keys, ...moreKeys, recordKey], args).then(
            (reply) => receiver.answer(reply),
            (error: unknown) => {
              if (error instanceof Error && FUNCTION_MISSING.test(error.message)) reloadThen(() => send(keys, moreKeys, recordKey, args, receiver), receiver);
              else receiver.fail(error);
            },
          );
        return send;
      };
      this.sendStatusNow = sender(functionName);
      this.sendBatchNow = sender(library.batchFunctionName);
      this.corkStatus = this.uncorkStatus = () => undefined;
    } else {
      // Each call's command is made already (statusWire.ts): it goes to the client as it is.
      // With REDIS_REPLICA_ACKS, a WAIT follows the calls written in a turn, last in its write.
      const replicaAcks = acked && new ReplicaAcks((n, ms) => (statusRedis as Redis).call('WAIT', n, ms) as Promise<number>, acked.acks, acked.waitMs);
      const cork = corkForTheTurn(statusRedis as Redis, replicaAcks ? () => replicaAcks.follow() : undefined);
      // While a turn's batches are written (corkStatus to uncorkStatus) the socket is corked by
      // that already: corked for the turn from there, it would wait for the next turn's end.
      let inFlush = false;
      const send = (command: StatusCommand) => {
        if (!inFlush) cork();
        (statusRedis as Redis).sendCommand(command);
        replicaAcks?.written(command.receiver);
      };
      const prefix = statusRedis.options.keyPrefix ?? '';
      const resend = (command: StatusCommand) => reloadThen(() => send(command.again()), command.receiver);
      const held = (receiver: StatusReceiver) => (replicaAcks ? replicaAcks.hold(receiver) : receiver);
      const wire = new StatusWire(functionName, prefix, resend);
      this.sendStatusNow = (keys, moreKeys, recordKey, args, receiver) => send(wire.command(keys, moreKeys, recordKey, args, held(receiver)));
      const batchWire = new StatusWire(library.batchFunctionName, prefix, resend);
      this.sendBatchNow = (keys, moreKeys, recordKey, args, receiver) => send(batchWire.command(keys, moreKeys, recordKey, args, held(receiver)));
      // A turn's batches go out when the turn's last one is written: the socket is corked
      // around them, and uncorked at once (the turn's own cork, if any, still holds it), with
      // the WAIT of REDIS_REPLICA_ACKS last in that write.
      let corked: { uncork(): void } | undefined;
      this.corkStatus = () => {
        inFlush = true;
        corked ??= corkSocket(statusRedis as Redis);
      };
      this.uncorkStatus = () => {
        inFlush = false;
        replicaAcks?.follow();
        corked?.uncork();
        corked = undefined;
      };
    }
  }

  /**
   * lua/change-object-status.lua: every object of every change of a request, all or
   * nothing. Keys: per event its keys, the seasons' keys (statusChanges.ts), then `moreKeys`
   * (a hold's token keys when the function checks its token, statusContract.ts), then the
   * record key, where the reply is kept under `recordId` (`keys` is not changed: a frozen
   * list is kept, src/inventory/statusWire.ts).
   * Sent through AtMostOnceCalls (src/inventory/atMostOnce.ts), which decides what a lost
   * connection means; the outcome goes to `receiver`, once.
   */
  sendStatus(
    keys: readonly string[],
    moreKeys: readonly string[],
    recordKey: string,
    recordId: string,
    now: number,
    request: StatusRequest,
    deadline: number,
    keepMs: number | '',
    sentBefore: boolean,
    receiver: StatusReceiver,
  ): void {
    this.sendStatusNow(keys, moreKeys, recordKey, this.statusCallArgs(recordId, now, request, deadline, keepMs, sentBefore), receiver);
  }

  /**
   * A batch of status requests on one event in one call of the batch function
   * (lua/change-object-status.lua, runBatch): `keys` the event's (shared by every request),
   * each request's more keys after them, then the record key they share. Each request's
   * arguments are written as sendStatus writes a lone call's (`args`, from statusArgs). The
   * reply is a list: per request what a lone call would answer, or {-2, message} for one that
   * failed with an error.
   */
  sendStatusBatch(keys: readonly string[], requests: readonly BatchedStatusRequest[], recordKey: string, receiver: StatusReceiver): void {
    // The layout of statusContract.ts's BATCH_REQUEST_HEAD: the count, then per request its head and arguments.
    let argCount = 1;
    let moreCount = 0;
    for (let i = 0; i < requests.length; i++) {
      argCount += BATCH_REQUEST_HEAD.length + requests[i]!.args.length;
      moreCount += requests[i]!.moreKeys.length;
    }
    const args = new Array<StatusArg>(argCount);
    const moreKeys = moreCount === 0 ? NO_MORE_KEYS : new Array<string>(moreCount);
    args[0] = requests.length;
    let at = 1;
    let keyAt = 0;
    for (let i = 0; i < requests.length; i++) {
      const request = requests[i]!;
      args[at++] = request.moreKeys.length;
      args[at++] = request.args.length;
      for (let j = 0; j < request.args.length; j++) args[at++] = request.args[j]!;
      for (let j = 0; j < request.moreKeys.length; j++) (moreKeys as string[])[keyAt++] = request.moreKeys[j]!;
    }
    this.sendBatchNow(keys, moreKeys, recordKey, args, receiver);
  }

  /** A lone call's arguments (sendStatus), also those of a request of a batch (sendStatusBatch). */
  statusCallArgs(recordId: string, now: number, request: StatusRequest, deadline: number, keepMs: number | '', sentBefore: boolean): StatusArg[] {
    // A plain call's request is its positional arguments, after an empty request text; its own
    // list is written into (a batch copies it at once).
    const plain = typeof request === 'string' ? undefined : request;
    return statusArgs({ now, request: plain ? '' : (request as string), deadline, keepMs, sentBefore: sentBefore ? 1 : 0, recordId }, plain);
  }

  /** sendStatus as a promise, the record key last of `keys` (tests call the function this way). */
  changeObjectStatus(keys: string[], now: number, request: string, deadline: number, keepMs: number | '', sentBefore: boolean, recordId = 'call'): Promise<StatusReply> {
    const recordKey = keys[keys.length - 1]!;
    return new Promise((answer, fail) =>
      this.sendStatus(keys.slice(0, -1), NO_MORE_KEYS, recordKey, recordId, now, request, deadline, keepMs, sentBefore, { answer: answer as (reply: unknown) => void, fail }),
    );
  }

  /** lua/create-hold-token-2.lua: the token's record, how long Redis keeps it, and the key living until it expires. */
  createHoldToken(tokenKey: string, liveKey: string, workspaceId: number, createdAt: number, expiresAt: number, keepUntil: number): Promise<number> {
    return this.call('createHoldToken', [tokenKey, liveKey], [workspaceId, createdAt, expiresAt, keepUntil]) as Promise<number>;
  }

  /** lua/hold-token-for-event-2.lua: the token's expiry if it may hold (and then remembers the event), else 0. */
  holdTokenForEvent(tokenKey: string, eventsKey: string, workspaceId: number, now: number, event: string, keepMs: number): Promise<number> {
    return this.call('holdTokenForEvent', [tokenKey, eventsKey], [workspaceId, now, event, keepMs]) as Promise<number>;
  }

  /** lua/change-hold-token-expiry-2.lua: {1, createdAt, expiresAt}, {0} unknown or expired, {-1, latest}. */
  changeHoldTokenExpiry(
    tokenKey: string,
    liveKey: string,
    workspaceId: number,
    now: number,
    requested: number,
    maxLifetimeMs: number,
    retentionMs: number,
  ): Promise<number[]> {
    return this.call('changeHoldTokenExpiry', [tokenKey, liveKey], [workspaceId, now, requested, maxLifetimeMs, retentionMs]) as Promise<number[]>;
  }

  /** lua/retime-hold-token-2.lua: moves a token's holds in one event to its new expiry. */
  retimeHoldToken(holdTokensKey: string, gaHoldExpiryKey: string, token: string, expiresAt: number): Promise<number> {
    return this.call('retimeHoldToken', [holdTokensKey, gaHoldExpiryKey], [token, expiresAt]) as Promise<number>;
  }

  /** lua/forget-season-unit-3.lua: the unit leaves its season's count of stored records, once; how many objects it had. */
  forgetSeasonUnit(objectsKey: string, seasonUseKey: string, forgottenKey: string, unitId: number): Promise<number> {
    return this.call('forgetSeasonUnit', [objectsKey, seasonUseKey, forgottenKey], [unitId]) as Promise<number>;
  }

  /** lua/drop-idle-hold-token-1.lua: 1 when the token holds something in the event; else its entry there is dropped, 0. */
  dropIdleHoldToken(holdTokensKey: string, token: string): Promise<number> {
    return this.call('dropIdleHoldToken', [holdTokensKey], [token]) as Promise<number>;
  }

  /** lua/stream-last-entry-1.lua: the number of the last entry ever added to a history stream, 0 if none. */
  streamLastEntry(historyKey: string): Promise<number> {
    return this.call('streamLastEntry', [historyKey], []) as Promise<number>;
  }

  /**
   * lua/history-after-1.lua: up to `count` entries after number `after` (raw, as XRANGE gives
   * them), and, when there are none, the number of the last entry ever added.
   */
  historyAfter(historyKey: string, after: number, count: number): Promise<[number, [string, string[]][]]> {
    return this.call('historyAfter', [historyKey], [after, count]) as Promise<[number, [string, string[]][]]>;
  }

  /**
   * lua/count-used-objects.lua: adds labels to an event's used objects of a month (the
   * history drain counts them); 1 when that made the event's first use of the month.
   * `buckets`: each bucket key with its labels.
   */
  countUsedObjects(countKey: string, bucketCount: number, buckets: [string, string[]][]): Promise<number> {
    const args: Arg[] = [bucketCount];
    // One argument per bucket key, its labels joined (no label holds the separator): a batch
    // of 1,000 labels was 1,000 arguments to build and write one by one.
    for (const [, labels] of buckets) args.push(labels.join(ENTRY_SEPARATOR));
    return this.call('countUsedObjects', [countKey, ...buckets.map(([key]) => key)], args) as Promise<number>;
  }

  /**
   * lua/write-sale-config.lua: replaces an event's sale config with `fields`, and appends a
   * for-sale entry to its history stream (and, for a unit of a season, to the season's feed
   * as unit `unitId`) when the places not for sale of some objects changed; answers how many
   * objects' did (0: no entry).
   */
  writeSaleConfig(saleConfigKey: string, historyKey: string, now: number, fields: Map<string, string>, feed?: { key: string; unitId: number }): Promise<number> {
    const args: Arg[] = [now, feed?.unitId ?? ''];
    for (const [name, value] of fields) args.push(name, value);
    return this.call('writeSaleConfig', feed ? [saleConfigKey, historyKey, feed.key] : [saleConfigKey, historyKey], args) as Promise<number>;
  }

  private call(name: ScriptName, keys: string[], args: Arg[]): Promise<unknown> {
    return this.calls.get(name)!(keys, args);
  }
}

interface PendingCall {
  args: Arg[];
  /** The hash slot of its keys, on a cluster. */
  slot: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type FunctionPipeline = { fcall(name: string, ...args: Arg[]): unknown };

/**
 * Corks the client's socket, if this has not yet in this turn of the event loop, until the
 * turn ends: what the client writes meanwhile leaves in one write, as with a pipeline, without
 * the pipeline's bookkeeping (its own promises and result lists; about a third of a call's
 * client CPU in a micro-benchmark). Not while the client is not ready (its commands wait in
 * its offline queue then). The clients run without ioredis's auto-pipelining, whose pipelines
 * could stall for good after the connection dropped under load (test/integration/faults.test.ts
 * caught it).
 */
function corkForTheTurn(redis: Redis, beforeUncork?: () => void): () => void {
  let corked: { uncork(): void } | undefined;
  const uncork = () => {
    beforeUncork?.();
    corked?.uncork();
    corked = undefined;
  };
  return () => {
    if (corked) return;
    corked = corkSocket(redis);
    if (corked) setImmediate(uncork);
  };
}

/** Corks the connection's socket if it is up and writable (else its writes queue in ioredis anyway); the socket to uncork. */
function corkSocket(redis: Redis): { uncork(): void } | undefined {
  const socket = redis.stream as (typeof redis.stream & { writable?: boolean }) | undefined;
  if (redis.status !== 'ready' || !socket?.writable) return undefined;
  socket.cork();
  return socket;
}
type ScriptPipeline = Record<string, (...args: Arg[]) => unknown> & ReturnType<RedisClient['pipeline']>;

const REDIRECTED = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN) /;
/** How long a call that met a failover (CLUSTERDOWN, TRYAGAIN) or a slot being moved (ASK) waits before it goes again. */
const RETRY_REDIRECTED_MS = 100;
const redirected = (error: unknown) => error instanceof Error && REDIRECTED.test(error.message);

/** A script's arguments as ioredis's script command takes them: the key count first when it varies per call (EVALSHA numkeys). */
const callArgsOf = (fixedKeys: number | undefined, keys: readonly string[], args: readonly Arg[]): Arg[] => (fixedKeys === undefined ? [keys.length, ...keys, ...args] : [...keys, ...args]);

/**
 * On Redis Cluster, calls of a script (or of the status function) made in one turn of the
 * event loop go as one pipeline per slot (a script's keys all share one:
 * docs/redis-layout.md). Unlike ioredis's auto-pipelining, a batch does not wait for the
 * replies of the one before: Redis runs the next batch while the server handles the last
 * one's answers, where auto-pipelining kept the two taking turns. Each call still gets its
 * own reply or error. A call answered MOVED, ASK,
 * TRYAGAIN or CLUSTERDOWN did not run (its slot is moving, or failing over): it goes again
 * alone once the slot map is read again (sendAgain). Only the calls so answered go again; the
 * rest of their pipeline ran once and keeps its replies. (On one Redis a turn's calls go to
 * the client with its socket corked for the turn instead: corkForTheTurn.)
 * With `replicas`, a WAIT ends each pipeline (it goes to the slot's master with the calls),
 * and a call is answered only once it confirms (src/inventory/replicaAcks.ts).
 */
function batched(
  redis: RedisClient,
  send: (pipeline: ScriptPipeline, args: Arg[]) => unknown,
  fixedKeys: number | undefined,
  replicas?: ReplicaWait,
): (keys: readonly string[], args: Arg[]) => Promise<unknown> {
  const keyPrefix = redis.options.keyPrefix ?? '';
  let queue: PendingCall[] = [];
  // The client has the pipeline's command methods, each answering with a promise of its own.
  const alone = (call: PendingCall) =>
    replicas ? sendBatch([call]) : (send(redis as unknown as ScriptPipeline, call.args) as Promise<unknown>).then(call.resolve, call.reject);
  const sendBatch = (batch: PendingCall[]) => {
    const pipeline = redis.pipeline() as unknown as ScriptPipeline;
    for (const call of batch) send(pipeline, call.args);
    if (replicas) pipeline.call('WAIT', replicas.acks, replicas.waitMs);
    pipeline.exec().then(
      (results) => {
        // WAIT's outcome: an error (the connection dropped), or how many replicas confirmed.
        const [waitError, confirmed] = replicas ? results![batch.length]! : [null, 0];
        const again: PendingCall[] = [];
        batch.forEach((call, i) => {
          const [error, value] = results![i]!;
          if (!error) {
            if (!replicas) call.resolve(value);
            else if (waitError) call.reject(waitFailed(waitError));
            else call.resolve(confirmedOr(confirmed as number, replicas, value));
          } else if (redirected(error)) again.push(call);
          else call.reject(error);
        });
        if (again.length > 0) sendAgain(again, results!.find(([error]) => redirected(error))![0]!);
      },
      (error: unknown) => batch.forEach((call) => call.reject(error)),
    );
  };
  // ioredis follows a redirection of its own commands, but of a pipeline only when every
  // command in it was redirected: never with a WAIT in it, so its slot map would stay as it
  // was and the calls go back, as fast as they are answered, to the node that redirected them
  // (sales never resumed after a promotion). The map is read again first; then a call moved
  // goes at once, one that met a failover or a slot on its way 100 ms later (ioredis's pause).
  const sendAgain = (calls: PendingCall[], error: Error) =>
    (redis as Cluster).refreshSlotsCache(() => {
      if (error.message.startsWith('MOVED ')) calls.forEach(alone);
      else setTimeout(() => calls.forEach(alone), RETRY_REDIRECTED_MS);
    });
  const flush = () => {
    const batch = queue;
    queue = [];
    const bySlot = new Map<number, PendingCall[]>();
    for (const call of batch) {
      const calls = bySlot.get(call.slot);
      if (calls) calls.push(call);
      else bySlot.set(call.slot, [call]);
    }
    for (const calls of bySlot.values()) sendBatch(calls);
  };
  return (keys, args) =>
    new Promise((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ args: callArgsOf(fixedKeys, keys, args), slot: calculateSlot(`${keyPrefix}${keys[0]}`), resolve, reject });
    });
}
