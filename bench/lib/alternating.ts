import type { Figures } from './measure.js';

// `--alternate N` (bench/run.ts): the lean reference and book2 measured in N rounds, one right
// after the other, the order swapped every round. This machine's speed drifts by up to half
// within minutes, and the run's single reference scenario is measured a minute or more before
// book2: their ratio then moves with the drift as much as with the code. Within a round the two
// are seconds apart, and swapping the order cancels a steady drift over two rounds, so the
// rounds' ratios, their median and their spread, are what a change can be judged by
// (docs/benchmarks.md, "Alternating rounds").

/** One side of a round: what a ratio is made of. */
export interface RoundSide {
  rps: number;
  p99Ms: number;
  serverUsPerRequest: number;
  serverMainThreadUsPerRequest: number;
  redisUsPerRequest: number;
}

/** One round: both sides, book2's correctness checks, and book2 as multiples of the reference. */
export interface AlternatingRound {
  /** Which ran first. */
  first: 'reference' | 'book2';
  reference: RoundSide;
  book2: RoundSide & { doubleBookings: number; lostBookings: number };
  serverToReference: number;
  redisToReference: number;
  p99ToReference: number;
}

/** The rounds' ratios: median, lowest and highest of each. */
export interface AlternatingSummary {
  rounds: AlternatingRound[];
  serverToReference: Spread;
  redisToReference: Spread;
  p99ToReference: Spread;
  /** book2's double and lost bookings over all rounds (must be 0). */
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

const ratio = (ours: number, reference: number) => Math.round((ours / reference) * 100) / 100;

/** A round from the figures of its two scenarios (their CPU per request already worked out). */
export function alternatingRound(first: AlternatingRound['first'], reference: Figures, book2: Figures): AlternatingRound {
  const r = side(reference);
  const b = side(book2);
  return {
    first,
    reference: r,
    book2: { ...b, doubleBookings: book2.doubleBookings ?? 0, lostBookings: book2.lostBookings ?? 0 },
    serverToReference: ratio(b.serverUsPerRequest, r.serverUsPerRequest),
    redisToReference: ratio(b.redisUsPerRequest, r.redisUsPerRequest),
    p99ToReference: ratio(b.p99Ms, r.p99Ms),
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
  return {
    rounds,
    serverToReference: spreadOf(rounds.map((r) => r.serverToReference)),
    redisToReference: spreadOf(rounds.map((r) => r.redisToReference)),
    p99ToReference: spreadOf(rounds.map((r) => r.p99ToReference)),
    doubleOrLostBookings: rounds.reduce((sum, r) => sum + r.book2.doubleBookings + r.book2.lostBookings, 0),
  };
}

export const describeSpread = (spread: Spread) => `${spread.median} (${spread.min}–${spread.max})`;
