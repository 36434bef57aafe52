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

  it('reads a trailing number in place as the text of its sixteenth would', () => {
    // The first version's way: the number's text, divided by 16, written out and hashed.
    const fnv = (hash: number, text: string) => {
      for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
      return hash;
    };
    const byText = (label: string, buckets: number) => {
      const [, before, number] = /^(.*?)(\d+)$/.exec(label)!;
      return (fnv(fnv(0x811c9dc5, before!) , '#' + String(Math.floor(Number(number) / 16))) >>> 0) % buckets;
    };
    const labels = ['A-0', 'A-007', 'A-15', 'A-16', 'A-159', 'A-160', 'R-999999999', 'R-1000000000', 'R-0000000001', '7', '123456789'];
    for (let n = 1; n <= 5000; n += 7) labels.push(`S2-R${n % 40}-${n}`);
    for (const label of labels) expect([...byUsedBucket([label], 8192).keys()], label).toEqual([byText(label, 8192)]);
  });

  it('keeps every label in the bucket earlier versions put it in', () => {
    // Computed by the first version (a regular expression and a joined key); a month's
    // count adds up the buckets, so a label that moved would count twice.
    const buckets = { '42': 5472, 'S1-A-1': 1029, 'S1-A-15': 1029, 'S1-A-16': 626, GA: 5285, 'Box 7': 2797, 'A-99999999999999999999': 7023, 'Ärea-3': 1543, 'table 12-x': 6863, '-5': 2211, 'S1-A-0': 1029 };
    for (const [label, bucket] of Object.entries(buckets)) expect([...byUsedBucket([label], 8192).keys()], label).toEqual([bucket]);
  });
});
