import { describe, expect, it } from 'vitest';
import { straightRow } from '../../bench/drawings.js';
import {
  acrossSections,
  chooseBestAvailable,
  closeChoice,
  countOpenInRows,
  focalRanking,
  oneArea,
  sameRow,
  seatingLayout,
  setOpen,
  tablesAndBooths,
  withinOneSection,
  type BestAvailableChoice,
  type OpenObjects,
  type SeatingLayout,
} from '../../src/domain/bestAvailable.js';
import type { Drawing, DrawingBooth, DrawingGeneralAdmissionArea, DrawingRow, DrawingSeat, DrawingTable, FloorSubChart, Point, SubChart } from '../../src/domain/drawing.js';
import { buildObjectIndex, type ChartObject, type ObjectIndex } from '../../src/domain/objectIndex.js';

// The pure best-available algorithm (src/domain/bestAvailable.ts, docs/best-available.md),
// step by step, on small hand-drawn charts:
//   1. one block in one row leaving no lone free seat beside it (a free seat whose other
//      neighbour is taken or the row's end), smallest sum of distances, lower floors first;
//   2. the same, lone seats allowed;
//   3. the closest seats of one section, in blocks as large as possible, no one alone;
//   4. the same over every section (charts with sections only);
//   5. tables booked as a whole and booths, closest first;
//   6. one GA area with enough free places, closest first.
// Steps 5 and 6 are skipped when accessible seats are asked for. Plus: accessible seats,
// floors, zone focal points, the request's filter (`eligible`), "nothing found", and one
// view reused over many requests (its caches must never change an answer).
//
// Conventions of the drawings below: seats are 20 apart along x from x = 0, rows are 20
// apart along y from y = 0 (row A first), the focal point is 100 above row A; so row A is
// the closest and, in a row, the seat under the focal point. Labels are asserted exactly,
// in the order the algorithm returns them (for scattered seats: block by block, as chosen).

// ---------------------------------------------------------------------------------------
// Building charts and asking
// ---------------------------------------------------------------------------------------

const CATEGORIES: Drawing['categories'] = {
  list: [
    { key: 1, label: 'Regular', color: '#111111' },
    { key: 2, label: 'Premium', color: '#222222' },
    { key: 3, label: 'Wheelchair', color: '#333333', accessible: true },
  ],
};

/** A row of `count` seats of category 1 (unless said otherwise), 20 apart, the n-th row (0 = A) at y = 20n. */
function row(label: string, count: number, at: { x?: number; y?: number } = {}, extra: Record<number, Partial<DrawingSeat>> = {}, categoryKey: number = 1): DrawingRow {
  return straightRow(label, count, { x: at.x ?? 0, y: at.y ?? 0 }, categoryKey, 20, extra);
}

function drawing(subChart: SubChart, focalPoint: Point, extra: Partial<Drawing> = {}): Drawing {
  return { name: 'Best available test', categories: CATEGORIES, subChart: { rows: [], ...subChart }, focalPoint, ...extra };
}

const table = (label: string, center: Point, bookAsAWhole: boolean, seats = 2): DrawingTable => ({
  label,
  center,
  bookAsAWhole,
  categoryKey: 1,
  seats: Array.from({ length: seats }, (_, i) => ({ label: String(i + 1), x: center.x - 5 + 10 * i, y: center.y + 5 })),
});
const booth = (label: string, x: number, y: number, categoryKey = 1): DrawingBooth => ({ label, x, y, categoryKey });
const area = (label: string, capacity: number, center: Point, categoryKey = 1): DrawingGeneralAdmissionArea => ({ label, capacity, center, categoryKey });

interface Chart {
  index: ObjectIndex;
  layout: SeatingLayout;
}

function chart(d: Drawing): Chart {
  const index = buildObjectIndex(d);
  expect(index.findings.unlabeledObjects, 'every object of a test drawing is addressable').toBe(0);
  expect(index.findings.duplicateLabels, 'labels of a test drawing are unique').toEqual([]);
  return { index, layout: seatingLayout(index) };
}

interface Ask {
  number: number;
  /** Labels of objects that are not free (booked, held, not for sale). */
  taken?: string[];
  accessibleSeats?: number;
  /** Default true, as in a request. */
  tryToPreventOrphanSeats?: boolean;
  /** The request's filters, on top of what best available may give at all. */
  filter?: (object: ChartObject) => boolean;
  /** Free places of GA areas by label; default their capacity. */
  areaFree?: Record<string, number>;
  /** Another focal ranking (a zone's); default the chart's focal point under key ''. */
  focal?: { key: string; point: Point };
}

/** What best available may give at all, as the event selection says it: row seats, tables booked as a whole, booths, GA areas. */
const choosable = (o: ChartObject): boolean =>
  o.objectType === 'seat' ? o.table < 0 && o.parent?.type === 'row' : o.objectType === 'table' ? o.bookAsAWhole : true;

type Search = Parameters<typeof sameRow>[0];

/** A view of what is open, as the service builds one: `open` filled in, then the rows counted. */
function openObjects(layout: SeatingLayout, open: Uint8Array, free: Float64Array): OpenObjects {
  const view: OpenObjects = { open, openInRow: new Int32Array(layout.rows.length), areaFree: (p) => free[p]!, withoutClosed: new Map(), withoutLoneSeats: new Map() };
  countOpenInRows(layout, view);
  return view;
}

