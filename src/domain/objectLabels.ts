import { badRequest } from './errors.js';
import type { ChartObject, ObjectIndex } from './objectIndex.js';

// Object labels and GA place counts as event settings name them (channels, table booking,
// object categories). A setting naming an object the chart does not have would silently do
// nothing, so it is refused; the for-sale config is the exception (src/domain/forSaleConfig.ts),
// as in seats.io. Pure.

/** The object a label names; 400 OBJECT_NOT_FOUND if the chart has none. */
export function knownObject(index: ObjectIndex, label: string): ChartObject {
  const object = index.byLabel.get(label);
  if (!object) throw badRequest('OBJECT_NOT_FOUND', `Object not found: ${label}`);
  return object;
}

/** The labels, each once in the order first given, after checking that every one exists. */
export function knownLabels(index: ObjectIndex, labels: readonly string[]): string[] {
  for (const label of labels) knownObject(index, label);
  return [...new Set(labels)];
}

/** The GA area a label names; 400 if it names no object or an object that is not a GA area. */
export function generalAdmissionArea(index: ObjectIndex, label: string): ChartObject {
  const object = knownObject(index, label);
  if (object.objectType !== 'generalAdmission') {
    throw badRequest('GENERAL_ERROR', `${label} is not a general admission area; place counts are only for GA areas`);
  }
  return object;
}

/** 400 unless `places` is a whole number from 1 to the area's capacity. */
export function checkPlaces(area: Pick<ChartObject, 'label' | 'capacity'>, places: number): number {
  if (!Number.isInteger(places) || places < 1 || places > area.capacity) {
    throw badRequest('GENERAL_ERROR', `places of ${area.label} must be a whole number from 1 to its capacity ${area.capacity}, got ${places}`);
  }
  return places;
}

/** `areaPlaces` (GA label -> number of places) after checking every label and count. */
export function knownAreaPlaces(index: ObjectIndex, areaPlaces: Readonly<Record<string, number>>): Record<string, number> {
  const checked: Record<string, number> = {};
  for (const [label, places] of Object.entries(areaPlaces)) checked[label] = checkPlaces(generalAdmissionArea(index, label), places);
  return checked;
}
