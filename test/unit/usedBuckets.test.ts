import { describe, expect, it } from 'vitest';
import { byUsedBucket, usedBucketsFor } from '../../src/domain/usedBuckets.js';

// How used objects are spread over bucket keys (src/domain/usedBuckets.ts): small enough
// buckets for Redis's compact encoding, and a few neighbouring seats in one bucket.
describe('used-object buckets', () => {
  it('gives a power of two with at most 48 objects a bucket on average, capped at 8,192', () => {
    expect(usedBucketsFor(0)).toBe(1);
    expect(usedBucketsFor(48)).toBe(1);
    expect(usedBucketsFor(49)).toBe(2);
    expect(usedBucketsFor(10_000)).toBe(256);
    expect(usedBucketsFor(100_000)).toBe(4096);
    expect(usedBucketsFor(10_000_000)).toBe(8192);
  });

  it('puts seats 16 apart or less in a row together, and every label in exactly one bucket', () => {
    const labels = Array.from({ length: 100 }, (_, i) => `S1-A-${i + 1}`);
    const grouped = byUsedBucket(labels, 4096);
    expect([...grouped.values()].flat().sort()).toEqual([...labels].sort());
    const bucketOf = (label: string) => [...grouped].find(([, list]) => list.includes(label))![0];
    expect(bucketOf('S1-A-1')).toBe(bucketOf('S1-A-15'));
    expect(bucketOf('S1-A-16')).toBe(bucketOf('S1-A-31'));
    for (const [bucket] of grouped) {
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(4096);
    }
  });

  it('spreads a 100,000-seat chart so that no bucket outgrows a listpack (128 fields)', () => {
    const labels: string[] = [];
    for (let s = 1; s <= 10; s++) for (let r = 0; r < 100; r++) for (let n = 1; n <= 100; n++) labels.push(`S${s}-R${r}-${n}`);
    const sizes = [...byUsedBucket(labels, usedBucketsFor(labels.length)).values()].map((list) => list.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
  });

  it('keeps every label in the bucket earlier versions put it in', () => {
    // Computed by the first version (a regular expression and a joined key); a month's
    // count adds up the buckets, so a label that moved would count twice.
    const buckets = { '42': 5472, 'S1-A-1': 1029, 'S1-A-15': 1029, 'S1-A-16': 626, GA: 5285, 'Box 7': 2797, 'A-99999999999999999999': 7023, 'Ärea-3': 1543, 'table 12-x': 6863, '-5': 2211, 'S1-A-0': 1029 };
    for (const [label, bucket] of Object.entries(buckets)) expect([...byUsedBucket([label], 8192).keys()], label).toEqual([bucket]);
  });
});
