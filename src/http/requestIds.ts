import { randomBytes } from 'node:crypto';

// The ids the server gives requests that bring none (X-Request-Id): `<process>-<number>`, the
// process's part random, the number counted up in base 36. The id is sent with every answer,
// but read as text only where it is logged or put in an error body: the rest (nearly every
// 204 of the priority lane) send it as bytes written into one buffer, with no text made.

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
/** A safe integer takes at most 11 base-36 digits. */
const MAX_DIGITS = 11;

export class RequestIds {
  private readonly prefix = `${randomBytes(4).toString('hex')}-`;
  private counter = 0;
  private readonly bytes = Buffer.alloc(this.prefix.length + MAX_DIGITS);
  /** views[n]: the first n bytes of `bytes`, made once per length. */
  private readonly views: Uint8Array[] = [];

  constructor() {
    this.bytes.write(this.prefix, 'latin1');
  }

  /** The next request's number. */
  next(): number {
    return ++this.counter;
  }

  /** Request `number`'s id as text. */
  text(number: number): string {
    return this.prefix + number.toString(36);
  }

  /** Request `number`'s id as bytes, the same as `text` gives; good until the next call (uWS copies a header as it is written). */
  bytesOf(number: number): Uint8Array {
    let length = this.prefix.length;
    for (let rest = number; rest >= 1; rest = Math.floor(rest / 36)) length++;
    let at = length;
    for (let rest = number; rest >= 1; rest = Math.floor(rest / 36)) this.bytes[--at] = DIGITS.charCodeAt(rest % 36);
    return (this.views[length] ??= new Uint8Array(this.bytes.buffer, this.bytes.byteOffset, length));
  }
}
