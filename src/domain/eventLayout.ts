import type { ObjectIndex } from './objectIndex.js';

// What a page needs to draw an event's chart (GET /events/{key}/layout; the box office,
// src/boxOffice/): every bookable object at its position in the drawing, with its
// category, and the drawing's bounds. Positions are the index's, in the drawing's units.

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
  bounds: { minX: number; minY: number; maxX: number; maxY: number };
  categories: { key: string; label: string; color: string }[];
  objects: LayoutObject[];
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
    bounds: { minX, minY, maxX, maxY },
    categories: index.categories.map((c) => ({ key: String(c.key), label: c.label, color: c.color })),
    objects,
  };
}
