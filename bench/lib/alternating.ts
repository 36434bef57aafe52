import type { Figures } from './measure.js';

// `--alternate N` (bench/run.ts): the lean reference, book2 and the scenarios judged against
// book2 that the run ran (holdThenBook, releaseChurn, seasonEventBook) measured in N rounds,
// one right after the other, the order reversed every round. This machine's speed drifts by up
// to half within minutes, and the run's single reference scenario is measured a minute or more
// before book2 (and the others later still): their ratios then move with the drift as much as
// with the code. Within a round they are seconds apart, and reversing the order cancels a
// steady drift over two rounds, so the rounds' ratios, their median and their spread, are what
// a change can be judged by (docs/benchmarks.md, "Alternating rounds").

/**
 * The scenarios judged against book2 in the rounds, with what each cost against book2 at the
 * issue's start (server / Redis CPU per request; docs/performance.md, "Where the targets stand
 * (session 21)"): each is to improve by book2's factor or more, that is cost no more than this.
 */
export const AGAINST_BOOK2 = {
  holdThenBook: { server: 1.23, redis: 1.55 },
  releaseChurn: { server: 0.91, redis: 0.97 },
  seasonEventBook: { server: 1.02, redis: 1.87 },
} as const;
export type AgainstBook2 = keyof typeof AGAINST_BOOK2;
export type RoundScenario = 'referenceBook2' | 'book2' | AgainstBook2;

/** The order of round `index` (from 0) of `scenarios` (the reference and book2 first, or any ways compared): as given, reversed every other round. */
export const roundOrder = <T>(scenarios: readonly T[], index: number): T[] => (index % 2 === 0 ? [...scenarios] : [...scenarios].reverse());

/** One side of a round: what a ratio is made of. */
export interface RoundSide {
  rps: number;
  p99Ms: number;
  serverUsPerRequest: number;
  serverMainThreadUsPerRequest: number;
  redisUsPerRequest: number;
  /** Answers other than 2xx: a side that got any measured something else than its requests succeeding. */
  non2xx: number;
}

/** A side whose bookings are checked: its correctness figures (each must be 0). */
type Checked = RoundSide & { wrongBookings: number };

/** One scenario against book2 in a round: its side, and its server and Redis CPU per request as multiples of book2's. */
export interface ToBook2 {
  side: Checked;
  server: number;
  redis: number;
}

/** One round: every side, the bookings' correctness checks, and the ratios a target judges. */
export interface AlternatingRound {
  order: RoundScenario[];
  reference: RoundSide;
  book2: Checked;
  /** book2 as multiples of the reference. */
  serverToReference: number;
  redisToReference: number;
  p99ToReference: number;
  /** Each scenario of the round judged against book2. */
  toBook2: Partial<Record<AgainstBook2, ToBook2>>;
}

/** The rounds' ratios: median, lowest and highest of each. */
export interface AlternatingSummary {
  rounds: AlternatingRound[];
  serverToReference: Spread;
  redisToReference: Spread;
  p99ToReference: Spread;
  toBook2: Partial<Record<AgainstBook2, { server: Spread; redis: Spread }>>;
  /** double, lost and stray bookings over all rounds' scenarios (must be 0). */
  wrongBookings: number;
  /** Answers other than 2xx over all rounds' scenarios: every request of a round is meant to succeed (must be 0). */
  non2xx: number;
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
  non2xx: figures.non2xx,
});

/** What a scenario's checks count as wrong: double, lost or stray bookings, a seat booked in a season and its event. */
const wrongOf = (f: Figures) => (f.doubleBookings ?? 0) + (f.lostBookings ?? 0) + (f.strayBookings ?? 0) + (f.seasonAndEventBookings ?? 0);

const checked = (figures: Figures): Checked => ({ ...side(figures), wrongBookings: wrongOf(figures) });

const ratio = (ours: number, reference: number) => Math.round((ours / reference) * 100) / 100;

/** A round from the figures of its scenarios (their CPU per request already worked out). */
export function alternatingRound(order: RoundScenario[], figures: Partial<Record<RoundScenario, Figures>>): AlternatingRound {
  const r = side(figures.referenceBook2!);
  const b = checked(figures.book2!);
  const toBook2: AlternatingRound['toBook2'] = {};
  for (const name of Object.keys(AGAINST_BOOK2) as AgainstBook2[]) {
    const f = figures[name];
    if (!f) continue;
    const s = checked(f);
    toBook2[name] = { side: s, server: ratio(s.serverUsPerRequest, b.serverUsPerRequest), redis: ratio(s.redisUsPerRequest, b.redisUsPerRequest) };
  }
  return {
    order,
    reference: r,
    book2: b,
    serverToReference: ratio(b.serverUsPerRequest, r.serverUsPerRequest),
    redisToReference: ratio(b.redisUsPerRequest, r.redisUsPerRequest),
    p99ToReference: ratio(b.p99Ms, r.p99Ms),
    toBook2,
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
  const toBook2: AlternatingSummary['toBook2'] = {};
  for (const name of Object.keys(AGAINST_BOOK2) as AgainstBook2[]) {
    const ran = rounds.map((round) => round.toBook2[name]).filter((r): r is ToBook2 => r !== undefined);
    if (ran.length > 0) toBook2[name] = { server: spreadOf(ran.map((r) => r.server)), redis: spreadOf(ran.map((r) => r.redis)) };
  }
  return {
    rounds,
    serverToReference: spread((r) => r.serverToReference),
    redisToReference: spread((r) => r.redisToReference),
    p99ToReference: spread((r) => r.p99ToReference),
    toBook2,
    wrongBookings: rounds.reduce((sum, r) => sum + r.book2.wrongBookings + Object.values(r.toBook2).reduce((n, x) => n + x.side.wrongBookings, 0), 0),
    non2xx: rounds.reduce((sum, r) => sum + r.reference.non2xx + r.book2.non2xx + Object.values(r.toBook2).reduce((n, x) => n + x.side.non2xx, 0), 0),
  };
}

export const describeSpread = (spread: Spread) => `${spread.median} (${spread.min}–${spread.max})`;
