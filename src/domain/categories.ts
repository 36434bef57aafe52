import { isCssColor } from './cssColors.js';
import type { CategoryKey, DrawingCategory } from './drawing.js';
import { MAX_NUMERIC_CATEGORY_KEY } from './drawing.js';
import { badRequest } from './errors.js';
import { categoryId } from './objectIndex.js';

// Chart categories as the category routes and chart update change them (docs/seatsio-behaviour.md, "Chart categories"
// and "POST /charts/{chartKey}"). Pure: lists in, lists out, 400 on bad input.

export interface CategoryInput {
  key: CategoryKey;
  label?: string;
  color?: string;
  accessible?: boolean;
}

/** Colours given to categories created without one, in turn. */
const PALETTE = ['#1E88E5', '#43A047', '#FB8C00', '#8E24AA', '#E53935', '#00ACC1', '#FDD835', '#6D4C41'];

export function checkCategoryKey(key: CategoryKey): void {
  if (typeof key === 'number' && (!Number.isInteger(key) || Math.abs(key) > MAX_NUMERIC_CATEGORY_KEY)) {
    throw badRequest('GENERAL_ERROR', `category key ${key} must be a whole number not exceeding ${MAX_NUMERIC_CATEGORY_KEY}`);
  }
  if (typeof key === 'string' && key.trim() === '') throw badRequest('GENERAL_ERROR', 'category key must not be empty');
}

function checkColor(color: string | undefined): void {
  if (color !== undefined && !isCssColor(color)) {
    throw badRequest('GENERAL_ERROR', `category color "${color}" is not a valid HTML/CSS color`);
  }
}

/** 400 when two categories share a key, counting '1' and 1 as the same key. */
export function rejectDuplicateKeys(keys: CategoryKey[]): void {
  const seen = new Map<string, CategoryKey>();
  for (const key of keys) {
    const id = categoryId(key);
    if (seen.has(id)) {
      throw badRequest(
        'DUPLICATE_CATEGORY_KEY',
        `category keys must be unique: ${JSON.stringify(seen.get(id))} and ${JSON.stringify(key)} are the same key`,
      );
    }
    seen.set(id, key);
  }
}

function newCategory(input: CategoryInput, position: number): DrawingCategory {
  checkCategoryKey(input.key);
  checkColor(input.color);
  if (input.label === undefined) throw badRequest('GENERAL_ERROR', `category ${JSON.stringify(input.key)} needs a label`);
  return {
    key: input.key,
    label: input.label,
    color: input.color ?? PALETTE[position % PALETTE.length]!,
    accessible: input.accessible ?? false,
  };
}

/** Categories for a new chart: every input is a whole category. */
export function newCategories(inputs: CategoryInput[]): DrawingCategory[] {
  rejectDuplicateKeys(inputs.map((c) => c.key));
  return inputs.map(newCategory);
}

/**
 * `categories` of a chart update: keys not yet there are added, existing keys are updated
 * (label and colour given overwrite, omitted ones stay), keys not sent are removed.
 */
export function replaceCategories(existing: DrawingCategory[], inputs: CategoryInput[]): DrawingCategory[] {
  rejectDuplicateKeys(inputs.map((c) => c.key));
  const byId = new Map(existing.map((c) => [categoryId(c.key), c]));
  return inputs.map((input, i) => {
    const current = byId.get(categoryId(input.key));
    return current ? updateCategory(current, input) : newCategory(input, existing.length + i);
  });
}

export function addCategory(existing: DrawingCategory[], input: CategoryInput): DrawingCategory[] {
  if (existing.some((c) => categoryId(c.key) === categoryId(input.key))) {
    throw badRequest('DUPLICATE_CATEGORY_KEY', `the chart already has a category with key ${JSON.stringify(input.key)}`);
  }
  return [...existing, newCategory(input, existing.length)];
}

export function updateCategory(current: DrawingCategory, change: Omit<CategoryInput, 'key'>): DrawingCategory {
  checkColor(change.color);
  return {
    ...current,
    ...(change.label !== undefined && { label: change.label }),
    ...(change.color !== undefined && { color: change.color }),
    ...(change.accessible !== undefined && { accessible: change.accessible }),
  };
}

/** Finds a category by the key as it arrives in a URL (always a string). */
export function findCategory(existing: DrawingCategory[], keyInUrl: string): DrawingCategory | undefined {
  return existing.find((c) => categoryId(c.key) === keyInUrl);
}
