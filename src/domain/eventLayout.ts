import { createHash } from 'node:crypto';
import type { ObjectIndex } from './objectIndex.js';

// What a page needs to draw an event's chart (GET /events/{key}/layout; the box office,
// src/boxOffice/): every bookable object at its position in the drawing, with its
// category, and the drawing's bounds. Positions are the index's, in the drawing's units.
//
// The objects come in the index's order, and `layoutVersion` names that order: object i of
// a layout is the object the status stream's compact frames call i while their snapshot
// carries the same layoutVersion (docs/api.md, `GET /events/{key}/layout`). A chart version whose objects are
// the same labels in the same order has the same layoutVersion, on every process.

export interface LayoutObject {
  label: string;
  objectType: string;
  x: number;
  y: number;
  categoryKey: string | null;
  categoryLabel: string | null;
  color: string | null;
  /** GA areas: places; tables booked as a whole: seats. */
  capacity?: number;
  sectionLabel?: string;
}

export interface EventLayout {
  /** Names the objects' order (layoutVersionOf). */
  layoutVersion: string;
  bounds: { minX: number; minY: number; maxX: number; maxY: number };
  categories: { key: string; label: string; color: string }[];
  objects: LayoutObject[];
}

const versions = new WeakMap<ObjectIndex, string>();

/**
 * The version of an index's object order: the first 16 hex digits of the SHA-256 of its
 * labels in index order, joined by '\n'. Worked out once per index.
 */
export function layoutVersionOf(index: ObjectIndex): string {
  let version = versions.get(index);
  if (version === undefined) {
    const labels = index.objects.map((object) => object.label).join('\n');
    versions.set(index, (version = createHash('sha256').update(labels).digest('hex').slice(0, 16)));
  }
  return version;
}

export function eventLayout(index: ObjectIndex): EventLayout {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const objects = index.objects.map((object) => {
    minX = Math.min(minX, object.x);
    minY = Math.min(minY, object.y);
    maxX = Math.max(maxX, object.x);
    maxY = Math.max(maxY, object.y);
    const category = object.category;
    const item: LayoutObject = {
      label: object.label,
      objectType: object.objectType,
      x: object.x,
      y: object.y,
      categoryKey: category ? String(category.key) : null,
      categoryLabel: category?.label ?? null,
      color: category?.color ?? null,
    };
    if (object.objectType === 'generalAdmission' || object.objectType === 'table') item.capacity = object.capacity;
    if (object.section) item.sectionLabel = object.section.label;
    return item;
  });
  if (objects.length === 0) minX = minY = maxX = maxY = 0;
  return {
    layoutVersion: layoutVersionOf(index),
    bounds: { minX, minY, maxX, maxY },
    categories: index.categories.map((c) => ({ key: String(c.key), label: c.label, color: c.color })),
    objects,
  };
}
