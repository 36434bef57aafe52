import { Command } from 'ioredis';
import { digitCount, putAscii, putDigits, writesAsDigits } from '../util/asciiBytes.js';

// Redis commands written as RESP bytes from JavaScript, for the calls the server makes per
// request (the status call, src/inventory/statusWire.ts; the other scripts' calls,
// src/inventory/scriptWire.ts). ioredis's Command flattens a call's arguments, finds its keys
// among them, prefixes each and encodes the whole call again on every call; here a call's
// parts are written straight into bytes cut from a slab, as Node's own small Buffers are
// (docs/performance.md, "Pre-encoded commands").

/** An argument of a call: a text, or a number written as its digits. */
export type RespArg = string | number;

/** A text as one RESP bulk string, for the parts of a call encoded once. */
export const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/** Calls are cut from slabs of this size (a call is a few hundred bytes). */
const SLAB_BYTES = 64 * 1024;
/** A number's bulk string at most: `$`, two digits of length, CRLF, up to 24 characters, CRLF (with room to spare). */
const NUMBER_BULK_BYTES = 40;
/** A text's bulk string at most: UTF-8 takes at most 3 bytes per UTF-16 unit; the length's digits and two CRLFs. */
export const bulkBytesAtMost = (text: string) => text.length * 3 + 16;
/** The bulk strings of `args` at most. */
export function argsBytesAtMost(args: readonly RespArg[]): number {
  let most = 0;
  // Indexed loops here and below: a for-of's iterator showed in the allocation profile (docs/performance.md, "Where a booking's bytes go").
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    most += typeof arg === 'string' ? bulkBytesAtMost(arg) : NUMBER_BULK_BYTES;
  }
  return most;
}
const CR = 13;
const LF = 10;
const DOLLAR = 36;
const STAR = 42;

function putLength(into: Buffer, at: number, mark: number, length: number): number {
  into[at++] = mark;
  at = putDigits(into, at, length);
  into[at++] = CR;
  into[at++] = LF;
  return at;
}

function putEnd(into: Buffer, at: number): number {
  into[at++] = CR;
  into[at++] = LF;
  return at;
}

/** The start of a command of `count` parts (`*count`); where it ended. */
export const writeCount = (into: Buffer, at: number, count: number): number => putLength(into, at, STAR, count);

/** A number as one RESP bulk string; where it ended. */
export function writeBulkNumber(into: Buffer, at: number, value: number): number {
  if (!writesAsDigits(value)) return writeBulkOf(into, at, '', String(value));
  return putEnd(into, putDigits(into, putLength(into, at, DOLLAR, digitCount(value)), value));
}

/** Past this length a text is written by Buffer's write: the loop's cost grows with the text, the call's barely. */
const LOOP_CHARS = 32;

/** `first` and `second`, joined, as one RESP bulk string into `into` at `at`; where it ended. */
export function writeBulkOf(into: Buffer, at: number, first: string, second: string): number {
  // Most short texts are ASCII: one byte per character, their length known before writing.
  const start = at;
  if (first.length + second.length <= LOOP_CHARS) {
    at = putLength(into, at, DOLLAR, first.length + second.length);
    at = putAscii(into, at, first);
    if (at >= 0) at = putAscii(into, at, second);
  } else {
    at = -1;
  }
  if (at < 0) {
    at = putLength(into, start, DOLLAR, byteLength(first) + byteLength(second));
    if (first.length > 0) at += into.write(first, at);
    at += into.write(second, at);
  }
  return putEnd(into, at);
}

/** `args` as bulk strings, one after the other; where they ended. */
export function writeArgs(into: Buffer, at: number, args: readonly RespArg[]): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (typeof arg === 'string') at = writeBulkOf(into, at, '', arg);
    else at = writeBulkNumber(into, at, arg);
  }
  return at;
}

const byteLength = (text: string): number => (text.length === 0 ? 0 : Buffer.byteLength(text));

/**
 * Where calls are written: `room` gives a Buffer with at least that many bytes free from
 * `free`, and `give` hands out what was written there. A part is never written over once given.
 */
export class RespSlab {
  private slab = Buffer.alloc(0);
  private used = 0;

  /** The slab to write at `free`, with at least `most` bytes there (a new slab when this one has less). */
  room(most: number): Buffer {
    if (this.slab.length - this.used < most) {
      this.slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, most));
      this.used = 0;
    }
    return this.slab;
  }

  /** Where the next call starts in the slab `room` gave. */
  get free(): number {
    return this.used;
  }

  /** The bytes written from `free` to `end`, given out as one Buffer. */
  give(end: number): Buffer {
    const start = this.used;
    this.used = end;
    return this.slab.subarray(start, end);
  }
}

// What every encoded command gives Command's constructor, made once: it copies the
// arguments (args.flat()) and only reads the options.
const NO_ARGUMENTS: never[] = [];
const UTF8_REPLY = Object.freeze({ replyEncoding: 'utf8' as const });

/**
 * A command whose RESP is made already (by the writers above): ioredis queues it and matches
 * its reply as any other, and writes its bytes as they are. Its arguments stay empty, so
 * ioredis has nothing to flatten, prefix or encode.
 */
export class EncodedCommand extends Command {
  constructor(
    name: string,
    /** The whole call, encoded. */
    readonly bytes: Buffer,
  ) {
    super(name, NO_ARGUMENTS, UTF8_REPLY);
  }

  /** What ioredis writes to the socket: the call's bytes as they are. */
  override toWritable(): Buffer {
    return this.bytes;
  }

  /** The whole call as RESP text (tests compare it with ioredis's). */
  get wire(): string {
    return this.bytes.toString();
  }
}
