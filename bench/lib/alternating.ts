import type { Figures } from './measure.js';
import { seededRandom } from './seededRandom.js';

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
 * issue's start (server / Redis CPU per request, one quick run of 5ba005d; docs/benchmarks.md,
 * "Alternating rounds"): each is to improve by book2's factor or more, that is cost no more
 * than this.
 */
export const AGAINST_BOOK2 = {
  holdThenBook: { server: 1.23, redis: 1.55 },
  releaseChurn: { server: 0.91, redis: 0.97 },
  seasonEventBook: { server: 1.02, redis: 1.87 },
} as const;
export type AgainstBook2 = keyof typeof AGAINST_BOOK2;
/**
 * The scenarios judged against book2 that the lean reference also runs a floor of its own
 * for (bench/scenarios/reference.ts): its release churn and its booking in an event of a
 * season, right before them in a round.
 */
export const OWN_REFERENCES = { releaseChurn: 'referenceReleaseChurn', seasonEventBook: 'referenceSeasonEventBook' } as const;
export type WithOwnReference = keyof typeof OWN_REFERENCES;
export type RoundScenario = 'referenceBook2' | 'book2' | AgainstBook2 | (typeof OWN_REFERENCES)[WithOwnReference];

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
  /**
   * For releaseChurn and seasonEventBook where the round ran the reference's own of each: that
   * floor as multiples of the reference's booking (`server`, `redis`: what the path costs
   * against a booking at the floor), and ours as multiples of it (`ours`), to set beside
   * book2's to the reference.
   */
  ownReference: Partial<Record<WithOwnReference, OwnReference>>;
}

export interface OwnReference {
  side: RoundSide;
  server: number;
  redis: number;
  ours: { server: number; redis: number };
}

/** The rounds' ratios: median, lowest and highest of each. */
export interface AlternatingSummary {
  rounds: AlternatingRound[];
  serverToReference: Spread;
  redisToReference: Spread;
  p99ToReference: Spread;
  toBook2: Partial<Record<AgainstBook2, { server: Spread; redis: Spread }>>;
  /** The rounds' ownReference of each scenario that had one. */
  ownReference: Partial<Record<WithOwnReference, { server: Spread; redis: Spread; ours: { server: Spread; redis: Spread } }>>;
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
  const round: AlternatingRound = {
    order,
    reference: r,
    book2: b,
    serverToReference: ratio(b.serverUsPerRequest, r.serverUsPerRequest),
    redisToReference: ratio(b.redisUsPerRequest, r.redisUsPerRequest),
    p99ToReference: ratio(b.p99Ms, r.p99Ms),
    toBook2,
    ownReference: {},
  };
  for (const [name, referenceName] of Object.entries(OWN_REFERENCES) as [WithOwnReference, RoundScenario][]) {
    const ours = toBook2[name];
    const floor = figures[referenceName];
    if (!ours || !floor) continue;
    const c = side(floor);
    round.ownReference[name] = {
      side: c,
      server: ratio(c.serverUsPerRequest, r.serverUsPerRequest),
      redis: ratio(c.redisUsPerRequest, r.redisUsPerRequest),
      ours: { server: ratio(ours.side.serverUsPerRequest, c.serverUsPerRequest), redis: ratio(ours.side.redisUsPerRequest, c.redisUsPerRequest) },
    };
  }
  return round;
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
  const ownReference: AlternatingSummary['ownReference'] = {};
  for (const name of Object.keys(OWN_REFERENCES) as WithOwnReference[]) {
    const ran = rounds.map((round) => round.ownReference[name]).filter((o): o is OwnReference => o !== undefined);
    if (ran.length === 0) continue;
    ownReference[name] = {
      server: spreadOf(ran.map((o) => o.server)),
      redis: spreadOf(ran.map((o) => o.redis)),
      ours: { server: spreadOf(ran.map((o) => o.ours.server)), redis: spreadOf(ran.map((o) => o.ours.redis)) },
    };
  }
  return {
    rounds,
    serverToReference: spread((r) => r.serverToReference),
    redisToReference: spread((r) => r.redisToReference),
    p99ToReference: spread((r) => r.p99ToReference),
    toBook2,
    ownReference,
    wrongBookings: rounds.reduce((sum, r) => sum + r.book2.wrongBookings + Object.values(r.toBook2).reduce((n, x) => n + x.side.wrongBookings, 0), 0),
    non2xx: rounds.reduce(
      (sum, r) =>
        sum +
        r.reference.non2xx +
        r.book2.non2xx +
        Object.values(r.ownReference).reduce((n, o) => n + o.side.non2xx, 0) +
        Object.values(r.toBook2).reduce((n, x) => n + x.side.non2xx, 0),
      0,
    ),
  };
}

