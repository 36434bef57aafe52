import { once } from 'node:events';
import { constants, createGzip } from 'node:zlib';

// A body compressed while it is being made: each part goes to zlib (on libuv's thread
// pool) as soon as it exists, so a big report is mostly compressed by the time its last
// part is written, instead of compressed whole afterwards (docs/reports.md, "Compression").
// Writers wait (`drained`) while more than MAX_PENDING_BYTES wait for zlib: otherwise a
// 60 MB report written faster than it is compressed sat in memory whole, uncompressed.

const MAX_PENDING_BYTES = 4 * 1024 * 1024;

export class GzipStream {
  private readonly gzip = createGzip({ level: constants.Z_BEST_SPEED });
  private readonly chunks: Buffer[] = [];
  private readonly done: Promise<Buffer>;

  constructor() {
    this.done = new Promise((resolve, reject) => {
      this.gzip.on('data', (chunk: Buffer) => this.chunks.push(chunk));
      this.gzip.on('end', () => resolve(Buffer.concat(this.chunks)));
      this.gzip.on('error', reject);
    });
  }

  write(part: Buffer | string): void {
    if (part.length > 0) this.gzip.write(part);
  }

  /** Resolves once zlib has taken what was written, if more than MAX_PENDING_BYTES of it waits. */
  async drained(): Promise<void> {
    if (this.gzip.writableLength > MAX_PENDING_BYTES) await once(this.gzip, 'drain');
  }

  /** The whole body, gzipped. */
  finish(): Promise<Buffer> {
    this.gzip.end();
    return this.done;
  }
}
