import { describe, expect, it } from 'vitest';
import {
  addCategory,
  checkCategoryKey,
  findCategory,
  newCategories,
  rejectDuplicateKeys,
  replaceCategories,
  updateCategory,
} from '../../src/domain/categories.js';
import { isCssColor } from '../../src/domain/cssColors.js';
import type { DrawingCategory } from '../../src/domain/drawing.js';
import { ApiError } from '../../src/domain/errors.js';

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected a 400');
}

const existing: DrawingCategory[] = [
  { key: 1, label: 'Stalls', color: '#111111', accessible: false },
  { key: 'vip', label: 'VIP', color: '#222222', accessible: true },
  { key: 3, label: 'Balcony', color: '#333333', accessible: false },
];

describe('rejectDuplicateKeys', () => {
  it.each([
    [[1, '1']],
    [['1', 1]],
    [[1, 2, 1]],
    [['a', 'b', 'a']],
  ])('rejects %o with DUPLICATE_CATEGORY_KEY', (keys) => {
    const error = thrown(() => rejectDuplicateKeys(keys));
    expect(error.status).toBe(400);
    expect(error.errors[0]!.code).toBe('DUPLICATE_CATEGORY_KEY');
  });

  it('names both spellings of the key', () => {
    expect(thrown(() => rejectDuplicateKeys(['1', 1])).errors[0]!.message).toContain('"1" and 1');
  });

  it('accepts distinct keys, including 1 and "01"', () => {
    expect(() => rejectDuplicateKeys([1, 2, 'a', '01', 'A'])).not.toThrow();
    expect(() => rejectDuplicateKeys([])).not.toThrow();
  });
});

