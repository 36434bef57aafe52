import type { ObjectIndex } from './objectIndex.js';

// A chart's object positions by label, for the loops that look up every record of a big
// event at once (a summary report of 100,000 seats reads 50,000 labels from Redis). Those
// labels arrive as fresh strings, which a Map<string, …> must hash and then find among
// chained entries; an open-addressing table of Int32 over the labels' FNV-1a hashes finds
// them in about half the time (docs/reports.md, "Big events").
// The hash is seeded per process, and a chart whose labels would make a long run of
// occupied slots (labels chosen to collide) is looked up through the index's own Map
// instead, so no lookup here is ever slower than that.

/** Looks up a label's position in ObjectIndex.objects: -1 when the chart has no such object. */
export interface LabelPositions {
  get(label: string): number;
}

/** Longest run of occupied slots a table may have; past it the chart is looked up by its Map. */
const MAX_RUN = 64;

const SEED = (Math.random() * 0x1_0000_0000) >>> 0;

function hashOf(label: string): number {
  let hash = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
  return hash;
}

class LabelTable implements LabelPositions {
  constructor(
    private readonly labels: readonly string[],
    private readonly slots: Int32Array,
  ) {}

  get(label: string): number {
    const { slots, labels } = this;
    const mask = slots.length - 1;
    for (let at = hashOf(label) & mask; ; at = (at + 1) & mask) {
      const position = slots[at]!;
      if (position < 0 || labels[position] === label) return position;
    }
  }
}

/** The table of `labels` by position (at most half full), or null when a run of occupied slots is longer than `maxRun`. */
export function labelTable(labels: readonly string[], maxRun = MAX_RUN): LabelPositions | null {
  let size = 2;
  while (size < labels.length * 2) size *= 2;
  const slots = new Int32Array(size).fill(-1);
  const mask = size - 1;
  for (let position = 0; position < labels.length; position++) {
    let at = hashOf(labels[position]!) & mask;
    // Labels made to collide stop the table as soon as one probe runs long, not after n² steps.
    for (let probe = 0; slots[at]! >= 0; probe++) {
      if (probe >= maxRun) return null;
      at = (at + 1) & mask;
    }
    slots[at] = position;
  }
  // A lookup walks at most one run of occupied slots (wrapping round), and stops at a free slot.
  let run = 0;
  for (let at = 0; at < 2 * size; at++) {
    run = slots[at & mask]! >= 0 ? run + 1 : 0;
    if (run > maxRun) return null;
  }
  return new LabelTable(labels, slots);
}

/** The index's positions by label: its table, or its Map where a table would have a run longer than `maxRun`. */
export function positionsOf(index: Pick<ObjectIndex, 'objects' | 'byLabel'>, maxRun = MAX_RUN): LabelPositions {
  // Each label is an object's alone: the index leaves out an object whose label was taken.
  const { objects, byLabel } = index;
  return labelTable(objects.map((object) => object.label), maxRun) ?? { get: (label) => byLabel.get(label)?.position ?? -1 };
}

const kept = new WeakMap<ObjectIndex, LabelPositions>();

/** positionsOf the index, made on first use and kept with the index. */
export function labelPositions(index: ObjectIndex): LabelPositions {
  let positions = kept.get(index);
  if (!positions) kept.set(index, (positions = positionsOf(index)));
  return positions;
}
