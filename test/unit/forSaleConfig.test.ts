import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { takesOffSale, editForSaleConfig, newForSaleConfig } from '../../src/domain/forSaleConfig.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import type { ForSaleConfig } from '../../src/domain/event.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';

// The for-sale config: replacing it whole and editing it object by object, in both
// polarities, and which edits count against the daily limit.

const index = buildObjectIndex(rowsWithoutSections);

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return (e as ApiError).errors[0]!.code;
  }
  throw new Error('expected a refusal');
}

const config = (forSale: boolean, fields: Partial<ForSaleConfig> = {}): ForSaleConfig => ({ forSale, objects: [], areaPlaces: {}, categories: [], ...fields });

describe('newForSaleConfig', () => {
  it('keeps what is given, each label once, with empty defaults', () => {
    expect(newForSaleConfig(false, { objects: ['A-1', 'A-1', 'GA2'], areaPlaces: { GA1: 5 }, categories: ['Cat1', 10, 'cat1'] }, index)).toEqual({
      forSale: false,
      objects: ['A-1', 'GA2'],
      areaPlaces: { GA1: 5 },
      categories: ['Cat1', 10, 'cat1'],
    });
    expect(newForSaleConfig(true, {}, index)).toEqual(config(true));
  });

  it('matches categories by key (1 and "1" alike) or by label in any case', () => {
    expect(newForSaleConfig(true, { categories: ['9', 'CAT2', 'string11'] }, index).categories).toEqual(['9', 'CAT2', 'string11']);
  });

  it('keeps labels and categories the chart does not have: they match nothing', () => {
    expect(newForSaleConfig(false, { objects: ['A-9', 'A-1'], areaPlaces: { GA9: 7 }, categories: ['Cat4', 11] }, index)).toEqual(
      config(false, { objects: ['A-9', 'A-1'], areaPlaces: { GA9: 7 }, categories: ['Cat4', 11] }),
    );
  });

  it.each([
    [{ areaPlaces: { 'A-1': 1 } }, 'GENERAL_ERROR'],
    [{ areaPlaces: { GA1: 101 } }, 'GENERAL_ERROR'],
    [{ areaPlaces: { GA1: 0 } }, 'GENERAL_ERROR'],
    [{ areaPlaces: { GA9: 0 } }, 'GENERAL_ERROR'],
  ])('refuses %o', (input, expected) => {
    expect(code(() => newForSaleConfig(false, input, index))).toBe(expected);
  });
});

