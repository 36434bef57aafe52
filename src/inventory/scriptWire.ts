import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { argsBytesAtMost, bulk, bulkBytesAtMost, EncodedCommand, RespSlab, writeArgs, writeBulkNumber, writeBulkOf, writeCount, type RespArg } from './respBytes.js';

// The calls of lua/'s scripts (all but the status function) on one Redis, as EVALSHA written
// here as bytes (src/inventory/respBytes.ts) rather than by ioredis's script commands. A
// checkout makes two such calls on the priority lane, its token's creation and the hold's
// check of the token; ioredis's script command flattened, prefixed and encoded each call's
// arguments and made its own command object per call, about a third of a checkout's client
// CPU for those calls (docs/performance.md, "Pre-encoded commands").
//
// A Redis that does not have the script (a new or restarted Redis, or one whose scripts were
// flushed) answers NOSCRIPT without running the call; the call then goes again through
// ioredis's own script command, which sends EVAL with the source and so loads it.

/** The call through ioredis's script command. */
export type Fallback = (keys: readonly string[], args: readonly RespArg[]) => Promise<unknown>;

/** Redis's answer to an EVALSHA of a script it does not have: the call did not run. */
const NO_SCRIPT = /NOSCRIPT/;

/**
 * A call whose RESP is made already; its answer settles the Command's own promise (one per
 * call, as the callers await it). A NOSCRIPT answer goes to `again` instead, whose outcome
 * settles it.
 */
export class ScriptCall extends EncodedCommand {
  /** The Command's reject, which `reject` passes everything but NOSCRIPT to. */
  private readonly failed: (error: Error) => void;

  constructor(
    bytes: Buffer,
    private readonly callKeys: readonly string[],
    private readonly callArgs: readonly RespArg[],
    /** A call through ioredis's script command, which loads the script (shared by the script's calls, not a closure per call). */
    private readonly again: Fallback,
  ) {
    super('evalsha', bytes);
    this.failed = this.reject;
    this.reject = rejectOrLoad;
  }

  /** The script was missing: the call again, loading it. */
  retry(): void {
    this.again(this.callKeys, this.callArgs).then(this.resolve, this.failed);
  }
}

// A shared function, not a closure per call: ioredis calls it as a method of the command.
function rejectOrLoad(this: ScriptCall, error: Error): void {
  if (NO_SCRIPT.test(error.message)) this.retry();
  else (this as unknown as { failed(error: Error): void }).failed(error);
}

/** One script's calls, written as EVALSHA `sha` with the connection's key prefix on every key. */
export class ScriptWire {
  /** `evalsha` and the script's SHA-1, encoded. */
  private readonly name: Buffer;
  private readonly slab = new RespSlab();

  constructor(
    lua: string,
    private readonly keyPrefix: string,
  ) {
    this.name = Buffer.from(bulk('evalsha') + bulk(createHash('sha1').update(lua).digest('hex')));
  }

  /** EVALSHA with `keys` (prefixed here) and `args`. */
  bytes(keys: readonly string[], args: readonly RespArg[]): Buffer {
    let most = 16 + this.name.length + 24 + argsBytesAtMost(args);
    for (let i = 0; i < keys.length; i++) most += bulkBytesAtMost(this.keyPrefix) + keys[i]!.length * 3;
    const slab = this.slab.room(most);
    let at = writeCount(slab, this.slab.free, 3 + keys.length + args.length);
    at += this.name.copy(slab, at);
    at = writeBulkNumber(slab, at, keys.length);
    for (let i = 0; i < keys.length; i++) at = writeBulkOf(slab, at, this.keyPrefix, keys[i]!);
    return this.slab.give(writeArgs(slab, at, args));
  }

  /** The call sent on `redis`; its reply, decoded as ioredis decodes a script's. */
  send(redis: Redis, keys: readonly string[], args: readonly RespArg[], again: Fallback): Promise<unknown> {
    const call = new ScriptCall(this.bytes(keys, args), keys, args, again);
    redis.sendCommand(call);
    return call.promise;
  }
}
