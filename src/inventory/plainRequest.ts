import type { PlannedChange } from '../domain/statusChangeRequest.js';
import { putAscii, putDigits, writesAsDigits } from '../util/asciiBytes.js';
import type { WrittenArg } from './statusWire.js';

// The status call's request (its `request` argument, lua/change-object-status.lua) for the
// plainest change, written straight into the call's bytes (src/inventory/statusWire.ts): one
// change on event 1, objects by label with no parameters, made by an API call, not expanded
// (src/services/statusChangeService.ts, applyPlain), perhaps with a hold token. It is the JSON statusCall
// (src/inventory/statusChanges.ts) makes for the same change, field for field, without the
// payload objects and the text per call (test/unit/plainRequest.test.ts holds the two equal).

const QUOTE = 34;
/** A JSON string's characters that need no escape and are one byte each: written as they are. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Writes `text` as a JSON string; where it ended. */
function writeString(into: Buffer, at: number, text: string): number {
  if (!PLAIN.test(text)) return at + into.write(JSON.stringify(text), at);
  into[at++] = QUOTE;
  at = putAscii(into, at, text);
  into[at++] = QUOTE;
  return at;
}

/** A JSON number: digits for a non-negative integer (every count here), else its text. */
const writeNumber = (into: Buffer, at: number, value: number) =>
  writesAsDigits(value) ? putDigits(into, at, value) : at + into.write(JSON.stringify(value), at, 'latin1');

/** A JSON string at most: each UTF-16 unit escaped as \uXXXX, and the quotes. */
const stringBytesAtMost = (text: string | undefined) => (text === undefined ? 0 : text.length * 6 + 2);

export class PlainRequest implements WrittenArg {
  constructor(
    private readonly change: PlannedChange,
    /** The hold token's expiry (ms epoch), for a hold. */
    private readonly tokenExpiry: number | undefined,
    /** The caller's address (the history records it). */
    private readonly ip: string | undefined,
    /** The usage mark, for operations whose objects count as used. */
    private readonly usage: string | undefined,
  ) {}

  bytesAtMost(): number {
    const { op, status, objects } = this.change;
    // The fixed text is under 100 bytes; a GA area's place count and capacity under 50 more.
    // A token's expiry is a number of at most 24 characters.
    let most = 150 + stringBytesAtMost(this.ip) + stringBytesAtMost(op) + stringBytesAtMost(status) + stringBytesAtMost(this.change.parameters.holdToken) + stringBytesAtMost(this.usage);
    for (const o of objects) most += stringBytesAtMost(o.label) + 60;
    return most;
  }

  writeTo(into: Buffer, at: number): number {
    const { op, status, objects } = this.change;
    at = putAscii(into, at, '{');
    if (this.ip !== undefined) at = putAscii(into, writeString(into, putAscii(into, at, '"ip":'), this.ip), ',');
    at = writeString(into, putAscii(into, at, '"changes":[{"e":1,"op":'), op);
    at = writeString(into, putAscii(into, at, ',"status":'), status);
    const token = this.change.parameters.holdToken;
    if (token !== undefined) at = writeString(into, putAscii(into, at, ',"token":'), token);
    if (this.tokenExpiry !== undefined) at = writeNumber(into, putAscii(into, at, ',"tokenExpiry":'), this.tokenExpiry);
    if (this.usage !== undefined) at = writeString(into, putAscii(into, at, ',"u":'), this.usage);
    at = putAscii(into, at, ',"objects":[');
    for (let i = 0; i < objects.length; i++) {
      const o = objects[i]!;
      at = writeString(into, putAscii(into, at, i === 0 ? '{"l":' : ',{"l":'), o.label);
      // Places and capacity only for GA areas (q > 0 marks one), as statusCall writes them.
      if (o.quantity > 0) {
        at = writeNumber(into, putAscii(into, at, ',"q":'), o.quantity);
        if (o.object.capacity !== undefined) at = writeNumber(into, putAscii(into, at, ',"c":'), o.object.capacity);
      }
      at = putAscii(into, at, '}');
    }
    return putAscii(into, at, ']}]}');
  }

  /** The same JSON as text (the cluster's calls go through ioredis, which takes text). */
  toString(): string {
    const bytes = Buffer.allocUnsafe(this.bytesAtMost());
    return bytes.toString('utf8', 0, this.writeTo(bytes, 0));
  }
}
