import { randomFillSync } from 'node:crypto';

// Random ids drawn from a pool the CSPRNG fills 4 KiB at a time. Each call of randomBytes
// costs a call into OpenSSL whatever its size, about 5 µs here, which made a quarter of a
// hold token's creation (docs/performance.md, "The direct path"); Node's own randomUUID keeps
// such a pool for the same reason. Every byte is handed out once.

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/** `bytes` (at most 4 KiB) fresh random bytes as base64url text. */
export function randomId(bytes: number): string {
  if (bytes > POOL_BYTES) throw new RangeError(`randomId draws at most ${POOL_BYTES} bytes`);
  if (used + bytes > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const id = pool.toString('base64url', used, used + bytes);
  used += bytes;
  return id;
}
