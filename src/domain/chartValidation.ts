import type { ChartValidator, ValidatorLevel } from './companySettings.js';
import type { ObjectIndex } from './objectIndex.js';

// The chart validators (docs/seatsio-behaviour.md, "Chart versions and status"; VALIDATE_EMPTY_FLOOR from the account settings).
// Which validators a drawing fails is a fact of the drawing; whether a failure is an error,
// a warning or ignored is the company's setting. Keeping the two apart lets the failed
// validators be stored once per version and classified on every read. Pure.

/** The validators a drawing fails, in a stable order. */
export function failedValidators(index: ObjectIndex): ChartValidator[] {
  const f = index.findings;
  const failed: ChartValidator[] = [];
  if (f.duplicateLabels.length > 0) failed.push('VALIDATE_DUPLICATE_LABELS');
  if (f.objectsWithoutCategory > 0) failed.push('VALIDATE_OBJECTS_WITHOUT_CATEGORIES');
  if (f.unlabeledObjects > 0) failed.push('VALIDATE_UNLABELED_OBJECTS');
  // Best available needs a focal point: the chart's own, or one per zone.
  if (index.focalPoint === null && !index.zoneFocalPoints) failed.push('VALIDATE_FOCAL_POINT');
  if (f.categoriesWithMixedObjectTypes.length > 0) failed.push('VALIDATE_OBJECT_TYPES_PER_CATEGORY');
  if (f.emptyFloors.length > 0) failed.push('VALIDATE_EMPTY_FLOOR');
  return failed;
}

export interface ValidationResult {
  errors: ChartValidator[];
  warnings: ChartValidator[];
}

export function classifyFailures(failed: readonly string[], levels: Record<ChartValidator, ValidatorLevel>): ValidationResult {
  const result: ValidationResult = { errors: [], warnings: [] };
  for (const name of failed as ChartValidator[]) {
    const level = levels[name] ?? 'OFF';
    if (level === 'ERROR') result.errors.push(name);
    else if (level === 'WARNING') result.warnings.push(name);
  }
  return result;
}
