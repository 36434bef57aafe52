import type { Point } from './drawing.js';
import { distanceToFocalPoint, type ObjectIndex } from './objectIndex.js';

// Best available (docs/best-available.md): which objects to give a buyer who asks for "the
// best N", from what is open right now. Pure: the chart's layout is computed once per
// object index (`seatingLayout`), what is open comes in as a view, the filters of the
// request as a predicate. Steps, each tried only when the one before finds nothing:
//   1. one block of adjacent seats in a row, leaving no lone free seat beside it;
//   2. the same, lone seats allowed;
//   3. the closest seats of one section, in blocks of two or more where possible;
//   4. the same over every section;
//   5. tables booked as a whole and booths;
//   6. one GA area with enough free places.
// "Best" is the lowest floor first, then the smallest sum of distances to the focal point.

/** Per-focal-point order of the chart, computed on first use. */
export interface FocalRanking {
  /** Position -> distance to the focal point. */
  distance: Float64Array;
  /** Row ids by floor, then by their closest seat. */
  rowOrder: Int32Array;
  /** Row id -> distance of its closest seat. */
  rowMin: Float64Array;
  /** Tables, booths and GA areas by floor, then distance (positions). */
  wholeOrder: Int32Array;
  areaOrder: Int32Array;
  /** Block size -> every block of that many adjacent seats in a row, best first (`rankedBlocks`). */
  blocks: Map<number, Int32Array>;
}

/** What best available needs of a chart, computed once per object index. */
export interface SeatingLayout {
  index: ObjectIndex;
  /** Each row's seats in seat order, as positions in `index.objects` (views into `rowSeats`). */
  rows: Int32Array[];
  /** Every row's seats, row after row; row r starts at `rowStart[r]`. */
  rowSeats: Int32Array;
  rowStart: Int32Array;
  /** Row id -> its section (index in `sections`, -1 outside sections). */
  rowSection: Int32Array;
  /** Row id -> floor rank (0 = lowest or no floors). */
  rowFloor: Int32Array;
  /** Position -> its row id (-1 for objects outside rows). */
  rowOf: Int32Array;
  /** Position -> floor rank. */
  floorRank: Int32Array;
  /** Position -> 1 for a wheelchair-accessible seat (the seat or its category says so). */
  accessible: Uint8Array;
  /** Every section of the chart, by label, each once. */
  sections: { label: string; zone: string | null }[];
  /** Position -> its section (index in `sections`, -1 outside sections). */
  objectSection: Int32Array;
  rankings: Map<string, FocalRanking>;
}

const layouts = new WeakMap<ObjectIndex, SeatingLayout>();

/** The layout of an index, built on first use and kept as long as the index is. */
export function seatingLayout(index: ObjectIndex): SeatingLayout {
  let layout = layouts.get(index);
  if (!layout) layouts.set(index, (layout = buildLayout(index)));
  return layout;
}

function buildLayout(index: ObjectIndex): SeatingLayout {
  const { objects } = index;
  const floorRank = new Int32Array(objects.length);
  const accessible = new Uint8Array(objects.length);
  const floorOf = new Map(index.floors.map((f, i) => [f, i]));
  const rowLists: number[][] = [];
  const rowOf = new Int32Array(objects.length).fill(-1);
  const rowSection: number[] = [];
  const rowFloors: number[] = [];
  const sectionOf = new Map<string, number>();
  const sections: { label: string; zone: string | null }[] = [];
  const objectSection = new Int32Array(objects.length).fill(-1);
  for (const object of objects) {
    floorRank[object.position] = object.floor ? (floorOf.get(object.floor) ?? 0) : 0;
    if (object.section) {
      if (!sectionOf.has(object.section.label)) {
        sectionOf.set(object.section.label, sections.length);
        sections.push({ label: object.section.label, zone: object.section.zone });
      }
      objectSection[object.position] = sectionOf.get(object.section.label)!;
    }
    if (object.objectType === 'seat' && (object.has('isAccessible') || object.category?.accessible)) accessible[object.position] = 1;
  }
  for (const object of objects) {
    // A row starts at a seat with nothing on its left; seats at tables are not in rows.
    if (object.objectType !== 'seat' || object.table >= 0 || object.parent?.type !== 'row' || object.left >= 0) continue;
    const seats: number[] = [];
    for (let at = object.position; at >= 0; at = objects[at]!.right) {
      seats.push(at);
      rowOf[at] = rowLists.length;
    }
    rowLists.push(seats);
    rowSection.push(objectSection[object.position]!);
    rowFloors.push(floorRank[object.position]!);
  }
  const rowSeats = Int32Array.from(rowLists.flat());
  const rowStart = new Int32Array(rowLists.length + 1);
  rowLists.forEach((seats, r) => (rowStart[r + 1] = rowStart[r]! + seats.length));
  return {
    index,
    rows: rowLists.map((_, r) => rowSeats.subarray(rowStart[r], rowStart[r + 1])),
    rowSeats,
    rowStart,
    rowSection: Int32Array.from(rowSection),
    rowFloor: Int32Array.from(rowFloors),
    rowOf,
    floorRank,
    accessible,
    sections,
    objectSection,
    rankings: new Map(),
  };
}

