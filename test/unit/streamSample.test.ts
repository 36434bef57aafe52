import { describe, expect, it } from 'vitest';
import { isSampled } from '../../bench/lib/streamSample.js';

const sampleOf = (count: number, sampled: number) => Array.from({ length: count }, (_, i) => i).filter((i) => isSampled(i, count, sampled));

describe('the status stream bench sample', () => {
  it('spreads its subscribers evenly over the order they open in, from the first to near the last', () => {
    const sample = sampleOf(5_000, 50);
    expect(sample).toHaveLength(50);
    expect(sample.slice(0, 3)).toEqual([0, 100, 200]);
    expect(sample.at(-1)).toBe(4_900);
  });

  it('takes every subscriber when there are no more than the sample, and as many as asked when the count does not divide', () => {
    expect(sampleOf(20, 50)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(sampleOf(20, 20)).toHaveLength(20);
    const uneven = sampleOf(1_030, 50);
    expect(uneven).toHaveLength(50);
    expect(uneven.at(-1)).toBe(49 * 20);
  });
});
