import { describe, expect, it } from 'vitest';
import { labelPositions, labelTable, positionsOf } from '../../src/domain/labelPositions.js';
import { buildObjectIndex, type ObjectIndex } from '../../src/domain/objectIndex.js';
import { generatedDrawing, withTables } from '../fixtures/drawings.js';

// src/domain/labelPositions.ts: an object's position by label, as the index's Map gives it.

/** Every label of the index, and labels it does not have, as fresh strings (as Redis replies make them). */
function probes(index: ObjectIndex): string[] {
  const labels = index.objects.map((object) => object.label);
  return Buffer.from([...labels, 'Z-1', '', 'A-1 ', `${labels[0]}x`, labels[0]!.slice(0, -1)].join('\n'))
    .toString()
    .split('\n');
}

const byMap = (index: ObjectIndex, label: string) => index.byLabel.get(label)?.position ?? -1;

describe('label positions', () => {
  it('finds every object of a big chart at its position, and no label the chart lacks', () => {
    const index = buildObjectIndex(generatedDrawing({ sections: 10, rowsPerSection: 20, seatsPerRow: 25 }));
    expect(index.objects.length).toBe(5000);
    const positions = labelPositions(index);
    for (const label of probes(index)) expect(positions.get(label), label).toBe(byMap(index, label));
    expect(positions.get('Z-1')).toBe(-1);
    // Kept with the index: made once.
    expect(labelPositions(index)).toBe(positions);
  });

  it('finds the seats of tables and the tables themselves', () => {
    const index = buildObjectIndex(withTables);
    const positions = labelPositions(index);
    const labels = probes(index);
    expect(labels.filter((label) => positions.get(label) >= 0).length).toBe(index.objects.length);
    for (const label of labels) expect(positions.get(label), label).toBe(byMap(index, label));
  });

  it('answers -1 for any label of an empty chart', () => {
    expect(labelTable([])!.get('A-1')).toBe(-1);
    expect(labelTable(['A-1', 'A-2'])!.get('A-3')).toBe(-1);
  });

  it("falls back to the index's Map when the table would have a run of occupied slots longer than allowed", () => {
    const index = buildObjectIndex(generatedDrawing({ sections: 2, rowsPerSection: 10, seatsPerRow: 20 }));
    // A run of one is already too long here: the Map answers, the same way.
    expect(labelTable(index.objects.map((object) => object.label), 0)).toBeNull();
    const positions = positionsOf(index, 0);
    for (const label of probes(index)) expect(positions.get(label), label).toBe(byMap(index, label));
  });
});