/** The ranking of a layout around a focal point, kept under `key` (a zone key, or '' for the chart's). */
export function focalRanking(layout: SeatingLayout, key: string, focalPoint: Point): FocalRanking {
  let ranking = layout.rankings.get(key);
  if (ranking) return ranking;
  const { objects } = layout.index;
  const distance = new Float64Array(objects.length);
  for (const object of objects) distance[object.position] = distanceToFocalPoint(object, focalPoint);
  const rowMin = Float64Array.from(layout.rows, (seats) => Math.min(...Array.from(seats, (p) => distance[p]!)));
  const byFloorThen = (floor: (i: number) => number, near: (i: number) => number) => (a: number, b: number) =>
    floor(a) - floor(b) || near(a) - near(b) || a - b;
  const rowOrder = Int32Array.from(layout.rows.keys()).sort(byFloorThen((r) => layout.rowFloor[r]!, (r) => rowMin[r]!));
  const positionsOf = (types: string[]) =>
    Int32Array.from(objects.filter((o) => types.includes(o.objectType)).map((o) => o.position)).sort(
      byFloorThen((p) => layout.floorRank[p]!, (p) => distance[p]!),
    );
  ranking = { distance, rowOrder, rowMin, wholeOrder: positionsOf(['table', 'booth']), areaOrder: positionsOf(['generalAdmission']), blocks: new Map() };
  layout.rankings.set(key, ranking);
  return ranking;
}

/** Block sizes whose ranked lists a ranking keeps (each is 4 bytes per seat of the chart). */
const MAX_RANKED_SIZES = 16;

/**
 * Every block of `size` adjacent seats in a row, as the index in `layout.rowSeats` of its
 * first seat, ordered as steps 1 and 2 rank them: lower floor, smaller sum of distances,
 * closer row, leftmost. Computed once per ranking and size, so a request walks the list
 * from the best block instead of scanning rows.
 */
export function rankedBlocks(layout: SeatingLayout, ranking: FocalRanking, size: number): Int32Array {
  let blocks = ranking.blocks.get(size);
  if (blocks) return blocks;
  const rowRank = new Int32Array(layout.rows.length);
  ranking.rowOrder.forEach((row, rank) => (rowRank[row] = rank));
  // Per block (by its first seat in rowSeats): what it is ranked by, in typed arrays so the sort stays cheap.
  const total = layout.rowSeats.length;
  const starts = new Int32Array(total);
  const floors = new Int32Array(total);
  const ranks = new Int32Array(total);
  const costs = new Float64Array(total);
  let n = 0;
  for (let row = 0; row < layout.rows.length; row++) {
    const first = layout.rowStart[row]!;
    const end = layout.rowStart[row + 1]!;
    let cost = 0;
    for (let f = first; f < end; f++) {
      cost += ranking.distance[layout.rowSeats[f]!]!;
      if (f - first >= size) cost -= ranking.distance[layout.rowSeats[f - size]!]!;
      if (f - first < size - 1) continue;
      starts[n] = f - size + 1;
      floors[n] = layout.rowFloor[row]!;
      ranks[n] = rowRank[row]!;
      // Rounded so that blocks equally far but for rounding rank by row, then leftmost.
      costs[n] = Math.round(cost * 1e6);
      n++;
    }
  }
  const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => floors[a]! - floors[b]! || costs[a]! - costs[b]! || ranks[a]! - ranks[b]! || starts[a]! - starts[b]!);
  blocks = Int32Array.from(order, (k) => starts[k]!);
  if (ranking.blocks.size >= MAX_RANKED_SIZES) ranking.blocks.delete(ranking.blocks.keys().next().value!);
  ranking.blocks.set(size, blocks);
  return blocks;
}

