// The status stream's compact format (docs/status-stream.md, "Compact format"): binary frames
// that name each object by its position in the event's layout (GET /events/{key}/layout, whose
// order is fixed per layoutVersion) and each status by a code from a table the frames carry.
// A seat's change costs 4 bytes or fewer: a status byte and the position as a varint.
//
// This module has no imports and uses nothing but TextEncoder/TextDecoder, so the box office
// loads its built form in the browser as it is (/box-office/compactFrames.js): the server, the
// tests, the bench and the page share one encoder and decoder.
//
// Frame:  kind (1 byte) | varint from | varint to | [layoutVersion: varint length, ASCII] | table | entries
//   kind:  1 snapshot, 2 snapshot marked reset, 3 changes, 4 conflated changes
//   from:  0 for a snapshot; else the seq the frame follows (a client holds the view at `from`)
//   to:    the seq the frame brings the client to (a snapshot's seq)
//   layoutVersion: snapshots only
//   table: varint count, then per status: varint code, varint byte length, UTF-8 name. A
//          snapshot and a conflated frame carry the whole table; a changes frame the codes
//          added since the previous frame (usually none: one byte).
//   entries, to the end of the frame, each:
//     status byte: low 6 bits the code (0-61), 62: the code follows as a varint, 63: no
//                  status (a for-sale change); 0x40: extras follow the position
//     varint position in the layout
//     extras: a flags byte, then in this order what it names: 1 holdToken (varint length,
//             UTF-8), 2 orderId (likewise), 4 GA counts (varint booked, varint held),
//             8 notForSale (varint), 16 quantity (varint; 1 when absent)
// Varints are unsigned LEB128: 7 bits a byte, least significant first, high bit set while
// more follow; up to 2^53.

export const SNAPSHOT = 1;
export const SNAPSHOT_RESET = 2;
export const CHANGES = 3;
export const CONFLATED = 4;

export type FrameKind = typeof SNAPSHOT | typeof SNAPSHOT_RESET | typeof CHANGES | typeof CONFLATED;

/** The statuses every table starts with, codes 0, 1, 2. */
export const FIRST_STATUSES = ['free', 'booked', 'reservedByToken'] as const;

const CODE_BITS = 0x3f;
const CODE_FOLLOWS = 62;
const NO_STATUS = 63;
const HAS_EXTRAS = 0x40;
const HOLD_TOKEN = 1;
const ORDER_ID = 2;
const COUNTS = 4;
const NOT_FOR_SALE = 8;
const QUANTITY = 16;

/** One entry of a frame: an object's change, or in a snapshot or conflated frame its whole state. */
export interface CompactEntry {
  position: number;
  /** Absent: a for-sale change (notForSale alone). */
  status?: string;
  holdToken?: string;
  orderId?: string;
  booked?: number;
  held?: number;
  notForSale?: number;
  /** Places the change applied to (GA areas); 1 when absent. */
  quantity?: number;
}

export interface DecodedFrame {
  kind: FrameKind;
  from: number;
  to: number;
  /** Snapshots only. */
  layoutVersion?: string;
  entries: CompactEntry[];
}

/** Status names and their codes, as an event's frames number them: codes are never reused. */
export class StatusTable {
  readonly names: string[] = [...FIRST_STATUSES];
  private readonly codes = new Map<string, number>(FIRST_STATUSES.map((name, code) => [name, code]));
  /** Codes added since the last takeAdded. */
  private added: number[] = [];

