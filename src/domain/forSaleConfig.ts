import { badRequest } from './errors.js';
import type { ChartObject, ObjectIndex } from './objectIndex.js';
import { checkPlaces, generalAdmissionArea } from './objectLabels.js';
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

/**
 * Labels and categories the chart does not have are kept and simply match nothing: clients
 * build these lists from their own catalogues (docs/seatsio-behaviour.md, "For-sale config").
 * What the chart does have is checked: place counts only for GA areas, within capacity.
 */
const uniqueEntries = <T>(entries: readonly T[]): T[] => [...new Set(entries)];

/** A GA area of the chart, or for a label the chart does not have, an area without a capacity limit. */
function areaOrUnknown(index: ObjectIndex, label: string): Pick<ChartObject, 'label' | 'capacity'> {
  return index.byLabel.has(label) ? generalAdmissionArea(index, label) : { label, capacity: Number.MAX_SAFE_INTEGER };
}

function areaPlacesOf(index: ObjectIndex, areaPlaces: Readonly<Record<string, number>>): Record<string, number> {
  const checked: Record<string, number> = {};
  for (const [label, places] of Object.entries(areaPlaces)) checked[label] = checkPlaces(areaOrUnknown(index, label), places);
  return checked;
}

/** A whole config (mark-as-for-sale / mark-as-not-for-sale / create). */
export function newForSaleConfig(forSale: boolean, input: ForSaleInput, index: ObjectIndex): ForSaleConfig {
  return {
    forSale,
    objects: uniqueEntries(input.objects ?? []),
    areaPlaces: areaPlacesOf(index, input.areaPlaces ?? {}),
    categories: uniqueEntries(input.categories ?? []),
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
      objects.delete(edit.object);
      delete areaPlaces[edit.object];
      continue;
    }
    const area = areaOrUnknown(index, edit.object);
    setPlaces(area.label, listedPlaces(area.label, area.capacity) - checkPlaces(area, edit.quantity));
  }
  for (const edit of towards) {
    if (edit.quantity === undefined || edit.quantity === null) {
      objects.add(edit.object);
      delete areaPlaces[edit.object];
      continue;
    }
    const area = areaOrUnknown(index, edit.object);
    if (objects.has(area.label)) continue; // already listed whole
    setPlaces(area.label, Math.min(area.capacity, listedPlaces(area.label, area.capacity) + checkPlaces(area, edit.quantity)));
  }

  const edited: ForSaleConfig = { ...base, objects: [...objects], areaPlaces };
  // Opening up an event that had no config leaves it without one.
  const listsNothing = edited.objects.length === 0 && Object.keys(areaPlaces).length === 0 && edited.categories.length === 0;
  return config === null && listsNothing ? null : edited;
}