function search(c: Chart, ask: Ask): Search {
  const { index, layout } = c;
  for (const label of ask.taken ?? []) expect(index.byLabel.has(label), `taken object ${label} exists`).toBe(true);
  const taken = new Set(ask.taken ?? []);
  const free = new Float64Array(index.objects.length);
  const open = new Uint8Array(index.objects.length);
  for (const o of index.objects) {
    if (o.objectType === 'generalAdmission') {
      free[o.position] = taken.has(o.label) ? 0 : (ask.areaFree?.[o.label] ?? o.capacity);
      open[o.position] = free[o.position]! > 0 ? 1 : 0;
    } else open[o.position] = taken.has(o.label) ? 0 : 1;
  }
  const view = openObjects(layout, open, free);
  const filter = ask.filter ?? (() => true);
  const focal = ask.focal ?? { key: '', point: index.focalPoint! };
  return {
    layout,
    ranking: focalRanking(layout, focal.key, focal.point),
    view,
    query: {
      number: ask.number,
      accessibleSeats: ask.accessibleSeats ?? 0,
      tryToPreventOrphanSeats: ask.tryToPreventOrphanSeats ?? true,
      eligible: (p) => choosable(index.objects[p]!) && filter(index.objects[p]!),
    },
  };
}

interface Answer {
  kind: BestAvailableChoice['kind'];
  objects: string[];
  nextToEachOther?: boolean;
}

function answer(c: Chart, choice: BestAvailableChoice | null): Answer | null {
  if (!choice) return null;
  const result: Answer = { kind: choice.kind, objects: choice.positions.map((p) => c.index.objects[p]!.label) };
  if ('nextToEachOther' in choice) result.nextToEachOther = choice.nextToEachOther;
  return result;
}

/** The whole algorithm. */
const best = (c: Chart, ask: Ask): Answer | null => {
  const s = search(c, ask);
  return answer(c, chooseBestAvailable(s.layout, s.ranking, s.view, s.query));
};

/** One step on its own. */
const step = (c: Chart, ask: Ask, run: (s: Search) => BestAvailableChoice | null): Answer | null => answer(c, run(search(c, ask)));

const inRow = (...objects: string[]): Answer => ({ kind: 'row', objects, nextToEachOther: true });
const scattered = (...objects: string[]): Answer => ({ kind: 'seats', objects, nextToEachOther: false });
const wholes = (...objects: string[]): Answer => ({ kind: 'wholes', objects });
const inArea = (label: string): Answer => ({ kind: 'area', objects: [label], nextToEachOther: true });

const step1 = (s: Search) => sameRow(s, true);
const step2 = (s: Search) => sameRow(s, false);

const ofCategory = (key: number) => (o: ChartObject) => o.category?.key === key;

// ---------------------------------------------------------------------------------------
// The layout
// ---------------------------------------------------------------------------------------

describe('seatingLayout', () => {
  const c = chart(
    drawing(
      {
        rows: [row('A', 3, {}, { 2: { accessible: true } }), row('W', 2, { y: 20 }, {}, 3)],
        tables: [table('T1', { x: 100, y: 0 }, false), table('T2', { x: 140, y: 0 }, true)],
        sections: [{ label: 'S1', zone: 'north', topLeft: { x: 0, y: 100 }, subChart: { rows: [row('A', 2)] } }],
      },
      { x: 0, y: -100 },
    ),
  );
  const labels = (positions: ArrayLike<number>) => Array.from(positions, (p) => c.index.objects[p]!.label);

  it('is built once per index', () => {
    expect(seatingLayout(c.index)).toBe(c.layout);
  });

  it('holds each row in seat order, without the seats at tables', () => {
    expect(c.layout.rows.map(labels)).toEqual([['A-1', 'A-2', 'A-3'], ['W-1', 'W-2'], ['S1-A-1', 'S1-A-2']]);
    expect(Array.from(c.layout.rowSection)).toEqual([-1, -1, 0]);
    expect(c.layout.sections).toEqual([{ label: 'S1', zone: 'north' }]);
  });

  it('marks seats accessible by their own flag or by their category', () => {
    expect(labels(c.index.objects.filter((o) => c.layout.accessible[o.position] === 1).map((o) => o.position))).toEqual(['A-2', 'W-1', 'W-2']);
  });

  it('keeps a focal ranking per key', () => {
    const ranking = focalRanking(c.layout, 'k', { x: 0, y: 0 });
    expect(focalRanking(c.layout, 'k', { x: 0, y: 0 })).toBe(ranking);
    expect(focalRanking(c.layout, 'other', { x: 0, y: 0 })).not.toBe(ranking);
    // Tables and booths are ranked as wholes, whether booked as a whole or not: `eligible` decides.
    expect(labels(ranking.wholeOrder)).toEqual(['T1', 'T2']);
  });
});

// ---------------------------------------------------------------------------------------
// Steps 1 and 2: one block in one row
// ---------------------------------------------------------------------------------------