export const describeSpread = (spread: Spread) => `${spread.median} (${spread.min}–${spread.max})`;

/** A figure measured before and after a change, each as its rounds' spread, and how many times it went down. */
export interface Improvement {
  before: Spread;
  after: Spread;
  /** before's median over after's: above 1 when the figure went down. */
  factor: number;
  /**
   * For a scenario judged against book2: its factor over book2's for the same figure (server
   * or Redis). At least 1 is what "improve by book2's factor or more" asks.
   */
  ofBook2Factor?: number;
  /** The 5th and 95th percentiles of ofBook2Factor over the rounds of each side drawn again (improvementFactors): the spread it has. */
  ofBook2Interval?: [number, number];
}

/** Each figure of a round that a before/after compares, as a multiple of the round's reference. */
function toReferenceFigures(round: AlternatingRound): Record<string, number> {
  const r = round.reference;
  const figures: Record<string, number> = {
    'book2 server': round.serverToReference,
    'book2 Redis': round.redisToReference,
    'book2 p99': round.p99ToReference,
  };
  for (const [name, { side }] of Object.entries(round.toBook2)) {
    figures[`${name} server`] = ratio(side.serverUsPerRequest, r.serverUsPerRequest);
    figures[`${name} Redis`] = ratio(side.redisUsPerRequest, r.redisUsPerRequest);
  }
  return figures;
}

type Figured = Map<string, number[]>;

/** Adds `value` to the values gathered under `name`. */
function gather(all: Figured, name: string, value: number): void {
  const values = all.get(name);
  if (values) values.push(value);
  else all.set(name, [value]);
}

const figuresOf = (rounds: AlternatingRound[]): Figured => {
  const all: Figured = new Map();
  for (const round of rounds) for (const [name, value] of Object.entries(toReferenceFigures(round))) gather(all, name, value);
  return all;
};

/** Each figure both sides have: its factor, and each scenario's factor over book2's (p99 has none). */
function factorsOf(before: Figured, after: Figured): Map<string, { factor: number; ofBook2Factor?: number }> {
  const factors = new Map<string, { factor: number; ofBook2Factor?: number }>();
  for (const [name, values] of before) {
    const now = after.get(name);
    if (now) factors.set(name, { factor: spreadOf(values).median / spreadOf(now).median });
  }
  for (const [name, f] of factors) {
    const [scenario, figure] = name.split(' ');
    const book2 = factors.get(`book2 ${figure}`);
    if (scenario !== 'book2' && figure !== 'p99' && book2) f.ofBook2Factor = f.factor / book2.factor;
  }
  return factors;
}

/** Rounds drawn again with replacement, as many as there are (a fixed seed: the same files give the same intervals). */
function resampled(rounds: AlternatingRound[], random: () => number): AlternatingRound[] {
  return rounds.map(() => rounds[Math.floor(random() * rounds.length)]!);
}

const RESAMPLES = 1000;

/**
 * "Improve by the same factor as book2" (the priority-lane issue's aim for holdThenBook,
 * releaseChurn and seasonEventBook) judged by the rounds of runs of two versions, one before
 * and one after (`--server-dir`, docs/benchmarks.md, "An earlier version by today's bench"):
 * every figure as a multiple of its own round's reference, so the machine's drift between runs
 * divides out; the medians over all rounds of each side; the factor by which each went down;
 * and each scenario's factor over book2's, with the interval it moves in when the rounds of
 * each side are drawn again (a bootstrap: what the spread of the rounds allows it to be).
 * Figures that only one side has are left out.
 */
export function improvementFactors(before: AlternatingRound[], after: AlternatingRound[]): Record<string, Improvement> {
  const was = figuresOf(before);
  const is = figuresOf(after);
  const random = seededRandom(32);
  const drawn: Figured = new Map();
  for (let i = 0; i < RESAMPLES; i++) {
    for (const [name, f] of factorsOf(figuresOf(resampled(before, random)), figuresOf(resampled(after, random)))) {
      if (f.ofBook2Factor !== undefined) gather(drawn, name, f.ofBook2Factor);
    }
  }
  const result: Record<string, Improvement> = {};
  for (const [name, f] of factorsOf(was, is)) {
    const improvement: Improvement = { before: spreadOf(was.get(name)!), after: spreadOf(is.get(name)!), factor: Math.round(f.factor * 100) / 100 };
    if (f.ofBook2Factor !== undefined) {
      improvement.ofBook2Factor = Math.round(f.ofBook2Factor * 100) / 100;
      const sorted = (drawn.get(name) ?? []).sort((a, b) => a - b);
      const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100;
      if (sorted.length > 0) improvement.ofBook2Interval = [at(0.05), at(0.95)];
    }
    result[name] = improvement;
  }
  return result;
}
