import { describe, expect, it } from 'vitest';
import { alternatingRound, improvementFactors, roundOrder, spreadOf, summarizeAlternating, type RoundScenario } from '../../bench/lib/alternating.js';
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

  it('with the reference\'s own floor of releaseChurn or seasonEventBook in a round, sets it against the reference\'s booking and ours against it, and counts its refused requests', () => {
    const order: RoundScenario[] = ['referenceBook2', 'book2', 'referenceReleaseChurn', 'releaseChurn', 'referenceSeasonEventBook', 'seasonEventBook'];
    const rounds = [
      alternatingRound(order, {
        referenceBook2: figures(20, 10, 10),
        book2: figures(30, 15, 12),
        referenceReleaseChurn: figures(20, 11, 10),
        releaseChurn: figures(32, 16.5, 12),
        referenceSeasonEventBook: figures(22, 13, 10),
        seasonEventBook: figures(33, 26, 12),
      }),
      // No season floor in this round: only releaseChurn has its own.
      alternatingRound(roundOrder(order.slice(0, 4), 1), {
        referenceBook2: figures(40, 20, 10),
        book2: figures(56, 30, 12),
        referenceReleaseChurn: { ...figures(36, 20, 10), non2xx: 2 },
        releaseChurn: figures(54, 34, 12),
      }),
    ];
    expect(rounds[0]!.ownReference).toMatchObject({
      releaseChurn: { server: 1, redis: 1.1, ours: { server: 1.6, redis: 1.5 } },
      seasonEventBook: { server: 1.1, redis: 1.3, ours: { server: 1.5, redis: 2 } },
    });
    expect(rounds[1]!.ownReference).toMatchObject({ releaseChurn: { server: 0.9, redis: 1, ours: { server: 1.5, redis: 1.7 } } });
    expect(rounds[1]!.ownReference.seasonEventBook).toBeUndefined();
    const summary = summarizeAlternating(rounds);
    expect(summary.ownReference.releaseChurn).toEqual({
      server: { median: 0.95, min: 0.9, max: 1 },
      redis: { median: 1.05, min: 1, max: 1.1 },
      ours: { server: { median: 1.55, min: 1.5, max: 1.6 }, redis: { median: 1.6, min: 1.5, max: 1.7 } },
    });
    expect(summary.ownReference.seasonEventBook).toMatchObject({ server: { median: 1.1 }, ours: { redis: { median: 2 } } });
    expect(summary.non2xx).toBe(2);
    // Without the reference's floors, a round has none.
    const plain = alternatingRound(['referenceBook2', 'book2', 'releaseChurn'], { referenceBook2: figures(20, 10, 10), book2: figures(30, 15, 12), releaseChurn: figures(32, 16.5, 12) });
    expect(plain.ownReference).toEqual({});
    expect(summarizeAlternating([plain]).ownReference).toEqual({});
  });

  it('says by what factor each figure went down between two versions, each scenario against book2, with the spread the rounds allow', () => {
    const withChurn: RoundScenario[] = ['referenceBook2', 'book2', 'releaseChurn'];
    const round = (reference: number, book2: number, churn: number, redis: number) =>
      alternatingRound(withChurn, { referenceBook2: figures(reference, 10, 10), book2: figures(book2, redis, 20), releaseChurn: figures(churn, redis, 20) });
    // The machine twice as fast in the second round of each side: figures to the reference do not move.
    const before = [round(10, 30, 30, 20), round(5, 15, 15, 20)];
    const after = [round(10, 15, 20, 10), round(5, 7.5, 10, 10), round(10, 15, 20, 10)];
    // holdThenBook only after: nothing to compare it with.
    after.push(alternatingRound(['referenceBook2', 'book2', 'holdThenBook'], { referenceBook2: figures(10, 10, 10), book2: figures(15, 10, 20), holdThenBook: figures(18, 15, 20) }));
    const factors = improvementFactors(before, after);
    expect(Object.keys(factors).sort()).toEqual(['book2 Redis', 'book2 p99', 'book2 server', 'releaseChurn Redis', 'releaseChurn server']);
    expect(factors['book2 server']).toMatchObject({ before: { median: 3 }, after: { median: 1.5 }, factor: 2 });
    expect(factors['book2 server']!.ofBook2Factor).toBeUndefined();
    expect(factors['book2 p99']).toMatchObject({ factor: 1 });
    expect(factors['book2 p99']!.ofBook2Factor).toBeUndefined();
    // 3 -> 2 against book2's 3 -> 1.5: three quarters of book2's factor, whichever rounds are drawn.
    expect(factors['releaseChurn server']).toMatchObject({ factor: 1.5, ofBook2Factor: 0.75, ofBook2Interval: [0.75, 0.75] });
    expect(factors['releaseChurn Redis']).toMatchObject({ factor: 2, ofBook2Factor: 1, ofBook2Interval: [1, 1] });
  });

  it('widens the interval of a factor against book2 with the spread of the rounds, around the factor of all of them', () => {
    const withChurn: RoundScenario[] = ['referenceBook2', 'book2', 'releaseChurn'];
    const round = (book2: number, churn: number) => alternatingRound(withChurn, { referenceBook2: figures(10, 10, 10), book2: figures(book2, 10, 20), releaseChurn: figures(churn, 10, 20) });
    const before = [round(30, 30), round(33, 27), round(27, 33), round(31, 29), round(29, 31)];
    const after = [round(15, 15), round(16, 14), round(14, 16), round(15.5, 14.5), round(14.5, 15.5)];
    const { ofBook2Factor, ofBook2Interval } = improvementFactors(before, after)['releaseChurn server']!;
    expect(ofBook2Factor).toBe(1);
    const [low, high] = ofBook2Interval!;
    expect(low).toBeLessThan(1);
    expect(high).toBeGreaterThan(1);
    // The same files give the same interval: the draws are seeded.
    expect(improvementFactors(before, after)['releaseChurn server']!.ofBook2Interval).toEqual([low, high]);
  });
});
