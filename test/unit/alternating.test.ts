import { describe, expect, it } from 'vitest';
import { alternatingRound, roundOrder, spreadOf, summarizeAlternating, type RoundScenario } from '../../bench/lib/alternating.js';
import type { Figures } from '../../bench/lib/measure.js';

// The bench's alternating rounds (bench/lib/alternating.ts): each round's ratios, and their median and spread.

const figures = (server: number, redis: number, p99: number, checks: Record<string, number> = {}): Figures => ({
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
  it('takes a round as book2 over the reference and each other scenario over book2, and the median of an odd count as its middle, of an even count as the mean of the two', () => {
    const three: RoundScenario[] = ['referenceBook2', 'book2', 'holdThenBook'];
    const round = (index: number, reference: Figures, book2: Figures, holdThenBook: Figures) =>
      alternatingRound(roundOrder(three, index), { referenceBook2: reference, book2, holdThenBook });
    const rounds = [
      round(0, figures(40, 20, 10), figures(60, 30, 20), figures(72, 45, 30)),
      round(1, figures(50, 25, 10), figures(90, 25, 12, { lostBookings: 1 }), figures(90, 50, 12, { doubleBookings: 2 })),
      round(2, figures(40, 20, 10), figures(52, 40, 30), figures(78, 40, 30)),
    ];
    expect(rounds.map((r) => r.order)).toEqual([three, [...three].reverse(), three]);
    expect(rounds.map((r) => r.serverToReference)).toEqual([1.5, 1.8, 1.3]);
    expect(rounds.map((r) => r.toBook2.holdThenBook!.server)).toEqual([1.2, 1, 1.5]);
    expect(rounds[0]!.toBook2.releaseChurn).toBeUndefined();
    const summary = summarizeAlternating(rounds);
    expect(summary.serverToReference).toEqual({ median: 1.5, min: 1.3, max: 1.8 });
    expect(summary.redisToReference).toEqual({ median: 1.5, min: 1, max: 2 });
    expect(summary.p99ToReference).toEqual({ median: 2, min: 1.2, max: 3 });
    expect(summary.toBook2).toEqual({ holdThenBook: { server: { median: 1.2, min: 1, max: 1.5 }, redis: { median: 1.5, min: 1, max: 2 } } });
    expect(summary.wrongBookings).toBe(3);
    expect(spreadOf([1.4, 1.9, 1.5, 1.6])).toEqual({ median: 1.55, min: 1.4, max: 1.9 });
  });

  it('judges releaseChurn and seasonEventBook against book2 when a round has them, their stray and season-and-event bookings and their refused requests counted', () => {
    const all: RoundScenario[] = ['referenceBook2', 'book2', 'releaseChurn', 'seasonEventBook'];
    const r = alternatingRound(roundOrder(all, 1), {
      referenceBook2: figures(40, 20, 10),
      book2: figures(60, 30, 20),
      releaseChurn: figures(54, 33, 20, { strayBookings: 1 }),
      seasonEventBook: figures(66, 54, 20, { seasonAndEventBookings: 1, non2xx: 3 }),
    });
    expect(r.order).toEqual([...all].reverse());
    expect(r.toBook2).toMatchObject({ releaseChurn: { server: 0.9, redis: 1.1 }, seasonEventBook: { server: 1.1, redis: 1.8 } });
    expect(summarizeAlternating([r]).wrongBookings).toBe(2);
    // A side whose requests were refused measured refusals, not bookings: the summary says how many.
    expect(r.toBook2.seasonEventBook!.side.non2xx).toBe(3);
    expect(summarizeAlternating([r]).non2xx).toBe(3);
  });
});