  codeOf(name: string): number {
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.names.push(name);
      this.codes.set(name, code);
      this.added.push(code);
    }
    return code;
  }

  /** The codes added since the last call (what the next changes frame carries). */
  takeAdded(): number[] {
    const added = this.added;
    this.added = [];
    return added;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A frame written byte by byte into a buffer that grows. */
class Writer {
  bytes = new Uint8Array(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  varint(value: number): void {
    this.room(8);
    while (value >= 0x80) {
      this.bytes[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.bytes[this.length++] = value;
  }

  text(value: string): void {
    const utf8 = encoder.encode(value);
    this.varint(utf8.length);
    this.room(utf8.length);
    this.bytes.set(utf8, this.length);
    this.length += utf8.length;
  }

  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Writes one frame: the header, the table (whole, or the codes given), then entries one at a time. */
export class FrameWriter {
  private readonly out = new Writer();

  constructor(kind: FrameKind, from: number, to: number, table: StatusTable, codes: 'all' | number[], layoutVersion?: string) {
    const out = this.out;
    out.byte(kind);
    out.varint(from);
    out.varint(to);
    if (kind === SNAPSHOT || kind === SNAPSHOT_RESET) out.text(layoutVersion ?? '');
    const listed = codes === 'all' ? table.names.map((_, code) => code) : codes;
    out.varint(listed.length);
    for (const code of listed) {
      out.varint(code);
      out.text(table.names[code]!);
    }
  }

  /** One entry; `code` is the status's code in the table (undefined: a for-sale change). */
  entry(position: number, code: number | undefined, entry: Omit<CompactEntry, 'position' | 'status'>): void {
    const out = this.out;
    let flags = 0;
    if (entry.holdToken !== undefined) flags |= HOLD_TOKEN;
    if (entry.orderId !== undefined) flags |= ORDER_ID;
    if (entry.booked !== undefined || entry.held !== undefined) flags |= COUNTS;
    if (entry.notForSale !== undefined && entry.notForSale > 0) flags |= NOT_FOR_SALE;
    if (entry.quantity !== undefined && entry.quantity !== 1) flags |= QUANTITY;
    // A for-sale change always says how many places are off sale, 0 included.
    if (code === undefined) flags |= NOT_FOR_SALE;
    const status = code === undefined ? NO_STATUS : code < CODE_FOLLOWS ? code : CODE_FOLLOWS;
    out.byte(status | (flags === 0 ? 0 : HAS_EXTRAS));
    out.varint(position);
    if (status === CODE_FOLLOWS) out.varint(code!);
    if (flags === 0) return;
    out.byte(flags);
    if (flags & HOLD_TOKEN) out.text(entry.holdToken!);
    if (flags & ORDER_ID) out.text(entry.orderId!);
    if (flags & COUNTS) {
      out.varint(entry.booked ?? 0);
      out.varint(entry.held ?? 0);
    }
    if (flags & NOT_FOR_SALE) out.varint(entry.notForSale ?? 0);
    if (flags & QUANTITY) out.varint(entry.quantity!);
  }

  done(): Uint8Array {
    return this.out.done();
  }
}

/** The byte past a varint, and its value. */
function readVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= bytes.length) throw new Error('compact frame: truncated');
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 0x80;
  }
}

function readText(bytes: Uint8Array, at: number): [string, number] {
  const [length, start] = readVarint(bytes, at);
  if (start + length > bytes.length) throw new Error('compact frame: truncated');
  return [decoder.decode(bytes.subarray(start, start + length)), start + length];
}

/**
 * Reads an event's frames in the order they come, keeping the status table they build: a
 * client keeps one per subscription (a new one after reconnecting).
 */
export class FrameDecoder {
  readonly statuses: string[] = [...FIRST_STATUSES];

  decode(frame: Uint8Array): DecodedFrame {
    const kind = frame[0] as FrameKind;
    if (kind < SNAPSHOT || kind > CONFLATED) throw new Error(`compact frame: unknown kind ${kind}`);
    let at = 1;
    let from: number;
    let to: number;
    [from, at] = readVarint(frame, at);
    [to, at] = readVarint(frame, at);
    let layoutVersion: string | undefined;
    if (kind === SNAPSHOT || kind === SNAPSHOT_RESET) [layoutVersion, at] = readText(frame, at);
    let count: number;
    [count, at] = readVarint(frame, at);
    for (let i = 0; i < count; i++) {
      let code: number;
      let name: string;
      [code, at] = readVarint(frame, at);
      [name, at] = readText(frame, at);
      this.statuses[code] = name;
    }
    const entries: CompactEntry[] = [];
    while (at < frame.length) {
      const head = frame[at++]!;
      let position: number;
      [position, at] = readVarint(frame, at);
      let code = head & CODE_BITS;
      if (code === CODE_FOLLOWS) [code, at] = readVarint(frame, at);
      const entry: CompactEntry = { position };
      if ((head & CODE_BITS) !== NO_STATUS) {
        const status = this.statuses[code];
        if (status === undefined) throw new Error(`compact frame: status code ${code} is in no table`);
        entry.status = status;
      }
      if (head & HAS_EXTRAS) {
        const flags = frame[at++]!;
        if (flags & HOLD_TOKEN) [entry.holdToken, at] = readText(frame, at);
        if (flags & ORDER_ID) [entry.orderId, at] = readText(frame, at);
        if (flags & COUNTS) {
          [entry.booked, at] = readVarint(frame, at);
          [entry.held, at] = readVarint(frame, at);
        }
        if (flags & NOT_FOR_SALE) [entry.notForSale, at] = readVarint(frame, at);
        if (flags & QUANTITY) [entry.quantity, at] = readVarint(frame, at);
      }
      entries.push(entry);
    }
    return layoutVersion === undefined ? { kind, from, to, entries } : { kind, from, to, layoutVersion, entries };
  }
}

/** The seq range of a frame from its header alone (what a client checks continuity with), without decoding the rest. */
export function frameRange(frame: Uint8Array): { kind: FrameKind; from: number; to: number } {
  const [from, at] = readVarint(frame, 1);
  const [to] = readVarint(frame, at);
  return { kind: frame[0] as FrameKind, from, to };
}