/** Sizes of the blocks most requests ask for, ranked ahead of the first request. */
const PREPARED_SIZES = [1, 2, 3, 4];

/**
 * What best available needs of a chart ahead of its first request, as separate steps: the
 * layout, the ranking around its focal point and each zone's, and the ranked blocks of the
 * sizes most asked for (about 0.3 s for 100,000 seats in all, no step over 0.1 s, so a
 * caller can run them on separate turns of the event loop). None for a chart without a
 * focal point.
 */
export function bestAvailablePreparation(index: ObjectIndex): (() => void)[] {
  const focalPoints: [string, Point][] = [...index.zoneFocal];
  if (index.focalPoint) focalPoints.push(['', index.focalPoint]);
  if (focalPoints.length === 0) return [];
  const steps: (() => void)[] = [() => seatingLayout(index)];
  for (const [key, point] of focalPoints) {
    const ranking = () => focalRanking(seatingLayout(index), key, point);
    steps.push(ranking);
    for (const size of PREPARED_SIZES) steps.push(() => rankedBlocks(seatingLayout(index), ranking(), size));
  }
  return steps;
}

/** What is open right now, as the algorithm reads it. Change `open` through `setOpen` only. */
export interface OpenObjects {
  /** Position -> 1 when free and for sale (to anyone): the orphan rule reads it too. */
  open: Uint8Array;
  /** Row id -> how many of its seats are open: rows without room are passed over unread. */
  openInRow: Int32Array;
  /** Free places of a GA area (position). */
  areaFree(position: number): number;
  /**
   * Per ranked block list (`rankedBlocks`, keyed by the list): the list without blocks
   * found to have a closed seat. Closing seats keeps it true; opening one drops them all.
   */
  withoutClosed: Map<Int32Array, KeptBlocks>;
  /**
   * The same for step 1, also without blocks found to leave a lone seat. Only taking that
   * lone seat can change that, and a step-1 choice of two or more seats never takes it
   * without the block's own seat beside it; a single seat does (it may take exactly the
   * lone seat), so it drops these, as does closing seats any other way (`closeChoice`).
   */
  withoutLoneSeats: Map<Int32Array, KeptBlocks>;
}

/**
 * A view's own copy of a ranked block list with passed-over blocks taken out: the list is
 * `blocks` from `from` on. Blocks are taken out of the part a walk read, in place, moving the
 * kept ones towards the end of that part: the best blocks go first, so that is where closed
 * ones gather, and the rest of the list is neither read nor copied again.
 */
export interface KeptBlocks {
  blocks: Int32Array;
  from: number;
}

/** Opens (1) or closes (0) an object, keeping its row's count and the compacted block lists true. */
export function setOpen(layout: SeatingLayout, view: OpenObjects, position: number, value: 0 | 1): void {
  if (view.open[position] === value) return;
  view.open[position] = value;
  if (value === 1) {
    view.withoutClosed.clear();
    view.withoutLoneSeats.clear();
  }
  const row = layout.rowOf[position]!;
  if (row >= 0) view.openInRow[row]! += value === 1 ? 1 : -1;
}

/** Closes what a choice took: seats, tables and booths (GA places are the caller's to count). */
export function closeChoice(layout: SeatingLayout, view: OpenObjects, choice: Pick<BestAvailableChoice, 'positions' | 'step'>): void {
  if (choice.step !== 1 || choice.positions.length === 1) view.withoutLoneSeats.clear();
  for (const p of choice.positions) setOpen(layout, view, p, 0);
}

/** Counts the open seats of every row, after `open` was filled in. */
export function countOpenInRows(layout: SeatingLayout, view: OpenObjects): void {
  view.openInRow.fill(0);
  for (let row = 0; row < layout.rows.length; row++) {
    let count = 0;
    for (const p of layout.rows[row]!) count += view.open[p]!;
    view.openInRow[row] = count;
  }
}

export interface BestAvailableQuery {
  number: number;
  /** Exactly this many of the chosen seats are accessible (0: none). */
  accessibleSeats: number;
  tryToPreventOrphanSeats: boolean;
  /**
   * The most seats, tables and booths one choice may give (one status change's cap); a
   * larger number is looked for in one GA area only. Absent: no cap.
   */
  maxObjects?: number;
  /** Whether the request's filters (categories, zone, sections, channels, kind) allow a position. */
  eligible(position: number): boolean;
}

