import { describe, expect, it } from 'vitest';
import { RequestIds } from '../../src/http/requestIds.js';

// A request's id goes into its answer's header as bytes (src/http/requestIds.ts) and into logs
// and error bodies as text: the two must be the same id.
describe('RequestIds', () => {
  it('writes the same id as bytes as it gives as text, whatever the number of digits', () => {
    const ids = new RequestIds();
    const numbers = [1, 9, 10, 35, 36, 37, 1295, 1296, 46655, 46656, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 3, Number.MAX_SAFE_INTEGER];
    for (let n = 1; n < 3000; n += 13) numbers.push(n);
    for (const n of numbers) expect(Buffer.from(ids.bytesOf(n)).toString('latin1'), String(n)).toBe(ids.text(n));
    // Longer, then shorter again: each view is as long as its id.
    expect(Buffer.from(ids.bytesOf(1296)).toString()).toBe(ids.text(1296));
    expect(Buffer.from(ids.bytesOf(7)).toString()).toBe(ids.text(7));
  });

  it('counts up from one, with a part of its own per process', () => {
    const a = new RequestIds();
    const b = new RequestIds();
    expect([a.next(), a.next(), a.next()]).toEqual([1, 2, 3]);
    expect(a.text(3)).toMatch(/^[0-9a-f]{8}-3$/);
    expect(a.text(1)).not.toBe(b.text(1));
  });
});
