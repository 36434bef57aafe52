import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32Combine } from '../../src/util/crc32Combine.js';

// The CRC-32 of two byte strings joined, from theirs (src/util/crc32Combine.ts), against
// zlib's CRC of the joined bytes.

describe('crc32Combine', () => {
  it('equals the CRC of the joined bytes, for lengths from none to several blocks', () => {
    for (const [a, b] of [
      [0, 0],
      [0, 17],
      [17, 0],
      [1, 1],
      [1000, 3],
      [3, 65_537],
      [1 << 20, (1 << 20) + 12_345],
    ] as const) {
      const first = randomBytes(a);
      const second = randomBytes(b);
      expect(crc32Combine(crc32(first), crc32(second), b), `${a} + ${b} bytes`).toBe(crc32(Buffer.concat([first, second])));
    }
  });

  it('folds over many pieces as over one', () => {
    const pieces = Array.from({ length: 20 }, (_, i) => randomBytes(i * 997));
    const folded = pieces.reduce((crc, piece) => crc32Combine(crc, crc32(piece), piece.length), 0);
    expect(folded).toBe(crc32(Buffer.concat(pieces)));
  });
});