export type ChoiceKind = 'row' | 'seats' | 'wholes' | 'area';

export interface BestAvailableChoice {
  kind: ChoiceKind;
  /** The step that found it (1 to 6). */
  step: number;
  /** Positions chosen (one GA area for kind 'area'). */
  positions: number[];
  /** Whether the chosen seats are one block of adjacent seats (absent for tables and booths). */
  nextToEachOther?: boolean;
}

/** A block of adjacent seats in one row: `size` seats from `start` in `layout.rows[row]`. */
interface Block {
  row: number;
  start: number;
  size: number;
  floor: number;
  cost: number;
  accessible: number;
}

/** Costs equal within rounding are ties; the first found (closer row, then leftmost) wins. */
const EPSILON = 1e-9;

interface Search {
  layout: SeatingLayout;
  ranking: FocalRanking;
  view: OpenObjects;
  query: BestAvailableQuery;
}

/**
 * Whether taking `size` seats from `first` (an index in `layout.rowSeats`) leaves a free
 * seat alone between them and a taken seat or the row's end.
 */
function leavesLoneSeat(layout: SeatingLayout, first: number, size: number, open: Uint8Array): boolean {
  const seats = layout.rowSeats;
  const row = layout.rowOf[seats[first]!]!;
  const rowFirst = layout.rowStart[row]!;
  const rowEnd = layout.rowStart[row + 1]!;
  const left = first - 1;
  if (left >= rowFirst && open[seats[left]!] && (left === rowFirst || !open[seats[left - 1]!])) return true;
  const right = first + size;
  return right < rowEnd && open[seats[right]!] === 1 && (right === rowEnd - 1 || !open[seats[right + 1]!]);
}

/**
 * The best block of `size` open, eligible, adjacent seats in the given rows (in ranking
 * order) with between `minAccessible` and `maxAccessible` accessible seats.
 */
function bestBlock(search: Search, rowIds: ArrayLike<number>, size: number, minAccessible: number, maxAccessible: number, preventOrphans: boolean): Block | null {
  const { layout, ranking, view, query } = search;
  const { open } = view;
  const { distance, rowMin } = ranking;
  let best: Block | null = null;
  for (let k = 0; k < rowIds.length; k++) {
    const row = rowIds[k]!;
    const floor = layout.rowFloor[row]!;
    // Rows come by floor, then by their closest seat: none after this one can do better.
    if (best && (floor > best.floor || size * rowMin[row]! >= best.cost - EPSILON)) break;
    if (view.openInRow[row]! < size) continue;
    const seats = layout.rows[row]!;
    let run = 0;
    let cost = 0;
    let accessible = 0;
    for (let i = 0; i < seats.length; i++) {
      const p = seats[i]!;
      if (!open[p] || !query.eligible(p)) {
        run = cost = accessible = 0;
        continue;
      }
      run++;
      cost += distance[p]!;
      accessible += layout.accessible[p]!;
      if (run > size) {
        const leaving = seats[i - size]!;
        cost -= distance[leaving]!;
        accessible -= layout.accessible[leaving]!;
        run = size;
      }
      if (run < size || accessible < minAccessible || accessible > maxAccessible) continue;
      if (best && floor === best.floor && cost >= best.cost - EPSILON) continue;
      if (preventOrphans && leavesLoneSeat(layout, layout.rowStart[row]! + i - size + 1, size, open)) continue;
      best = { row, start: i - size + 1, size, floor, cost, accessible };
    }
  }
  return best;
}

const blockPositions = (layout: SeatingLayout, block: Block): number[] =>
  Array.from(layout.rows[block.row]!.subarray(block.start, block.start + block.size));

/** Blocks a walk may pass over (closed, or leaving a lone seat) before its list is rebuilt without them. */
const PASSED_BEFORE_COMPACTING = 64;

