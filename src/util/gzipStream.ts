import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, deflateRawSync, type ZlibOptions } from 'node:zlib';
import { crc32Combine } from './crc32Combine.js';

// A body compressed while it is being made, in blocks compressed side by side on libuv's
// thread pool (docs/reports.md, "Compression"). One zlib stream compresses on one thread: a
// 60 MB report then waited for it with the event loop idle. Here each block of BLOCK_BYTES
// is deflated on its own as soon as it is full, ending on a byte boundary without the
// final-block bit (Z_SYNC_FLUSH), so the blocks joined in order are one deflate stream;
// the last block ends it. The CRC and length of the whole body make the gzip trailer. The
// answer is one ordinary gzip member (RFC 1952), as pigz makes them. How many blocks are
// compressed at once is the caller's to say, call by call: the report lane keeps it to one
// while sales requests are in flight, so compression takes no more of the machine than one
// zlib stream did (src/services/reportLane.ts).
// Writers wait (`drained`) while more than MAX_PENDING_BYTES wait to be compressed:
// otherwise a 60 MB report written faster than it is compressed sat in memory whole,
// uncompressed.
// Parts of the body may be written before their place in it is known (`apart`), compressed
// as they fill, and placed later (`append`): a detailed report writes each group as its
// objects turn up, and only at the end in the groups' order. Blocks are independent, so a
// part's blocks join the body as they are; the CRCs of the pieces combine into the body's.

/** Big enough that the blocks compress about as well as one stream, small enough to spread a report over the threads. */
const BLOCK_BYTES = 1 << 20;
const MAX_PENDING_BYTES = 4 * BLOCK_BYTES;

/** RFC 1952 header: magic, deflate, no flags, no mtime, no extra flags, OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

const deflateBlock = promisify<Buffer, ZlibOptions, Buffer>(deflateRaw);

/** Blocks compressed at once by default: one per core (libuv's pool has four threads). */
export const ALL_CORES = (): number => availableParallelism();

/**
 * No block on the thread pool: each is compressed on the writing thread, synchronously, as
 * it fills. The report thread compresses so, at its own lowered CPU priority; the pool's
 * threads are the process's, at the sale's priority.
 */
export const ON_THIS_THREAD = (): number => 0;

/** Compresses blocks on the thread pool, `width()` at a time, and counts the bytes waiting. */
class BlockCompressor {
  /** Blocks waiting for their turn to be compressed, and how many are being compressed. */
  private readonly queued: (() => void)[] = [];
  private compressing = 0;
  /** Bytes of blocks not compressed yet, and the writers waiting for them to go down. */
  private pendingBytes = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly width: () => number) {}

  compress(block: Buffer, last: boolean): Promise<Buffer> {
    const options = { level: constants.Z_BEST_SPEED, finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH };
    if (this.width() === 0) return Promise.resolve(deflateRawSync(block, options));
    this.pendingBytes += block.length;
    const deflated = new Promise<Buffer>((resolve, reject) => {
      this.queued.push(() =>
        deflateBlock(block, options)
          .then(resolve, reject)
          .finally(() => {
            this.compressing--;
            this.pendingBytes -= block.length;
            this.wakeWriters();
            this.startQueued();
          }),
      );
      this.startQueued();
    });
    // A body given up before `finish` (its writer threw) must not leave a rejection nobody
    // handles: `finish` still sees it through Promise.all.
    deflated.catch(() => undefined);
    return deflated;
  }

  drained(): Promise<void> {
    if (this.pendingBytes <= MAX_PENDING_BYTES) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private startQueued(): void {
    while (this.queued.length > 0 && this.compressing < Math.max(1, this.width())) {
      this.compressing++;
      this.queued.shift()!();
    }
  }

  private wakeWriters(): void {
    if (this.pendingBytes > MAX_PENDING_BYTES || this.waiting.length === 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }
}

/** Bytes written in order: whole blocks sent to be compressed, then what does not fill a block yet. */
export class GzipPart {
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** The compressed blocks, in order, and the CRC and length of what they hold. */
  private blocks: Promise<Buffer>[] = [];
  private crc = 0;
  private size = 0;

  constructor(private readonly compressor: BlockCompressor) {}

  write(part: Buffer | string): void {
    if (part.length === 0) return;
    const bytes = typeof part === 'string' ? Buffer.from(part) : part;
    this.parts.push(bytes);
    this.partBytes += bytes.length;
    if (this.partBytes >= BLOCK_BYTES) this.compressPending(false);
  }

  /** Places `other`'s bytes after this part's: its blocks as they are, its remainder as written. */
  append(other: GzipPart): void {
    if (other.blocks.length > 0) {
      if (this.partBytes > 0) this.compressPending(false);
      this.blocks.push(...other.blocks);
      this.crc = crc32Combine(this.crc, other.crc, other.size);
      this.size += other.size;
    }
    for (const bytes of other.parts) this.write(bytes);
    other.blocks = [];
    other.parts = [];
    other.partBytes = 0;
  }

  /** The part as a gzip member: its remainder compressed as the last block. */
  async member(): Promise<Buffer> {
    this.compressPending(true);
    const deflated = await Promise.all(this.blocks);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(this.crc >>> 0, 0);
    trailer.writeUInt32LE(this.size % 2 ** 32, 4);
    return Buffer.concat([GZIP_HEADER, ...deflated, trailer]);
  }

  private compressPending(last: boolean): void {
    const block = Buffer.concat(this.parts, this.partBytes);
    this.parts = [];
    this.partBytes = 0;
    this.crc = crc32(block, this.crc);
    this.size += block.length;
    this.blocks.push(this.compressor.compress(block, last));
  }
}

export class GzipStream {
  private readonly compressor: BlockCompressor;
  private readonly body: GzipPart;

  /** `width`: how many blocks may be compressed at once on the thread pool, asked each time one could start (ON_THIS_THREAD: none there). */
  constructor(width: () => number = ALL_CORES) {
    this.compressor = new BlockCompressor(width);
    this.body = new GzipPart(this.compressor);
  }

  write(part: Buffer | string): void {
    this.body.write(part);
  }

  /** A part written now and placed in the body later, by `append`; its full blocks are compressed as they fill. */
  apart(): GzipPart {
    return new GzipPart(this.compressor);
  }

  /** Places what was written to `part` here, after everything written so far; `part` is left empty. */
  append(part: GzipPart): void {
    this.body.append(part);
  }

  /** Resolves once no more than MAX_PENDING_BYTES of what was written (here or apart) waits to be compressed. */
  drained(): Promise<void> {
    return this.compressor.drained();
  }

  /** The whole body, gzipped. */
  finish(): Promise<Buffer> {
    return this.body.member();
  }
}
