import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventLayout, layoutVersionOf } from '../../src/domain/eventLayout.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';

// The layout's fixed order and its version (src/domain/eventLayout.ts): what the status
// stream's compact frames name objects by.

describe('layoutVersionOf', () => {
  it('is the first 16 hex digits of the SHA-256 of the labels in index order, joined by newlines', () => {
    const index = buildObjectIndex(rowsWithoutSections);
    const labels = index.objects.map((object) => object.label);
    expect(labels.slice(0, 3)).toEqual(['A-1', 'A-2', 'A-3']);
    expect(layoutVersionOf(index)).toBe(createHash('sha256').update(labels.join('\n')).digest('hex').slice(0, 16));
  });

  it('is the same for the same labels in the same order, and differs for another order or another set', () => {
    const index = buildObjectIndex(rowsWithoutSections);
    expect(layoutVersionOf(buildObjectIndex(structuredClone(rowsWithoutSections)))).toBe(layoutVersionOf(index));
    // The rows in reverse: the same labels in another order.
    const swapped = structuredClone(rowsWithoutSections);
    swapped.subChart!.rows!.reverse();
    expect(layoutVersionOf(buildObjectIndex(swapped))).not.toBe(layoutVersionOf(index));
    expect(layoutVersionOf(buildObjectIndex(withTables))).not.toBe(layoutVersionOf(index));
    // A category changes the layout, not its order.
    const recoloured = structuredClone(rowsWithoutSections);
    recoloured.categories!.list![0]!.color = '#000000';
    expect(layoutVersionOf(buildObjectIndex(recoloured))).toBe(layoutVersionOf(index));
  });

  it('is worked out once per index, and the layout carries it with its objects in index order', () => {
    const index = buildObjectIndex(rowsWithoutSections);
    const first = layoutVersionOf(index);
    // The labels changed under it would change a fresh hash; the memo keeps the index's first.
    const label = index.objects[0]!.label;
    (index.objects[0] as { label: string }).label = 'changed';
    expect(layoutVersionOf(index)).toBe(first);
    (index.objects[0] as { label: string }).label = label;
    const layout = eventLayout(index);
    expect(layout.layoutVersion).toBe(first);
    expect(layout.objects.map((object) => object.label)).toEqual(index.objects.map((object) => object.label));
  });
});