/** Steps 1 and 2: one block in one row, without (step 1) or with (step 2) lone seats left. */
export function sameRow(search: Search, preventOrphans: boolean): BestAvailableChoice | null {
  const { layout, ranking, view, query } = search;
  const { number: size, accessibleSeats } = query;
  const ranked = rankedBlocks(layout, ranking, size);
  const lists = preventOrphans ? view.withoutLoneSeats : view.withoutClosed;
  const own = lists.get(ranked);
  const list = own ?? (preventOrphans ? view.withoutClosed.get(ranked) : undefined);
  const blocks = list?.blocks ?? ranked;
  const from = list?.from ?? 0;
  const { open } = view;
  const seats = layout.rowSeats;
  let passed = 0;
  let found = -1;
  let k = from;
  for (; k < blocks.length && found < 0; k++) {
    const first = blocks[k]!;
    let closed = false;
    let eligible = true;
    let accessible = 0;
    for (let f = first; f < first + size; f++) {
      const p = seats[f]!;
      if (!open[p]) {
        closed = true;
        break;
      }
      if (eligible && !query.eligible(p)) eligible = false;
      accessible += layout.accessible[p]!;
    }
    if (closed) {
      passed++;
      continue;
    }
    if (preventOrphans && leavesLoneSeat(layout, first, size, open)) {
      passed++;
      continue;
    }
    if (eligible && accessible === accessibleSeats) found = first;
  }
  if (passed > PASSED_BEFORE_COMPACTING) {
    // The list is compacted in place once it is this view's own; a shared one is copied first,
    // from `from` on. Either way the part the walk read, [from, k), starts at `kept.from`.
    const kept: KeptBlocks = own ?? { blocks: blocks.slice(from), from: 0 };
    kept.from = keptBlocks(layout, kept.blocks, kept.from, kept.from + k - from, size, open, preventOrphans);
    lists.set(ranked, kept);
  }
  return found < 0 ? null : { kind: 'row', step: preventOrphans ? 1 : 2, positions: Array.from(seats.subarray(found, found + size)), nextToEachOther: true };
}

/**
 * Takes out of `blocks[from, to)` the blocks with a closed seat and, with `withoutLone`, those
 * that leave a lone seat, moving the kept ones (in order) to the end of that part. Returns
 * where the kept ones now start.
 */
function keptBlocks(layout: SeatingLayout, blocks: Int32Array, from: number, to: number, size: number, open: Uint8Array, withoutLone: boolean): number {
  const seats = layout.rowSeats;
  let at = to;
  for (let k = to - 1; k >= from; k--) {
    const first = blocks[k]!;
    let f = first;
    while (f < first + size && open[seats[f]!]) f++;
    if (f === first + size && !(withoutLone && leavesLoneSeat(layout, first, size, open))) blocks[--at] = first;
  }
  return at;
}

/**
 * Block sizes to try for the `remaining` seats of a scattered choice, largest first. With
 * `pairsFirst`, sizes that would leave one buyer for the end come last (5 = 3 + 2, 4 = 2 + 2);
 * without, the largest block always goes first (4 = 3 + 1 when no row has two pairs).
 */
function blockSizes(remaining: number, pairsFirst: boolean): number[] {
  const sizes: number[] = [];
  for (let size = remaining; size >= 2; size--) if (!pairsFirst || remaining - size !== 1) sizes.push(size);
  if (pairsFirst && remaining >= 3) sizes.push(remaining - 1);
  sizes.push(1);
  return sizes;
}

interface Scattered {
  positions: number[];
  /** Blocks of one seat: buyers sitting apart from the rest of their group. */
  alone: number;
  floor: number;
  cost: number;
}

/**
 * Steps 3 and 4: the closest seats of the given rows, picked as blocks, each as large as
 * possible, none leaving a lone free seat while another block would not. Chosen seats are
 * closed in the view while it runs, so the next block sees them taken; they are opened again
 * before it returns.
 */
function closestSeats(search: Search, rowIds: ArrayLike<number>): Scattered | null {
  // Pairs first is usually best (2 + 2 seats nobody alone), but where it finds one pair and
  // then only single seats, largest first does better (3 + 1): both are tried.
  return better(closestSeatsBy(search, rowIds, true), closestSeatsBy(search, rowIds, false));
}

function closestSeatsBy(search: Search, rowIds: ArrayLike<number>, pairsFirst: boolean): Scattered | null {
  const { layout, view, query } = search;
  const chosen: number[] = [];
  let remaining = query.number;
  let accessibleLeft = query.accessibleSeats;
  let alone = 0;
  let floor = 0;
  let cost = 0;
  try {
    while (remaining > 0) {
      let block: Block | null = null;
      for (const size of blockSizes(remaining, pairsFirst)) {
        const regularLeft = remaining - accessibleLeft;
        const minAccessible = Math.max(0, size - regularLeft);
        const maxAccessible = Math.min(size, accessibleLeft);
        if (minAccessible > maxAccessible) continue;
        block =
          (query.tryToPreventOrphanSeats ? bestBlock(search, rowIds, size, minAccessible, maxAccessible, true) : null) ??
          bestBlock(search, rowIds, size, minAccessible, maxAccessible, false);
        if (block) break;
      }
      if (!block) return null;
      for (const p of blockPositions(layout, block)) {
        setOpen(layout, view, p, 0);
        chosen.push(p);
      }
      remaining -= block.size;
      accessibleLeft -= block.accessible;
      if (block.size === 1) alone++;
      floor = Math.max(floor, block.floor);
      cost += block.cost;
    }
    return { positions: [...chosen], alone, floor, cost };
  } finally {
    for (const p of chosen) setOpen(layout, view, p, 1);
  }
}

