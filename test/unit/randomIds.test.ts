import { describe, expect, it } from 'vitest';
import { randomId } from '../../src/util/randomIds.js';

// Hold tokens are drawn from a pool of random bytes (src/util/randomIds.ts): each id must be
// fresh, across refills of the pool too.

describe('randomId', () => {
  it('gives ids of the asked size, never the same one twice across many refills of the pool', () => {
    const seen = new Set<string>();
    // 16 bytes each: 256 ids a pool, so 20,000 ids refill it 78 times.
    for (let i = 0; i < 20_000; i++) {
      const id = randomId(16);
      expect(Buffer.from(id, 'base64url')).toHaveLength(16);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });

  it('takes sizes that do not divide the pool, and refuses more than it holds', () => {
    const ids = Array.from({ length: 1_000 }, () => randomId(7));
    expect(new Set(ids).size).toBe(1_000);
    expect(ids.every((id) => Buffer.from(id, 'base64url').length === 7)).toBe(true);
    expect(() => randomId(4097)).toThrow(RangeError);
  });
});
