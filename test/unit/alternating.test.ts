import { describe, expect, it } from 'vitest';
import { alternatingRound, roundOrder, spreadOf, summarizeAlternating, type RoundScenario } from '../../bench/lib/alternating.js';

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
  it('takes a round as book2 over the reference and holdThenBook over book2, and the median of an odd count as its middle, of an even count as the mean of the two', () => {
    const round = (order: RoundScenario[], reference: ReturnType<typeof figures>, book2: ReturnType<typeof figures>, holdThenBook: ReturnType<typeof figures>) =>
      alternatingRound(order, { referenceBook2: reference, book2, holdThenBook });
    const rounds = [
      round(roundOrder(0), figures(40, 20, 10), figures(60, 30, 20), figures(72, 45, 30)),
      round(roundOrder(1), figures(50, 25, 10), figures(90, 25, 12, { lostBookings: 1 }), figures(90, 50, 12, { doubleBookings: 2 })),
      round(roundOrder(2), figures(40, 20, 10), figures(52, 40, 30), figures(78, 40, 30)),
    ];
    expect(rounds.map((r) => r.order)).toEqual([
      ['referenceBook2', 'book2', 'holdThenBook'],
      ['holdThenBook', 'book2', 'referenceBook2'],
      ['referenceBook2', 'book2', 'holdThenBook'],
    ]);
    expect(rounds.map((r) => r.serverToReference)).toEqual([1.5, 1.8, 1.3]);
    expect(rounds.map((r) => r.holdThenBookServerToBook2)).toEqual([1.2, 1, 1.5]);
    const summary = summarizeAlternating(rounds);
    expect(summary.serverToReference).toEqual({ median: 1.5, min: 1.3, max: 1.8 });
    expect(summary.redisToReference).toEqual({ median: 1.5, min: 1, max: 2 });
    expect(summary.p99ToReference).toEqual({ median: 2, min: 1.2, max: 3 });
    expect(summary.holdThenBookServerToBook2).toEqual({ median: 1.2, min: 1, max: 1.5 });
    expect(summary.holdThenBookRedisToBook2).toEqual({ median: 1.5, min: 1, max: 2 });
    expect(summary.doubleOrLostBookings).toBe(3);
    expect(spreadOf([1.4, 1.9, 1.5, 1.6])).toEqual({ median: 1.55, min: 1.4, max: 1.9 });
  });
});
