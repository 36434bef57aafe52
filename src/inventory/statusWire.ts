import { Command } from 'ioredis';

// The status function's call as RESP text, made here rather than by ioredis's Command, for
// the priority lane on one Redis (src/inventory/scripts.ts sends it). A call's keys are
// mostly the same on every call of an event (its own keys), so their encoded form, key
// prefix included, is made once and kept; only the request's record key (the last one) and
// the arguments are encoded per call. ioredis's Command would flatten the arguments, find
// the keys among them, prefix each and encode each again on every call.

/** Encoded keys kept; past this the map starts afresh (an event's keys come back at its next call). */
const MAX_KEPT_KEYS = 50_000;

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** Where a status call's outcome goes: exactly one of the two, once (src/inventory/atMostOnce.ts). */
export interface StatusReceiver {
  answer(reply: unknown): void;
  fail(error: unknown): void;
}

/**
 * A command whose RESP text is made already, answering its receiver directly: ioredis queues
 * it and matches its reply as any other, then calls `resolve` or `reject` on it. A Command
 * otherwise makes a promise and three closures per call for an answer the priority lane
 * would only pass on through more promises (docs/performance.md, step 4).
 */
export class StatusCommand extends Command {
  constructor(
    readonly wire: string,
    readonly receiver: StatusReceiver,
    /** Redis answered that it has no such function (it restarted without persistence): the call did not run. */
    readonly onFunctionMissing: (command: StatusCommand) => void,
  ) {
    super('fcall', [], { replyEncoding: 'utf8' });
    // Shared functions, not closures: ioredis calls them as methods of the command.
    this.resolve = answerReceiver;
    this.reject = failReceiver;
  }

  override toWritable(_socket?: object): string {
    return this.wire;
  }

  /** The same call as a new command (a command is sent once). */
  again(): StatusCommand {
    return new StatusCommand(this.wire, this.receiver, this.onFunctionMissing);
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
  private readonly head: string;
  private readonly keys = new Map<string, string>();

  constructor(
    functionName: string,
    private readonly keyPrefix: string,
    private readonly onFunctionMissing: (command: StatusCommand) => void = (command) => command.receiver.fail(new Error('the status function is missing')),
  ) {
    this.head = bulk('fcall') + bulk(functionName);
  }

  /** FCALL of the function with `keys` (the last one, the record key, is new on every call) and `args`. */
  command(keys: readonly string[], args: readonly (string | number)[], receiver: StatusReceiver): StatusCommand {
    const last = keys.length - 1;
    let text = `*${3 + keys.length + args.length}\r\n${this.head}${bulk(String(keys.length))}`;
    for (let i = 0; i < last; i++) text += this.key(keys[i]!);
    if (last >= 0) text += bulk(this.keyPrefix + keys[last]!);
    for (const arg of args) text += bulk(String(arg));
    return new StatusCommand(text, receiver, this.onFunctionMissing);
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