describe('editForSaleConfig', () => {
  it('on a not-for-sale list: notForSale adds, forSale removes', () => {
    expect(editForSaleConfig(config(false, { objects: ['A-1', 'A-2', 'A-3'] }), { forSale: [{ object: 'A-1' }, { object: 'A-2' }] }, index)).toEqual(
      config(false, { objects: ['A-3'] }),
    );
    expect(editForSaleConfig(config(false, { objects: ['A-1'] }), { notForSale: [{ object: 'A-2' }, { object: 'A-1' }] }, index)).toEqual(
      config(false, { objects: ['A-1', 'A-2'] }),
    );
  });

  it('on a for-sale list the other way round', () => {
    expect(editForSaleConfig(config(true, { objects: ['A-1'] }), { forSale: [{ object: 'A-2' }], notForSale: [{ object: 'A-1' }] }, index)).toEqual(
      config(true, { objects: ['A-2'] }),
    );
  });

  it('starts a not-for-sale list on an event without config; opening up such an event leaves it without', () => {
    expect(editForSaleConfig(null, { notForSale: [{ object: 'A-1' }] }, index)).toEqual(config(false, { objects: ['A-1'] }));
    expect(editForSaleConfig(null, { forSale: [{ object: 'A-1' }] }, index)).toBeNull();
    expect(editForSaleConfig(null, {}, index)).toBeNull();
    // A config that was set stays set even when it lists nothing any more.
    expect(editForSaleConfig(config(false, { objects: ['A-1'] }), { forSale: [{ object: 'A-1' }] }, index)).toEqual(config(false));
  });

  it('moves GA places by the quantity, treating an area listed whole as all its places', () => {
    const edit = (current: ForSaleConfig | null, edits: Parameters<typeof editForSaleConfig>[1]) => editForSaleConfig(current, edits, index);
    expect(edit(null, { notForSale: [{ object: 'GA1', quantity: 5 }] })).toEqual(config(false, { areaPlaces: { GA1: 5 } }));
    expect(edit(config(false, { areaPlaces: { GA1: 5 } }), { notForSale: [{ object: 'GA1', quantity: 99 }] })).toEqual(config(false, { areaPlaces: { GA1: 100 } }));
    expect(edit(config(false, { areaPlaces: { GA1: 5 } }), { forSale: [{ object: 'GA1', quantity: 5 }] })).toEqual(config(false));
    expect(edit(config(false, { areaPlaces: { GA1: 5 } }), { forSale: [{ object: 'GA1', quantity: 50 }] })).toEqual(config(false));
    expect(edit(config(false, { objects: ['GA1'] }), { forSale: [{ object: 'GA1', quantity: 30 }] })).toEqual(config(false, { areaPlaces: { GA1: 70 } }));
    expect(edit(config(false, { objects: ['GA1'] }), { notForSale: [{ object: 'GA1', quantity: 30 }] })).toEqual(config(false, { objects: ['GA1'] }));
    expect(edit(config(false, { areaPlaces: { GA1: 5 } }), { notForSale: [{ object: 'GA1' }] })).toEqual(config(false, { objects: ['GA1'] }));
    expect(edit(config(true, { areaPlaces: { GA2: 10 } }), { forSale: [{ object: 'GA2', quantity: 10 }] })).toEqual(config(true, { areaPlaces: { GA2: 20 } }));
  });

  it('edits labels the chart does not have like any other: kept, matching nothing', () => {
    expect(editForSaleConfig(null, { notForSale: [{ object: 'Z-1' }, { object: 'GA9', quantity: 4 }] }, index)).toEqual(
      config(false, { objects: ['Z-1'], areaPlaces: { GA9: 4 } }),
    );
    expect(editForSaleConfig(config(false, { objects: ['Z-1'] }), { forSale: [{ object: 'Z-1' }] }, index)).toEqual(config(false));
  });

  it('keeps the categories of the config', () => {
    expect(editForSaleConfig(config(false, { categories: ['Cat1'] }), { notForSale: [{ object: 'C-1' }] }, index)).toEqual(
      config(false, { objects: ['C-1'], categories: ['Cat1'] }),
    );
  });

  it.each([
    [{ notForSale: [{ object: 'Z-1', quantity: 0 }] }, 'GENERAL_ERROR'],
    [{ notForSale: [{ object: 'A-1', quantity: 1 }] }, 'GENERAL_ERROR'],
    [{ notForSale: [{ object: 'GA1', quantity: 101 }] }, 'GENERAL_ERROR'],
    [{ notForSale: [{ object: 'A-1' }], forSale: [{ object: 'A-1' }] }, 'GENERAL_ERROR'],
  ])('refuses %o', (edits, expected) => {
    expect(code(() => editForSaleConfig(null, edits, index))).toBe(expected);
  });
});

describe('takesOffSale', () => {
  it('counts edits that take something off sale, whatever the polarity of the config', () => {
    expect(takesOffSale({ notForSale: [{ object: 'A-1' }] })).toBe(true);
    expect(takesOffSale({ notForSale: [{ object: 'A-1' }], forSale: [{ object: 'A-2' }] })).toBe(true);
    expect(takesOffSale({ forSale: [{ object: 'A-1' }] })).toBe(false);
    expect(takesOffSale({ notForSale: [], forSale: null })).toBe(false);
    expect(takesOffSale({})).toBe(false);
  });
});