describe('steps 1 and 2: one block of adjacent seats in one row', () => {
  it('gives the single seat closest to the focal point', () => {
    const c = chart(drawing({ rows: [row('A', 5), row('B', 5, { y: 20 })] }, { x: 40, y: -100 }));
    expect(best(c, { number: 1 })).toEqual(inRow('A-3'));
    const offCentre = chart(drawing({ rows: [row('A', 5), row('B', 5, { y: 20 })] }, { x: 75, y: -100 }));
    expect(best(offCentre, { number: 1 })).toEqual(inRow('A-5'));
  });

  it('takes a block from the middle of the row, where the sum of distances is smallest', () => {
    const c = chart(drawing({ rows: [row('A', 9)] }, { x: 80, y: -100 }));
    expect(best(c, { number: 3 })).toEqual(inRow('A-4', 'A-5', 'A-6'));
    // A-3..A-6 and A-4..A-7 are as close as each other: the leftmost wins.
    expect(best(c, { number: 4 })).toEqual(inRow('A-3', 'A-4', 'A-5', 'A-6'));
  });

  it('goes to the next row when the closer one is full or has no room for the whole group', () => {
    const c = chart(drawing({ rows: [row('A', 7), row('B', 7, { y: 20 }), row('C', 7, { y: 40 })] }, { x: 60, y: -100 }));
    expect(best(c, { number: 3 })).toEqual(inRow('A-3', 'A-4', 'A-5'));
    expect(best(c, { number: 3, taken: ['A-1', 'A-2', 'A-3', 'A-4', 'A-5', 'A-6', 'A-7'] })).toEqual(inRow('B-3', 'B-4', 'B-5'));
    // Rows A and B keep only pairs and single seats.
    expect(best(c, { number: 3, taken: ['A-3', 'A-6', 'B-3', 'B-5'] })).toEqual(inRow('C-3', 'C-4', 'C-5'));
  });

  it('compares sums of distances, not rows: a block in a farther row can be closer', () => {
    // Row A keeps only, far to the sides; B-5, B-6 lie under the focal point.
    const c = chart(drawing({ rows: [row('A', 10), row('B', 10, { y: 20 })] }, { x: 90, y: -100 }));
    const taken = ['A-3', 'A-4', 'A-5', 'A-6', 'A-7', 'A-8'];
    expect(best(c, { number: 2, taken })).toEqual(inRow('B-5', 'B-6'));
    // With row B gone, A's sides are all there is.
    expect(best(c, { number: 2, taken: [...taken, 'B-1', 'B-2', 'B-3', 'B-4', 'B-5', 'B-6', 'B-7', 'B-8', 'B-9', 'B-10'] })).toEqual(
      inRow('A-1', 'A-2'),
    );
  });

  describe('lone seats (tryToPreventOrphanSeats)', () => {
    it('row of 3, 2 wanted: step 1 refuses to leave the third seat alone, step 2 gives the closest pair', () => {
      const c = chart(drawing({ rows: [row('A', 3)] }, { x: 40, y: -100 }));
      expect(step(c, { number: 2 }, step1)).toBeNull();
      expect(step(c, { number: 2 }, step2)).toEqual(inRow('A-2', 'A-3'));
      expect(best(c, { number: 2 })).toEqual(inRow('A-2', 'A-3'));
    });

    it('prefers a farther row where the group leaves no lone seat over step 2', () => {
      const c = chart(drawing({ rows: [row('A', 3), row('B', 4, { y: 20 })] }, { x: 40, y: -100 }));
      // B-2, B-3 would leave B-1 alone; B-3, B-4 leaves B-1, B-2 together.
      expect(best(c, { number: 2 })).toEqual(inRow('B-3', 'B-4'));
      expect(best(c, { number: 2, tryToPreventOrphanSeats: false })).toEqual(inRow('A-2', 'A-3'));
    });

    it('does not take a block that leaves one free seat between it and a taken seat, or the row end', () => {
      // A-1 booked. A-3, A-4 (closest) would leave A-2 alone; would leave A-6 alone at the end.
      const c = chart(drawing({ rows: [row('A', 6)] }, { x: 50, y: -100 }));
      expect(step(c, { number: 2, taken: ['A-1'] }, step1)).toEqual(inRow('A-2', 'A-3'));
      expect(step(c, { number: 2, taken: ['A-1'] }, step2)).toEqual(inRow('A-3', 'A-4'));
      expect(best(c, { number: 2, taken: ['A-1'] })).toEqual(inRow('A-2', 'A-3'));
    });

    it('tryToPreventOrphanSeats false takes the closest block even when it leaves a lone seat', () => {
      const c = chart(drawing({ rows: [row('A', 6)] }, { x: 50, y: -100 }));
      expect(best(c, { number: 2, taken: ['A-1'], tryToPreventOrphanSeats: false })).toEqual(inRow('A-3', 'A-4'));
    });

    it('a single seat too: it is not taken where it would leave a neighbour alone', () => {
      // A-3 booked: any seat of row A leaves another one alone.
      const c = chart(drawing({ rows: [row('A', 5), row('B', 5, { y: 20 })] }, { x: 40, y: -100 }));
      expect(best(c, { number: 1, taken: ['A-3'] })).toEqual(inRow('B-3'));
      // Without prevention: the closest of A-2 and A-4 (as close as each other, the leftmost).
      expect(best(c, { number: 1, taken: ['A-3'], tryToPreventOrphanSeats: false })).toEqual(inRow('A-2'));
    });

    it('a lone seat that is already there is not the block\'s fault', () => {
      // A-2 booked: A-1 is alone before anything is chosen.
      const c = chart(drawing({ rows: [row('A', 6)] }, { x: 0, y: -100 }));
      expect(step(c, { number: 2, taken: ['A-2'] }, step1)).toEqual(inRow('A-3', 'A-4'));
      // And one person fills it: its neighbours are a booked seat and the row's end.
      expect(step(c, { number: 1, taken: ['A-2'] }, step1)).toEqual(inRow('A-1'));
    });

    it('a block filling a gap exactly leaves nothing alone', () => {
      const c = chart(drawing({ rows: [row('A', 7)] }, { x: 60, y: -100 }));
      // Gap between booked seats; would be closer but A-5 is booked.
      expect(step(c, { number: 2, taken: ['A-2', 'A-5'] }, step1)).toEqual(inRow('A-3', 'A-4'));
    });

    it('a free seat the request may not have (another category) still counts as a lone seat', () => {
      // A-1 is Premium, the request wants Regular only. would leave A-1 alone at the row end.
      const c = chart(drawing({ rows: [row('A', 5, {}, { 1: { categoryKey: 2 } })] }, { x: 30, y: -100 }));
      const filter = ofCategory(1);
      expect(best(c, { number: 2, filter })).toEqual(inRow('A-4', 'A-5'));
      // Once A-1 is booked, nothing is left alone by.
      expect(best(c, { number: 2, filter, taken: ['A-1'] })).toEqual(inRow('A-2', 'A-3'));
    });
  });
});

