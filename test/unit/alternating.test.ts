import { describe, expect, it } from 'vitest';
import { alternatingRound, spreadOf, summarizeAlternating } from '../../bench/lib/alternating.js';

// The bench's alternating rounds (bench/lib/alternating.ts): each round's ratios, and their median and spread.

const figures = (server: number, redis: number, p99: number, checks: Record<string, number> = {}) => ({
  rps: 1000,
  p50Ms: 1,
  p99Ms: p99,
  non2xx: 0,
  errors: 0,
  requests: 1000,
  serverUsPerRequest: server,
  serverMainThreadUsPerRequest: server,
  redisUsPerRequest: redis,
  ...checks,
});

describe('alternating rounds', () => {
  it('takes a round as book2 over the reference, and the median of an odd count as its middle, of an even count as the mean of the two', () => {
    const rounds = [
      alternatingRound('reference', figures(40, 20, 10), figures(60, 30, 20)),
      alternatingRound('book2', figures(50, 25, 10), figures(90, 25, 12, { lostBookings: 1 })),
      alternatingRound('reference', figures(40, 20, 10), figures(52, 40, 30)),
    ];
    expect(rounds.map((r) => r.serverToReference)).toEqual([1.5, 1.8, 1.3]);
    const summary = summarizeAlternating(rounds);
    expect(summary.serverToReference).toEqual({ median: 1.5, min: 1.3, max: 1.8 });
    expect(summary.redisToReference).toEqual({ median: 1.5, min: 1, max: 2 });
    expect(summary.p99ToReference).toEqual({ median: 2, min: 1.2, max: 3 });
    expect(summary.doubleOrLostBookings).toBe(1);
    expect(spreadOf([1.4, 1.9, 1.5, 1.6])).toEqual({ median: 1.55, min: 1.4, max: 1.9 });
  });
});