/** Fewer buyers apart from their group, then the lower floor, then the smaller sum of distances. */
const better = (a: Scattered | null, b: Scattered | null): Scattered | null =>
  !a ? b : !b ? a : (b.alone - a.alone || b.floor - a.floor || (b.cost < a.cost - EPSILON ? -1 : 1)) < 0 ? b : a;

/** Whether positions are one run of adjacent seats of one row. */
function adjacent(layout: SeatingLayout, positions: number[]): boolean {
  const objects = layout.index.objects;
  const set = new Set(positions);
  const starts = positions.filter((p) => !set.has(objects[p]!.left));
  if (starts.length !== 1) return false;
  let length = 0;
  for (let at = starts[0]!; at >= 0 && set.has(at); at = objects[at]!.right) length++;
  return length === positions.length;
}

/** Step 3: the closest seats within one section (the best section wins). */
export function withinOneSection(search: Search): BestAvailableChoice | null {
  const { layout, ranking } = search;
  let best: Scattered | null = null;
  // Rows outside any section count as one more section.
  for (let section = -1; section < layout.sections.length; section++) {
    const rowIds = ranking.rowOrder.filter((r) => layout.rowSection[r] === section);
    if (rowIds.length > 0) best = better(best, closestSeats(search, rowIds));
  }
  return best && { kind: 'seats', step: 3, positions: best.positions, nextToEachOther: adjacent(layout, best.positions) };
}

/** Step 4: the closest seats, sections mixed. */
export function acrossSections(search: Search): BestAvailableChoice | null {
  const found = closestSeats(search, search.ranking.rowOrder);
  return found && { kind: 'seats', step: 4, positions: found.positions, nextToEachOther: adjacent(search.layout, found.positions) };
}

/** Step 5: the closest tables (booked as a whole: the caller's `eligible` says which) and booths. */
export function tablesAndBooths(search: Search): BestAvailableChoice | null {
  const { ranking, view, query } = search;
  const chosen: number[] = [];
  for (let k = 0; k < ranking.wholeOrder.length && chosen.length < query.number; k++) {
    const p = ranking.wholeOrder[k]!;
    if (view.open[p] && query.eligible(p)) chosen.push(p);
  }
  return chosen.length === query.number ? { kind: 'wholes', step: 5, positions: chosen } : null;
}

/** Step 6: the closest GA area with enough free places; places are never split over areas. */
export function oneArea(search: Search): BestAvailableChoice | null {
  const { ranking, view, query } = search;
  for (let k = 0; k < ranking.areaOrder.length; k++) {
    const p = ranking.areaOrder[k]!;
    if (query.eligible(p) && view.areaFree(p) >= query.number) return { kind: 'area', step: 6, positions: [p], nextToEachOther: true };
  }
  return null;
}

/** The steps in order; null when none finds enough. */
export function chooseBestAvailable(layout: SeatingLayout, ranking: FocalRanking, view: OpenObjects, query: BestAvailableQuery): BestAvailableChoice | null {
  const search: Search = { layout, ranking, view, query };
  const steps: (() => BestAvailableChoice | null)[] = [];
  const asObjects = query.maxObjects === undefined || query.number <= query.maxObjects;
  if (asObjects) {
    if (query.tryToPreventOrphanSeats) steps.push(() => sameRow(search, true));
    steps.push(() => sameRow(search, false), () => withinOneSection(search));
    if (layout.sections.length > 0) steps.push(() => acrossSections(search));
  }
  // Tables, booths and GA areas have no accessible seats to give.
  if (query.accessibleSeats === 0) {
    if (asObjects) steps.push(() => tablesAndBooths(search));
    steps.push(() => oneArea(search));
  }
  for (const step of steps) {
    const choice = step();
    if (choice) return choice;
  }
  return null;
}
