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

/** A command whose RESP text is made already: ioredis queues it and matches its reply as any other. */
class EncodedCommand extends Command {
  constructor(private readonly wire: string) {
    super('fcall', [], { replyEncoding: 'utf8' });
  }

  override toWritable(): string {
    return this.wire;
  }
}

export class StatusWire {
  /** `fcall` and the function's name, encoded. */
  private readonly head: string;
  private readonly keys = new Map<string, string>();

  constructor(
    functionName: string,
    private readonly keyPrefix: string,
  ) {
    this.head = bulk('fcall') + bulk(functionName);
  }

  /** FCALL of the function with `keys` (the last one, the record key, is new on every call) and `args`. */
  command(keys: readonly string[], args: readonly (string | number)[]): Command {
    const last = keys.length - 1;
    let text = `*${3 + keys.length + args.length}\r\n${this.head}${bulk(String(keys.length))}`;
    for (let i = 0; i < last; i++) text += this.key(keys[i]!);
    if (last >= 0) text += bulk(this.keyPrefix + keys[last]!);
    for (const arg of args) text += bulk(String(arg));
    return new EncodedCommand(text);
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
