import { badRequest } from './errors.js';
import { categoryId, type IndexedCategory, type ObjectIndex } from './objectIndex.js';
import { checkPlaces, generalAdmissionArea, knownAreaPlaces, knownLabels, knownObject } from './objectLabels.js';
import type { ForSaleConfig } from './event.js';

// The for-sale config of an event (docs/seatsio-behaviour.md, "For-sale config"): a list of
// objects, GA places and categories that are the only ones for sale (`forSale: true`) or
// the ones not for sale (`forSale: false`); null means everything is for sale. Pure.

export interface ForSaleInput {
  objects?: string[] | null;
  areaPlaces?: Record<string, number> | null;
  /** Category keys or labels (labels case-insensitive), as saleConfigFields matches them. */
  categories?: (string | number)[] | null;
}

/** 400 unless each entry is the key or the label of one of the event's categories. */
function knownCategories(entries: (string | number)[], categories: IndexedCategory[]): (string | number)[] {
  for (const entry of entries) {
    const id = categoryId(entry);
    const label = String(entry).toLowerCase();
    if (!categories.some((c) => categoryId(c.key) === id || c.label.toLowerCase() === label)) {
      throw badRequest('CATEGORY_NOT_FOUND', `the event has no category with key or label ${JSON.stringify(entry)}`);
    }
  }
  return [...new Set(entries)];
}

/** A whole config (mark-as-for-sale / mark-as-not-for-sale / create). `categories`: the event's categories. */
export function newForSaleConfig(forSale: boolean, input: ForSaleInput, index: ObjectIndex, categories: IndexedCategory[]): ForSaleConfig {
  return {
    forSale,
    objects: knownLabels(index, input.objects ?? []),
    areaPlaces: knownAreaPlaces(index, input.areaPlaces ?? {}),
    categories: knownCategories(input.categories ?? [], categories),
  };
}

export interface ForSaleEdit {
  object: string;
  /** GA areas only: how many places; without it the whole object. */
  quantity?: number | null;
}

export interface ForSaleEdits {
  forSale?: ForSaleEdit[] | null;
  notForSale?: ForSaleEdit[] | null;
}

/**
 * Whether an edit takes something off sale: only those are refused once the daily limit is
 * reached; every edit counts (docs/seatsio-behaviour.md, "For-sale config"). Whatever the
 * config's polarity, that is `notForSale`.
 */
export const takesOffSale = (edits: ForSaleEdits): boolean => (edits.notForSale?.length ?? 0) > 0;

/**
 * Applies edits to a config. The config's list moves towards what it lists: for a
 * not-for-sale list (or none) `notForSale` adds and `forSale` removes; for a for-sale list
 * the other way round. With a quantity a GA area's listed places grow or shrink by it
 * (an area listed whole has all its places listed). An object in both lists is a 400.
 */
export function editForSaleConfig(config: ForSaleConfig | null, edits: ForSaleEdits, index: ObjectIndex): ForSaleConfig | null {
  const base = config ?? { forSale: false, objects: [], areaPlaces: {}, categories: [] };
  const [towards, away] = base.forSale ? [edits.forSale ?? [], edits.notForSale ?? []] : [edits.notForSale ?? [], edits.forSale ?? []];
  const inBoth = towards.find((edit) => away.some((other) => other.object === edit.object));
  if (inBoth) throw badRequest('GENERAL_ERROR', `${inBoth.object} is both in forSale and in notForSale`);

  const objects = new Set(base.objects);
  const areaPlaces = { ...base.areaPlaces };
  const listedPlaces = (label: string, capacity: number) => (objects.has(label) ? capacity : (areaPlaces[label] ?? 0));
  const setPlaces = (label: string, places: number) => {
    objects.delete(label);
    if (places > 0) areaPlaces[label] = places;
    else delete areaPlaces[label];
  };
  for (const edit of away) {
    if (edit.quantity === undefined || edit.quantity === null) {
      knownObject(index, edit.object);
      objects.delete(edit.object);
      delete areaPlaces[edit.object];
      continue;
    }
    const area = generalAdmissionArea(index, edit.object);
    setPlaces(area.label, listedPlaces(area.label, area.capacity) - checkPlaces(area, edit.quantity));
  }
  for (const edit of towards) {
    if (edit.quantity === undefined || edit.quantity === null) {
      knownObject(index, edit.object);
      objects.add(edit.object);
      delete areaPlaces[edit.object];
      continue;
    }
    const area = generalAdmissionArea(index, edit.object);
    if (objects.has(area.label)) continue; // already listed whole
    setPlaces(area.label, Math.min(area.capacity, listedPlaces(area.label, area.capacity) + checkPlaces(area, edit.quantity)));
  }

  const edited: ForSaleConfig = { ...base, objects: [...objects], areaPlaces };
  // Opening up an event that had no config leaves it without one.
  const listsNothing = edited.objects.length === 0 && Object.keys(areaPlaces).length === 0 && edited.categories.length === 0;
  return config === null && listsNothing ? null : edited;
}