// ---------------------------------------------------------------------------------------
// Accessible seats
// ---------------------------------------------------------------------------------------

describe('accessible seats: exactly accessibleSeats of the chosen seats are accessible', () => {
  // Row A of 10, seats 5 and 6 accessible; the focal point is nearest A-6 (x 100), then A-5 (x 80).
  const focal = { x: 95, y: -100 };
  const cases = [
    ['by the seat', chart(drawing({ rows: [row('A', 10, {}, { 5: { accessible: true }, 6: { accessible: true } })] }, focal))],
    ['by its category', chart(drawing({ rows: [row('A', 10, {}, { 5: { categoryKey: 3 }, 6: { categoryKey: 3 } })] }, focal))],
  ] as const;

  describe.each(cases)('accessible %s', (_, c) => {
    it('0 accessible seats means none of them, even where they are the closest', () => {
      expect(best(c, { number: 2 })).toEqual(inRow('A-7', 'A-8'));
    });

    it('1 accessible seat means exactly one', () => {
      expect(best(c, { number: 2, accessibleSeats: 1 })).toEqual(inRow('A-6', 'A-7'));
      expect(best(c, { number: 3, accessibleSeats: 1 })).toEqual(inRow('A-6', 'A-7', 'A-8'));
    });

    it('all accessible', () => {
      expect(best(c, { number: 2, accessibleSeats: 2 })).toEqual(inRow('A-5', 'A-6'));
      expect(best(c, { number: 1, accessibleSeats: 1 })).toEqual(inRow('A-6'));
    });

    it('more accessible seats than the chart has free: nothing', () => {
      expect(best(c, { number: 3, accessibleSeats: 3 })).toBeNull();
      expect(best(c, { number: 2, accessibleSeats: 2, taken: ['A-5'] })).toBeNull();
    });
  });

  it('step 3 puts the accessible seat where it is, the others in a block', () => {
    // Free: A-1 (accessible), A-3, A-4.
    const c = chart(drawing({ rows: [row('A', 5, {}, { 1: { accessible: true } })] }, { x: 40, y: -100 }));
    const taken = ['A-2', 'A-5'];
    expect(best(c, { number: 3, accessibleSeats: 1, taken })).toEqual(scattered('A-3', 'A-4', 'A-1'));
    expect(best(c, { number: 3, accessibleSeats: 0, taken })).toBeNull();
    expect(best(c, { number: 3, accessibleSeats: 2, taken })).toBeNull();
  });

  it('tables, booths and GA areas are never given for accessible seats (steps 5 and 6 skipped)', () => {
    const c = chart(drawing({ booths: [booth('B1', 0, 0), booth('B2', 20, 0)], generalAdmissionAreas: [area('GA1', 10, { x: 0, y: 50 })] }, { x: 0, y: -100 }));
    expect(best(c, { number: 2 })).toEqual(wholes('B1', 'B2'));
    expect(best(c, { number: 2, accessibleSeats: 1 })).toBeNull();
    expect(best(c, { number: 3 })).toEqual(inArea('GA1'));
    expect(best(c, { number: 3, accessibleSeats: 1 })).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------
// Step 3: the closest seats of one section, in blocks
// ---------------------------------------------------------------------------------------

describe('step 3: the closest seats, in blocks as large as possible', () => {
  it('splits 4 into 2 + 2 when no row has 4 adjacent seats, closest block first', () => {
    const c = chart(drawing({ rows: [row('A', 5)] }, { x: 50, y: -100 }));
    expect(step(c, { number: 4, taken: ['A-3'] }, step2)).toBeNull();
    expect(step(c, { number: 4, taken: ['A-3'] }, withinOneSection)).toEqual(scattered('A-4', 'A-5', 'A-1', 'A-2'));
    expect(best(c, { number: 4, taken: ['A-3'] })).toEqual(scattered('A-4', 'A-5', 'A-1', 'A-2'));
  });

  it('prefers 2 + 2 to 3 + 1: nobody sits alone', () => {
    // Rows A (3 seats), B (2) and C (2). 3 + 1 would be A-1..A-3 and B-2.
    const c = chart(drawing({ rows: [row('A', 3), row('B', 2, { y: 20 }), row('C', 2, { y: 40 })] }, { x: 30, y: -100 }));
    expect(best(c, { number: 4, tryToPreventOrphanSeats: false })).toEqual(scattered('A-2', 'A-3', 'B-1', 'B-2'));
    // Preventing lone seats too: any pair of row A leaves its third seat alone.
    expect(best(c, { number: 4 })).toEqual(scattered('B-1', 'B-2', 'C-1', 'C-2'));
  });

  it('prefers 3 + 2 to 4 + 1', () => {
    // Rows A (4 seats) and B (3). 4 + 1 would be A-1..A-4 and a seat of row B.
    const c = chart(drawing({ rows: [row('A', 4), row('B', 3, { y: 20 })] }, { x: 35, y: -100 }));
    expect(best(c, { number: 5 })).toEqual(scattered('B-1', 'B-2', 'B-3', 'A-3', 'A-4'));
  });

  it('prefers 3 + 1 to 2 + 1 + 1 when only one row has a pair', () => {
    // Row A: free (A-2 taken); row B: 3 free. Pairs first would give B-1, B-2, A-1, A-3 and leave B-3 alone.
    const c = chart(drawing({ rows: [row('A', 3), row('B', 3, { y: 20 })] }, { x: 20, y: -100 }));
    expect(best(c, { number: 4, taken: ['A-2'] })).toEqual(scattered('B-1', 'B-2', 'B-3', 'A-1'));
  });

  it('single seats when there is no pair left', () => {
    // Free.
    const c = chart(drawing({ rows: [row('A', 5)] }, { x: 80, y: -100 }));
    expect(best(c, { number: 3, taken: ['A-2', 'A-4'] })).toEqual(scattered('A-5', 'A-3', 'A-1'));
  });

  it('a seat the request may not have splits the row', () => {
    // A-3 is Premium; the request wants Regular.
    const c = chart(drawing({ rows: [row('A', 5, {}, { 3: { categoryKey: 2 } })] }, { x: 50, y: -100 }));
    expect(best(c, { number: 4, filter: ofCategory(1) })).toEqual(scattered('A-4', 'A-5', 'A-1', 'A-2'));
    expect(best(c, { number: 4 })).toEqual(inRow('A-2', 'A-3', 'A-4', 'A-5'));
  });

  it('leaves the view as it found it (chosen seats are closed only while it runs)', () => {
    const c = chart(drawing({ rows: [row('A', 5), row('B', 3, { y: 20 })] }, { x: 50, y: -100 }));
    const s = search(c, { number: 4, taken: ['A-3'] });
    const before = Uint8Array.from(s.view.open);
    const openInRow = Int32Array.from(s.view.openInRow);
    expect(answer(c, chooseBestAvailable(s.layout, s.ranking, s.view, s.query))).toEqual(scattered('A-4', 'A-5', 'A-1', 'A-2'));
    expect(s.view.open).toEqual(before);
    expect(s.view.openInRow).toEqual(openInRow);
    const none = search(c, { number: 8, taken: ['A-3'] });
    const beforeNone = Uint8Array.from(none.view.open);
    expect(chooseBestAvailable(none.layout, none.ranking, none.view, none.query)).toBeNull();
    expect(none.view.open).toEqual(beforeNone);
  });
});

// ---------------------------------------------------------------------------------------
// Sections: step 3 within one, step 4 across
// ---------------------------------------------------------------------------------------

describe('steps 3 and 4: sections', () => {
  /** Sections S1 at x 0 and S2 at x 100, one row A of 3 seats each; focal point above S1-A-2. */
  const c = chart(
    drawing(
      {
        sections: [
          { label: 'S1', topLeft: { x: 0, y: 0 }, subChart: { rows: [row('A', 3)] } },
          { label: 'S2', topLeft: { x: 100, y: 0 }, subChart: { rows: [row('A', 3)] } },
        ],
      },
      { x: 20, y: -100 },
    ),
  );

  it('labels seats in sections with the section first', () => {
    // S1-A-2 would leave S1-A-1 and S1-A-3 alone; those two are as close as each other: the leftmost.
    expect(best(c, { number: 1 })).toEqual(inRow('S1-A-1'));
    expect(best(c, { number: 1, tryToPreventOrphanSeats: false })).toEqual(inRow('S1-A-2'));
  });

  it('step 3 keeps the group in one section, even when another section has a closer seat', () => {
    // S1 has only S1-A-2 free (the closest seat of the chart); S2 has S2-A-1 and S2-A-3.
    const taken = ['S1-A-1', 'S1-A-3', 'S2-A-2'];
    expect(step(c, { number: 2, taken }, withinOneSection)).toEqual(scattered('S2-A-1', 'S2-A-3'));
    expect(step(c, { number: 2, taken }, acrossSections)).toEqual(scattered('S1-A-2', 'S2-A-1'));
    expect(best(c, { number: 2, taken })).toEqual(scattered('S2-A-1', 'S2-A-3'));
  });

  it('step 4 crosses sections when no single section has enough', () => {
    const taken = ['S1-A-1', 'S1-A-3', 'S2-A-2', 'S2-A-3'];
    expect(step(c, { number: 2, taken }, withinOneSection)).toBeNull();
    expect(best(c, { number: 2, taken })).toEqual(scattered('S1-A-2', 'S2-A-1'));
    expect(best(c, { number: 3, taken })).toBeNull();
  });

  it('the section whose seats are closest wins, whatever its place in the drawing', () => {
    const farFirst = chart(
      drawing(
        {
          sections: [
            { label: 'Far', topLeft: { x: 200, y: 0 }, subChart: { rows: [row('A', 3)] } },
            { label: 'Near', topLeft: { x: 0, y: 0 }, subChart: { rows: [row('A', 3)] } },
          ],
        },
        { x: 10, y: -100 },
      ),
    );
    expect(best(farFirst, { number: 2, taken: ['Far-A-2', 'Near-A-2'] })).toEqual(scattered('Near-A-1', 'Near-A-3'));
  });

  it('rows outside every section count as one more section', () => {
    // Top-level row A has one free seat right under the focal point; section S1 (farther) has two.
    const mixed = chart(
      drawing(
        { rows: [row('A', 3)], sections: [{ label: 'S1', topLeft: { x: 0, y: 100 }, subChart: { rows: [row('A', 3)] } }] },
        { x: 20, y: -100 },
      ),
    );
    const taken = ['A-1', 'A-3', 'S1-A-2'];
    expect(best(mixed, { number: 2, taken })).toEqual(scattered('S1-A-1', 'S1-A-3'));
    expect(best(mixed, { number: 2, taken: [...taken, 'S1-A-3'] })).toEqual(scattered('A-2', 'S1-A-1'));
  });

  it('a section filter applies to step 4 too', () => {
    const taken = ['S1-A-1', 'S1-A-3', 'S2-A-2', 'S2-A-3'];
    expect(best(c, { number: 2, taken, filter: (o) => o.section?.label === 'S2' })).toBeNull();
    expect(best(c, { number: 1, taken, filter: (o) => o.section?.label === 'S2' })).toEqual(inRow('S2-A-1'));
  });
});

// ---------------------------------------------------------------------------------------
// Step 5: tables and booths
// ---------------------------------------------------------------------------------------

describe('step 5: tables booked as a whole and booths', () => {
  // Focal point at (0, 0). T1 (by seat) is the closest object, then B1, T2, B2, T3.
  const c = chart(
    drawing(
      {
        tables: [table('T1', { x: 10, y: 0 }, false), table('T2', { x: 30, y: 0 }, true), table('T3', { x: 100, y: 0 }, true)],
        booths: [booth('B1', 20, 0), booth('B2', 60, 0, 2)],
      },
      { x: 0, y: 0 },
    ),
  );

  it('gives the closest tables and booths, mixed; a table booked by seat is not one', () => {
    expect(best(c, { number: 2 })).toEqual(wholes('B1', 'T2'));
    expect(best(c, { number: 4 })).toEqual(wholes('B1', 'T2', 'B2', 'T3'));
    expect(step(c, { number: 2 }, tablesAndBooths)).toEqual(wholes('B1', 'T2'));
  });

  it('says nothing about being next to each other', () => {
    const s = search(c, { number: 2 });
    expect(chooseBestAvailable(s.layout, s.ranking, s.view, s.query)).not.toHaveProperty('nextToEachOther');
  });

  it('never gives the seats of a table (they are in no row)', () => {
    expect(step(c, { number: 1 }, step2)).toBeNull();
    expect(step(c, { number: 1 }, withinOneSection)).toBeNull();
    expect(best(c, { number: 1 })).toEqual(wholes('B1'));
  });

  it('eligible decides: only booths, only tables, a category', () => {
    expect(best(c, { number: 2, filter: (o) => o.objectType === 'booth' })).toEqual(wholes('B1', 'B2'));
    expect(best(c, { number: 2, filter: (o) => o.objectType === 'table' })).toEqual(wholes('T2', 'T3'));
    expect(best(c, { number: 1, filter: ofCategory(2) })).toEqual(wholes('B2'));
  });

  it('skips taken ones', () => {
    expect(best(c, { number: 2, taken: ['B1'] })).toEqual(wholes('T2', 'B2'));
  });

  it('not enough: nothing (no GA area to fall back on)', () => {
    expect(best(c, { number: 5 })).toBeNull();
    expect(best(c, { number: 3, filter: (o) => o.objectType === 'table' })).toBeNull();
  });

  it('comes after seats in rows, however far those are', () => {
    const withRow = chart(drawing({ rows: [row('A', 3, { y: 1000 })], booths: [booth('B1', 0, 0)] }, { x: 0, y: 0 }));
    expect(best(withRow, { number: 1 })).toEqual(inRow('A-1'));
    expect(best(withRow, { number: 3 })).toEqual(inRow('A-1', 'A-2', 'A-3'));
    // Seats and booths are never given together.
    expect(best(withRow, { number: 4 })).toBeNull();
    expect(best(withRow, { number: 1, taken: ['A-1', 'A-2', 'A-3'] })).toEqual(wholes('B1'));
  });
});

// ---------------------------------------------------------------------------------------
// Step 6: one GA area
// ---------------------------------------------------------------------------------------

describe('step 6: one GA area with enough free places', () => {
  // GA1 (10 places) is closer than GA2 (100 places).
  const c = chart(drawing({ generalAdmissionAreas: [area('GA2', 100, { x: 0, y: 200 }), area('GA1', 10, { x: 0, y: 50 })] }, { x: 0, y: 0 }));

  it('gives the closest area', () => {
    expect(best(c, { number: 5 })).toEqual(inArea('GA1'));
    expect(step(c, { number: 10 }, oneArea)).toEqual(inArea('GA1'));
  });

  it('the closest area with enough free places', () => {
    expect(best(c, { number: 11 })).toEqual(inArea('GA2'));
    expect(best(c, { number: 5, areaFree: { GA1: 4 } })).toEqual(inArea('GA2'));
    expect(best(c, { number: 4, areaFree: { GA1: 4 } })).toEqual(inArea('GA1'));
  });

  it('never splits the places over two areas', () => {
    expect(best(c, { number: 5, areaFree: { GA1: 3, GA2: 3 } })).toBeNull();
    expect(best(c, { number: 101 })).toBeNull();
  });

  it('eligible decides', () => {
    const categories = chart(drawing({ generalAdmissionAreas: [area('GA2', 100, { x: 0, y: 200 }, 2), area('GA1', 10, { x: 0, y: 50 })] }, { x: 0, y: 0 }));
    expect(best(categories, { number: 1, filter: ofCategory(2) })).toEqual(inArea('GA2'));
  });

  it('comes after tables and booths; one booth is not mixed with GA places', () => {
    const withBooth = chart(drawing({ booths: [booth('B1', 0, 500)], generalAdmissionAreas: [area('GA1', 10, { x: 0, y: 50 })] }, { x: 0, y: 0 }));
    expect(best(withBooth, { number: 1 })).toEqual(wholes('B1'));
    expect(best(withBooth, { number: 2 })).toEqual(inArea('GA1'));
  });
});

// ---------------------------------------------------------------------------------------
// Floors
// ---------------------------------------------------------------------------------------

describe('floors: the lowest floor first, then the closest', () => {
  const floor = (floorName: string, subChart: SubChart): FloorSubChart => ({ floorName, rows: [], ...subChart });

  it('a block on a lower floor beats a closer block on a higher floor', () => {
    // Floor 1 (the first) has row L far from the focal point; floor 2 has row U right under it.
    const c = chart({
      categories: CATEGORIES,
      focalPoint: { x: 50, y: -100 },
      subChartFloors: [floor('1', { rows: [row('L', 6, { y: 300 })] }), floor('2', { rows: [row('U', 6)] })],
    });
    expect(best(c, { number: 2 })).toEqual(inRow('L-3', 'L-4'));
    expect(best(c, { number: 1 })).toEqual(inRow('L-3'));
    expect(best(c, { number: 2, taken: ['L-1', 'L-3', 'L-5'] })).toEqual(inRow('U-3', 'U-4'));
  });

  it('the same for the sections of step 3 and for booths', () => {
    const c = chart({
      categories: CATEGORIES,
      focalPoint: { x: 20, y: -100 },
      subChartFloors: [
        floor('ground', { sections: [{ label: 'Low', topLeft: { x: 0, y: 400 }, subChart: { rows: [row('A', 3)] } }], booths: [booth('BL', 0, 400)] }),
        floor('balcony', { sections: [{ label: 'High', topLeft: { x: 0, y: 0 }, subChart: { rows: [row('A', 3)] } }], booths: [booth('BH', 20, 0)] }),
      ],
    });
    expect(best(c, { number: 2, taken: ['Low-A-2', 'High-A-2'] })).toEqual(scattered('Low-A-1', 'Low-A-3'));
    const rowsTaken = ['Low-A-1', 'Low-A-2', 'Low-A-3', 'High-A-1', 'High-A-2', 'High-A-3'];
    expect(best(c, { number: 1, taken: rowsTaken })).toEqual(wholes('BL'));
    expect(best(c, { number: 2, taken: rowsTaken })).toEqual(wholes('BL', 'BH'));
  });

  it('and for the seats of step 4', () => {
    // One free seat per section: Low1-A-2 and Low2-A-1 on the ground floor, High-A-2 (the closest) on the balcony.
    const c = chart({
      categories: CATEGORIES,
      focalPoint: { x: 20, y: -100 },
      subChartFloors: [
        floor('ground', {
          sections: [
            { label: 'Low1', topLeft: { x: 0, y: 400 }, subChart: { rows: [row('A', 3)] } },
            { label: 'Low2', topLeft: { x: 100, y: 400 }, subChart: { rows: [row('A', 3)] } },
          ],
        }),
        floor('balcony', { sections: [{ label: 'High', topLeft: { x: 0, y: 0 }, subChart: { rows: [row('A', 3)] } }] }),
      ],
    });
    const taken = ['Low1-A-1', 'Low1-A-3', 'Low2-A-2', 'Low2-A-3', 'High-A-1', 'High-A-3'];
    expect(best(c, { number: 2, taken })).toEqual(scattered('Low1-A-2', 'Low2-A-1'));
    expect(best(c, { number: 3, taken })).toEqual(scattered('Low1-A-2', 'Low2-A-1', 'High-A-2'));
  });
});

// ---------------------------------------------------------------------------------------
// Zones: another focal point
// ---------------------------------------------------------------------------------------

describe('zones: a zone with its own focal point ranks the chart around it', () => {
  // Section N (zone north): row A at y 0, row Z at y 200. Section S (zone south) at y 350.
  // The chart's focal point is above N-A; north's is at y 300, between N-Z and S-A.
  const c = chart(
    drawing(
      {
        sections: [
          { label: 'N', zone: 'north', topLeft: { x: 0, y: 0 }, subChart: { rows: [row('A', 5), row('Z', 5, { y: 200 })] } },
          { label: 'S', zone: 'south', topLeft: { x: 0, y: 350 }, subChart: { rows: [row('A', 5)] } },
        ],
      },
      { x: 40, y: -100 },
      { zones: { list: [{ key: 'north', label: 'North', focalPoint: { x: 40, y: 300 } }, { key: 'south', label: 'South' }] } },
    ),
  );
  const north = { key: 'north', point: c.index.zoneFocal.get('north')! };
  const inNorth = (o: ChartObject) => o.section?.zone === 'north';

  it('the chart focal point and the zone focal point give different seats', () => {
    expect(best(c, { number: 1, filter: inNorth })).toEqual(inRow('N-A-3'));
    expect(best(c, { number: 1, filter: inNorth, focal: north })).toEqual(inRow('N-Z-3'));
    expect(best(c, { number: 5, filter: inNorth, focal: north })).toEqual(inRow('N-Z-1', 'N-Z-2', 'N-Z-3', 'N-Z-4', 'N-Z-5'));
  });

  it('the ranking is only an order: the filter still decides which zone', () => {
    // Around north's focal point, section S (south) is the closest.
    expect(best(c, { number: 1, focal: north })).toEqual(inRow('S-A-3'));
  });
});

// ---------------------------------------------------------------------------------------
// The request's filter, and nothing found
// ---------------------------------------------------------------------------------------

describe('eligible: a hard filter', () => {
  // Row A (closest) is Premium, row B Regular.
  const c = chart(drawing({ rows: [row('A', 7, {}, {}, 2), row('B', 7, { y: 20 })] }, { x: 60, y: -100 }));

  it('only seats it allows are given, however close the others', () => {
    expect(best(c, { number: 3 })).toEqual(inRow('A-3', 'A-4', 'A-5'));
    expect(best(c, { number: 3, filter: ofCategory(1) })).toEqual(inRow('B-3', 'B-4', 'B-5'));
  });

  it('is never relaxed when what it allows is not enough', () => {
    const taken = ['B-1', 'B-2', 'B-3', 'B-4', 'B-5'];
    expect(best(c, { number: 2, filter: ofCategory(1), taken })).toEqual(inRow('B-6', 'B-7'));
    expect(best(c, { number: 3, filter: ofCategory(1), taken })).toBeNull();
  });
});

describe('not enough: null', () => {
  const c = chart(drawing({ rows: [row('A', 3), row('B', 2, { y: 20 })] }, { x: 20, y: -100 }));

  it('more than the chart has free', () => {
    expect(best(c, { number: 6 })).toBeNull();
    expect(best(c, { number: 5 })).toEqual(scattered('A-1', 'A-2', 'A-3', 'B-1', 'B-2'));
    expect(best(c, { number: 2, taken: ['A-1', 'A-2', 'A-3', 'B-2'] })).toBeNull();
  });

  it('everything taken', () => {
    expect(best(c, { number: 1, taken: ['A-1', 'A-2', 'A-3', 'B-1', 'B-2'] })).toBeNull();
  });

  it('an empty chart', () => {
    expect(best(chart(drawing({}, { x: 0, y: 0 })), { number: 1 })).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------
// One view, many requests (as the service keeps it: each choice closed with closeChoice)
// ---------------------------------------------------------------------------------------

describe('a view reused from one request to the next answers as a fresh view would', () => {
  /**
   * Runs the requests (a number) on one view, closing each choice, and reopens seats in
   * between ({ release: labels }, as a refused claim or a release does); each answer is
   * compared with a fresh view's.
   */
  type Request = number | { number: number; filter: (object: ChartObject) => boolean };
  function replay(c: Chart, taken: string[], events: (Request | { release: string[] })[], reused?: (view: OpenObjects) => void): (string[] | null)[] {
    const s = search(c, { number: 1, taken });
    const free = new Float64Array(c.index.objects.length);
    return events.map((event) => {
      if (typeof event !== 'number' && 'release' in event) {
        for (const label of event.release) setOpen(c.layout, s.view, c.index.byLabel.get(label)!.position, 1);
        return event.release;
      }
      const { number, filter } = typeof event === 'number' ? { number: event, filter: undefined } : event;
      const query = { ...s.query, number, ...(filter && { eligible: (p: number) => s.query.eligible(p) && filter(c.index.objects[p]!) }) };
      const fresh = openObjects(c.layout, Uint8Array.from(s.view.open), free);
      const expected = chooseBestAvailable(c.layout, s.ranking, fresh, query);
      const choice = chooseBestAvailable(c.layout, s.ranking, s.view, query);
      const labels = (x: BestAvailableChoice | null) => x && x.positions.map((p) => c.index.objects[p]!.label);
      expect(labels(choice), `request ${number} on the reused view`).toEqual(labels(expected));
      if (choice) closeChoice(c.layout, s.view, choice);
      reused?.(s.view);
      return labels(choice);
    });
  }

  it('a single seat taking a lone seat makes the block beside it good for step 1 again', () => {
    // Row A: 80 seats, only free (A-2, A-3 leaves A-4 alone; leaves A-2 alone).
    // Row B, far away, is free. More than 64 blocks of row A are passed over on the way to row B.
    const c = chart(drawing({ rows: [row('A', 80), row('B', 4, { y: 5000 })] }, { x: 0, y: -100 }));
    const taken = ['A-1', ...Array.from({ length: 76 }, (_, i) => `A-${i + 5}`)];
    expect(replay(c, taken, [2, 1, 2])).toEqual([
      ['B-1', 'B-2'],
      ['A-2'],
      // A-2 is taken now: leaves nothing alone.
      ['A-3', 'A-4'],
    ]);
  });

  it('seats opened again are seen again', () => {
    const c = chart(drawing({ rows: [row('A', 80), row('B', 4, { y: 5000 })] }, { x: 0, y: -100 }));
    const taken = ['A-1', ...Array.from({ length: 76 }, (_, i) => `A-${i + 5}`)];
    expect(replay(c, taken, [2, { release: ['A-5', 'A-6'] }, 2, 2])).toEqual([
      ['B-1', 'B-2'],
      ['A-5', 'A-6'],
      // A-2..A-6 free, A-7 taken: leaves together.
      ['A-2', 'A-3'],
      // left: any pair leaves the third alone, row B does not.
      ['B-3', 'B-4'],
    ]);
  });

  it('a block list compacted again and again in place, with seats opened in between and filters that differ', () => {
    // 30 rows of 40: each request of 4 closes the best blocks, so walks pass more and more
    // closed ones and the view's own list is compacted where they gather, many times over.
    // Rows 2 and 5 are Premium, which most requests filter out: their blocks stay in the
    // lists, open, for the requests that take them (one in eleven).
    const rows = Array.from({ length: 30 }, (_, r) => row(`R${r + 1}`, 40, { y: 20 * r }, {}, r === 1 || r === 4 ? 2 : 1));
    const c = chart(drawing({ rows }, { x: 390, y: -100 }));
    const releases = new Map([
      [60, { release: ['R1-20', 'R1-21', 'R1-22', 'R1-23'] }],
      [120, { release: ['R3-1', 'R3-2'] }],
    ]);
    const regular = (object: ChartObject) => object.category?.key === 1;
    const events: (Request | { release: string[] })[] = [];
    for (let i = 0; i < 250; i++) events.push(releases.get(i) ?? (i % 11 === 5 ? 4 : { number: i % 7 === 3 ? 2 : 4, filter: regular }));
    const starts = new Set<number>();
    const answers = replay(c, [], events, (view) => {
      for (const list of view.withoutLoneSeats.values()) starts.add(list.from);
    });
    expect(answers.filter((a) => a !== null).length).toBeGreaterThan(200);
    // Compacted in place at least three times: the kept part started at three places.
    expect([...starts].filter((from) => from > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('over a long series of requests of mixed sizes', () => {
    const rows = Array.from({ length: 6 }, (_, r) => row(String.fromCharCode(65 + r), 40, { y: 20 * r }));
    const c = chart(drawing({ rows, booths: [booth('B1', 0, 1000)] }, { x: 390, y: -100 }));
    const taken = rows.flatMap((r, i) => (r.seats ?? []).filter((_, k) => (k * 7 + i * 3) % 5 === 0).map((seat) => `${r.label}-${seat.label}`));
    const numbers = Array.from({ length: 80 }, (_, i) => [1, 2, 3, 2, 1, 4, 2, 1, 5, 1][i % 10]!);
    const answers = replay(c, taken, numbers);
    expect(answers.filter((a) => a !== null).length).toBeGreaterThan(40);
  });
});
