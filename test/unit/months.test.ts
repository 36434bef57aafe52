import { describe, expect, it } from 'vitest';
import { monthOf } from '../../src/domain/usedBuckets.js';

// monthOf keeps its last answer for the rest of that month: the boundaries must still move.
describe('monthOf', () => {
  it('gives the UTC month, across month and year boundaries, in any order of calls', () => {
    const at = (iso: string) => monthOf(Date.parse(iso));
    expect(at('2026-11-22T12:00:00Z')).toBe('2026-11');
    expect(at('2026-11-30T23:59:59.999Z')).toBe('2026-11');
    expect(at('2026-12-01T00:00:00Z')).toBe('2026-12');
    expect(at('2026-11-01T00:00:00Z')).toBe('2026-11');
    expect(at('2026-10-31T23:59:59.999Z')).toBe('2026-10');
    expect(at('2026-12-31T23:59:59.999Z')).toBe('2026-12');
    expect(at('2027-01-01T00:00:00Z')).toBe('2027-01');
    expect(at('2024-02-29T08:00:00+09:00')).toBe('2024-02');
    expect(at('2024-03-01T08:00:00+09:00')).toBe('2024-02');
  });
});