describe('newCategories', () => {
  it('rejects keys "1" and 1 in one request', () => {
    const error = thrown(() =>
      newCategories([
        { key: '1', label: 'a' },
        { key: 1, label: 'b' },
      ]),
    );
    expect(error.status).toBe(400);
    expect(error.errors[0]!.code).toBe('DUPLICATE_CATEGORY_KEY');
  });

  it('keeps what is given and fills in a colour and accessible: false', () => {
    const categories = newCategories([
      { key: 1, label: 'One' },
      { key: 'two', label: 'Two', color: 'red', accessible: true },
      { key: 3, label: 'Three', color: '#abc' },
    ]);
    expect(categories[1]).toEqual({ key: 'two', label: 'Two', color: 'red', accessible: true });
    expect(categories[2]).toEqual({ key: 3, label: 'Three', color: '#abc', accessible: false });
    expect(categories[0]).toMatchObject({ key: 1, label: 'One', accessible: false });
    expect(isCssColor(categories[0]!.color)).toBe(true);
  });

  it('gives categories created without a colour different colours', () => {
    const categories = newCategories([
      { key: 1, label: 'One' },
      { key: 2, label: 'Two' },
      { key: 3, label: 'Three' },
    ]);
    for (const c of categories) expect(isCssColor(c.color)).toBe(true);
    expect(new Set(categories.map((c) => c.color)).size).toBe(3);
  });

  it('rejects a category without a label', () => {
    expect(thrown(() => newCategories([{ key: 1 }])).status).toBe(400);
  });

  it.each([['notacolour'], ['#12'], ['rgb(1,2)'], ['']])('rejects colour %o with a 400', (color) => {
    const error = thrown(() => newCategories([{ key: 1, label: 'x', color }]));
    expect(error.status).toBe(400);
    expect(error.errors[0]!.message).toContain(color);
  });

  it.each([['#abc'], ['rgb(1,2,3)'], ['red']])('accepts colour %o', (color) => {
    expect(newCategories([{ key: 1, label: 'x', color }])[0]!.color).toBe(color);
  });

  it.each([[9007199254740992], [2 ** 60], [-9007199254740992], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'rejects numeric key %o',
    (key) => {
      expect(thrown(() => newCategories([{ key, label: 'x' }])).status).toBe(400);
    },
  );

  it('accepts the largest safe integer as a key, and negative keys', () => {
    expect(newCategories([{ key: 9007199254740991, label: 'max' }])[0]!.key).toBe(9007199254740991);
    expect(newCategories([{ key: -4, label: 'neg' }])[0]!.key).toBe(-4);
  });

  it('rejects empty string keys', () => {
    expect(thrown(() => newCategories([{ key: '', label: 'x' }])).status).toBe(400);
    expect(thrown(() => checkCategoryKey('  ')).status).toBe(400);
  });

  it('accepts a string key that looks like a huge number', () => {
    expect(() => checkCategoryKey('9007199254740993')).not.toThrow();
  });
});

describe('replaceCategories', () => {
  it('adds new keys, updates existing ones and removes the ones not sent', () => {
    const result = replaceCategories(existing, [
      { key: 1, label: 'Stalls (renamed)' },
      { key: 4, label: 'Box', color: 'rgb(1,2,3)' },
      { key: 'vip', color: '#abcdef' },
    ]);
    expect(result).toEqual([
      { key: 1, label: 'Stalls (renamed)', color: '#111111', accessible: false },
      { key: 4, label: 'Box', color: 'rgb(1,2,3)', accessible: false },
      { key: 'vip', label: 'VIP', color: '#abcdef', accessible: true },
    ]);
  });

  it('keeps label, colour and accessible when they are omitted', () => {
    expect(replaceCategories(existing, [{ key: 3 }])).toEqual([existing[2]]);
  });

  it('updates accessible when given', () => {
    expect(replaceCategories(existing, [{ key: 'vip', accessible: false }])[0]).toEqual({
      key: 'vip',
      label: 'VIP',
      color: '#222222',
      accessible: false,
    });
  });

  it('matches existing keys by 1 and "1" alike, keeping the stored key', () => {
    expect(replaceCategories(existing, [{ key: '1', label: 'Renamed' }])).toEqual([
      { key: 1, label: 'Renamed', color: '#111111', accessible: false },
    ]);
  });

  it('removes every category for []', () => {
    expect(replaceCategories(existing, [])).toEqual([]);
  });

  it('gives an added category a colour and accessible: false', () => {
    const [added] = replaceCategories(existing, [{ key: 'new', label: 'New' }]);
    expect(added).toMatchObject({ key: 'new', label: 'New', accessible: false });
    expect(isCssColor(added!.color)).toBe(true);
  });

  it('does not change the existing list', () => {
    const before = structuredClone(existing);
    replaceCategories(existing, [{ key: 1, label: 'changed', color: 'blue' }]);
    expect(existing).toEqual(before);
  });

  it('rejects duplicate keys, bad colours, added categories without a label and huge keys', () => {
    expect(thrown(() => replaceCategories(existing, [{ key: 1 }, { key: '1' }])).errors[0]!.code).toBe('DUPLICATE_CATEGORY_KEY');
    expect(thrown(() => replaceCategories(existing, [{ key: 1, color: 'notacolour' }])).status).toBe(400);
    expect(thrown(() => replaceCategories(existing, [{ key: 5, label: 'x', color: 'notacolour' }])).status).toBe(400);
    expect(thrown(() => replaceCategories(existing, [{ key: 5 }])).status).toBe(400);
    expect(thrown(() => replaceCategories(existing, [{ key: 9007199254740992, label: 'x' }])).status).toBe(400);
  });
});

describe('addCategory', () => {
  it('appends a new category', () => {
    const result = addCategory(existing, { key: 10, label: 'Ten', color: 'hsl(120, 50%, 50%)' });
    expect(result).toHaveLength(4);
    expect(result.slice(0, 3)).toEqual(existing);
    expect(result[3]).toEqual({ key: 10, label: 'Ten', color: 'hsl(120, 50%, 50%)', accessible: false });
  });

  it.each([[1], ['1'], ['vip']])('rejects key %o that the chart already has', (key) => {
    const error = thrown(() => addCategory(existing, { key, label: 'again' }));
    expect(error.status).toBe(400);
    expect(error.errors[0]!.code).toBe('DUPLICATE_CATEGORY_KEY');
  });

  it('rejects a bad colour and a key above 2^53 - 1', () => {
    expect(thrown(() => addCategory(existing, { key: 10, label: 'x', color: 'notacolour' })).status).toBe(400);
    expect(thrown(() => addCategory(existing, { key: 9007199254740992, label: 'x' })).status).toBe(400);
  });
});

describe('updateCategory', () => {
  it('changes only what is given', () => {
    const current = existing[1]!;
    expect(updateCategory(current, {})).toEqual(current);
    expect(updateCategory(current, { label: 'Gold' })).toEqual({ ...current, label: 'Gold' });
    expect(updateCategory(current, { color: 'rgb(1 2 3)' })).toEqual({ ...current, color: 'rgb(1 2 3)' });
    expect(updateCategory(current, { accessible: false })).toEqual({ ...current, accessible: false });
  });

  it('rejects a bad colour', () => {
    const error = thrown(() => updateCategory(existing[0]!, { color: 'notacolour' }));
    expect(error.status).toBe(400);
  });
});

describe('findCategory', () => {
  it('finds a category by the key as it appears in a URL', () => {
    expect(findCategory(existing, '1')).toBe(existing[0]);
    expect(findCategory(existing, 'vip')).toBe(existing[1]);
    expect(findCategory(existing, '2')).toBeUndefined();
    expect(findCategory(existing, 'VIP')).toBeUndefined();
  });
});

describe('isCssColor', () => {
  it.each([
    '#abc',
    '#ABCD',
    '#a1b2c3',
    '#a1b2c3d4',
    'rgb(1,2,3)',
    'rgb(1, 2, 3)',
    'rgb(1 2 3)',
    'rgba(1,2,3,0.5)',
    'rgb(1 2 3 / 50%)',
    'rgb(10%, 20%, 30%)',
    'hsl(120, 50%, 50%)',
    'hsla(120, 50%, 50%, .3)',
    'red',
    'RED',
    'RebeccaPurple',
    'transparent',
    ' blue ',
  ])('accepts %o', (color) => {
    expect(isCssColor(color)).toBe(true);
  });

  it.each(['notacolour', '', '#', '#ab', '#abcde', '#ggg', 'rgb(1,2)', 'rgb(1,2,3,4,5)', 'rgb(a,b,c)', 'url(x)', 'red blue'])(
    'rejects %o',
    (color) => {
      expect(isCssColor(color)).toBe(false);
    },
  );
});
