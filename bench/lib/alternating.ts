import type { Figures } from './measure.js';

// `--alternate N` (bench/run.ts): the lean reference, book2 and holdThenBook measured in N
// rounds, one right after the other, the order reversed every round. This machine's speed
// drifts by up to half within minutes, and the run's single reference scenario is measured a
// minute or more before book2 (and holdThenBook later still): their ratios then move with the
// drift as much as with the code. Within a round the three are seconds apart, and reversing
// the order cancels a steady drift over two rounds, so the rounds' ratios, their median and
// their spread, are what a change can be judged by (docs/benchmarks.md, "Alternating rounds").

/** The scenarios of a round, in the order of the rounds that start with the reference. */
export const ROUND_SCENARIOS = ['referenceBook2', 'book2', 'holdThenBook'] as const;
export type RoundScenario = (typeof ROUND_SCENARIOS)[number];

/** The order of round `index` (from 0): as ROUND_SCENARIOS, reversed every other round. */
export const roundOrder = (index: number): RoundScenario[] => (index % 2 === 0 ? [...ROUND_SCENARIOS] : [...ROUND_SCENARIOS].reverse());

/** One side of a round: what a ratio is made of. */
export interface RoundSide {
  rps: number;
  p99Ms: number;
  serverUsPerRequest: number;
  serverMainThreadUsPerRequest: number;
  redisUsPerRequest: number;
}

type Checked = RoundSide & { doubleBookings: number; lostBookings: number };

/** One round: every side, the bookings' correctness checks, and the ratios a target judges. */
export interface AlternatingRound {
  order: RoundScenario[];
  reference: RoundSide;
  book2: Checked;
  holdThenBook: Checked;
  /** book2 as multiples of the reference. */
  serverToReference: number;
  redisToReference: number;
  p99ToReference: number;
  /** holdThenBook's server and Redis CPU per request as multiples of book2's in the round. */
  holdThenBookServerToBook2: number;
  holdThenBookRedisToBook2: number;
}

/** The rounds' ratios: median, lowest and highest of each. */
export interface AlternatingSummary {
  rounds: AlternatingRound[];
  serverToReference: Spread;
  redisToReference: Spread;
  p99ToReference: Spread;
  holdThenBookServerToBook2: Spread;
  holdThenBookRedisToBook2: Spread;
  /** double and lost bookings over all rounds' book2 and holdThenBook (must be 0). */
  doubleOrLostBookings: number;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

const side = (figures: Figures): RoundSide => ({
  rps: figures.rps,
  p99Ms: figures.p99Ms,
  serverUsPerRequest: figures.serverUsPerRequest ?? NaN,
  serverMainThreadUsPerRequest: figures.serverMainThreadUsPerRequest ?? NaN,
  redisUsPerRequest: figures.redisUsPerRequest ?? NaN,
});

const checked = (figures: Figures): Checked => ({ ...side(figures), doubleBookings: figures.doubleBookings ?? 0, lostBookings: figures.lostBookings ?? 0 });

const ratio = (ours: number, reference: number) => Math.round((ours / reference) * 100) / 100;

/** A round from the figures of its scenarios (their CPU per request already worked out). */
export function alternatingRound(order: RoundScenario[], figures: Record<RoundScenario, Figures>): AlternatingRound {
  const r = side(figures.referenceBook2);
  const b = checked(figures.book2);
  const h = checked(figures.holdThenBook);
  return {
    order,
    reference: r,
    book2: b,
    holdThenBook: h,
    serverToReference: ratio(b.serverUsPerRequest, r.serverUsPerRequest),
    redisToReference: ratio(b.redisUsPerRequest, r.redisUsPerRequest),
    p99ToReference: ratio(b.p99Ms, r.p99Ms),
    holdThenBookServerToBook2: ratio(h.serverUsPerRequest, b.serverUsPerRequest),
    holdThenBookRedisToBook2: ratio(h.redisUsPerRequest, b.redisUsPerRequest),
  };
}

/** The median (the mean of the two middle ones for an even count), lowest and highest. */
export function spreadOf(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median: Math.round(median * 100) / 100, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function summarizeAlternating(rounds: AlternatingRound[]): AlternatingSummary {
  const spread = (of: (round: AlternatingRound) => number) => spreadOf(rounds.map(of));
  return {
    rounds,
    serverToReference: spread((r) => r.serverToReference),
    redisToReference: spread((r) => r.redisToReference),
    p99ToReference: spread((r) => r.p99ToReference),
    holdThenBookServerToBook2: spread((r) => r.holdThenBookServerToBook2),
    holdThenBookRedisToBook2: spread((r) => r.holdThenBookRedisToBook2),
    doubleOrLostBookings: rounds.reduce((sum, r) => sum + r.book2.doubleBookings + r.book2.lostBookings + r.holdThenBook.doubleBookings + r.holdThenBook.lostBookings, 0),
  };
}

export const describeSpread = (spread: Spread) => `${spread.median} (${spread.min}–${spread.max})`;
