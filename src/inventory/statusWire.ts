import { argsBytesAtMost, bulk, bulkBytesAtMost, EncodedCommand, RespSlab, writeArgs, writeBulkOf, type RespArg } from './respBytes.js';

// The status function's call as RESP, made here rather than by ioredis's Command, for the
// priority lane on one Redis (src/inventory/scripts.ts sends it). A call is made of its head
// (`*n`, `fcall`, the function's name, the key count and the event's keys, key prefix
// included) and its tail (the request's record key and the arguments). An event's key list is
// the same on every call (src/inventory/statusChanges.ts keeps it, frozen), so its head is
// encoded once, as bytes, and copied into each call; the tail, a few hundred bytes, is written
// per call straight into bytes after it. ioredis's Command would flatten the arguments, find
// the keys among them, prefix each and encode the whole call again on every call
// (docs/performance.md, "Pre-encoded commands"). One Buffer per call: the socket queues one write for it.

/** Heads of key lists that are not kept (several events, seasons) are made from these, encoded per key; past this the map starts afresh. */
const MAX_KEPT_KEYS = 50_000;

export type StatusArg = RespArg;

/** Where a status call's outcome goes: exactly one of the two, once (src/inventory/atMostOnce.ts). */
export interface StatusReceiver {
  answer(reply: unknown): void;
  fail(error: unknown): void;
}

/**
 * A command whose RESP is made already, answering its receiver directly: ioredis queues it and
 * matches its reply as any other, then calls `resolve` or `reject` on it. A Command otherwise
 * makes a promise and three closures per call for an answer the priority lane would only pass
 * on through more promises (docs/performance.md, "The direct path").
 */
export class StatusCommand extends EncodedCommand {
  constructor(
    bytes: Buffer,
    readonly receiver: StatusReceiver,
    /** Redis answered that it has no such function (it restarted without persistence): the call did not run. */
    readonly onFunctionMissing: (command: StatusCommand) => void,
  ) {
    super('fcall', bytes);
    // Shared functions, not closures: ioredis calls them as methods of the command.
    this.resolve = answerReceiver;
    this.reject = failReceiver;
  }

  /** The same call as a new command (a command is sent once). */
  again(): StatusCommand {
    return new StatusCommand(this.bytes, this.receiver, this.onFunctionMissing);
  }
}

/** Redis's error for an FCALL of a function it does not have. */
export const FUNCTION_MISSING = /Function not found/i;

function answerReceiver(this: StatusCommand, reply: unknown): void {
  let value: unknown;
  try {
    value = this.transformReply(reply as Buffer);
  } catch (error) {
    this.receiver.fail(error);
    return;
  }
  this.receiver.answer(value);
}

function failReceiver(this: StatusCommand, error: unknown): void {
  if (error instanceof Error && FUNCTION_MISSING.test(error.message)) this.onFunctionMissing(this);
  else this.receiver.fail(error);
}

// Command's constructor makes the promise (initPromise, private in ioredis's typings); a
// StatusCommand answers its receiver instead and has none. No command timeout is set on the
// status connection (src/app.ts), so no timer is left for the promise's handlers to clear.
(StatusCommand.prototype as unknown as { initPromise(): void }).initPromise = function noPromise() {};

export class StatusWire {
  /** `fcall` and the function's name, encoded. */
  private readonly name: string;
  private readonly keys = new Map<string, string>();
  /** Where calls are written (call). */
  private readonly slab = new RespSlab();
  /** The heads of kept (frozen) key lists, made on their first call, with the key and argument counts they were made for. */
  private readonly heads = new WeakMap<readonly string[], { moreKeys: number; argCount: number; head: Buffer }>();

  constructor(
    functionName: string,
    private readonly keyPrefix: string,
    private readonly onFunctionMissing: (command: StatusCommand) => void = (command) => command.receiver.fail(new Error('the status function is missing')),
  ) {
    this.name = bulk('fcall') + bulk(functionName);
  }

  /**
   * FCALL of the function with `keys`, then `moreKeys` and `recordKey`, as its keys and `args`
   * as its arguments. A frozen `keys` is the caller's to keep: its head is kept with it;
   * `moreKeys` (a hold's token keys, statusContract.ts) are written per call, as the record key is.
   */
  command(keys: readonly string[], moreKeys: readonly string[], recordKey: string, args: readonly StatusArg[], receiver: StatusReceiver): StatusCommand {
    return new StatusCommand(this.call(this.head(keys, moreKeys.length, args.length), moreKeys, recordKey, args), receiver, this.onFunctionMissing);
  }

  /**
   * The call: its head copied, then the record key and the arguments written straight into
   * bytes, no text made per part (each would be made, joined, then copied again). The bytes
   * are cut from a slab, as Node's own small Buffers are; a part is never written over once given.
   */
  private call(head: Buffer, moreKeys: readonly string[], recordKey: string, args: readonly StatusArg[]): Buffer {
    let most = head.length + bulkBytesAtMost(this.keyPrefix) + recordKey.length * 3 + argsBytesAtMost(args);
    for (let i = 0; i < moreKeys.length; i++) most += bulkBytesAtMost(this.keyPrefix) + moreKeys[i]!.length * 3;
    const slab = this.slab.room(most);
    const start = this.slab.free;
    let at = start + head.copy(slab, start);
    for (let i = 0; i < moreKeys.length; i++) at = writeBulkOf(slab, at, this.keyPrefix, moreKeys[i]!);
    at = writeBulkOf(slab, at, this.keyPrefix, recordKey);
    return this.slab.give(writeArgs(slab, at, args));
  }

  private head(keys: readonly string[], moreKeys: number, argCount: number): Buffer {
    const kept = Object.isFrozen(keys);
    const known = kept ? this.heads.get(keys) : undefined;
    if (known !== undefined && known.argCount === argCount && known.moreKeys === moreKeys) return known.head;
    // fcall, name, key count, the keys, the more keys and the record key, the arguments.
    const keyCount = keys.length + moreKeys + 1;
    let text = `*${3 + keyCount + argCount}\r\n${this.name}${bulk(String(keyCount))}`;
    for (const key of keys) text += this.key(key);
    const head = Buffer.from(text);
    if (kept) this.heads.set(keys, { moreKeys, argCount, head });
    return head;
  }

  private key(key: string): string {
    let encoded = this.keys.get(key);
    if (encoded === undefined) {
      if (this.keys.size >= MAX_KEPT_KEYS) this.keys.clear();
      this.keys.set(key, (encoded = bulk(this.keyPrefix + key)));
    }
    return encoded;
  }
}
