import { describe, expect, it } from 'vitest';
import { classifyFailures, failedValidators } from '../../src/domain/chartValidation.js';
import { CHART_VALIDATORS, defaultCompanySettings, type ChartValidator, type ValidatorLevel } from '../../src/domain/companySettings.js';
import type { Drawing } from '../../src/domain/drawing.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import {
  generatedDrawing,
  rowsWithoutSections,
  withBooths,
  withErrors,
  withFloors,
  withSections,
  withTables,
  withZones,
} from '../fixtures/drawings.js';

const failed = (drawing: Drawing) => failedValidators(buildObjectIndex(drawing));

const levels = (overrides: Partial<Record<ChartValidator, ValidatorLevel>> = {}): Record<ChartValidator, ValidatorLevel> => ({
  ...defaultCompanySettings().chartValidation,
  ...overrides,
});

describe('failedValidators', () => {
  it('fails withErrors on exactly its five problems, in a stable order', () => {
    expect(failed(withErrors)).toEqual([
      'VALIDATE_DUPLICATE_LABELS',
      'VALIDATE_OBJECTS_WITHOUT_CATEGORIES',
      'VALIDATE_UNLABELED_OBJECTS',
      'VALIDATE_FOCAL_POINT',
      'VALIDATE_OBJECT_TYPES_PER_CATEGORY',
    ]);
  });

  it('fails rowsWithoutSections only on categories shared by seats and GA areas', () => {
    // GA1 shares Cat1 (9) with rows A and B, GA2 shares Cat2 (10) with rows C and D.
    expect(buildObjectIndex(rowsWithoutSections).findings.categoriesWithMixedObjectTypes).toEqual(['9', '10']);
    expect(failed(rowsWithoutSections)).toEqual(['VALIDATE_OBJECT_TYPES_PER_CATEGORY']);
  });

  it('passes rowsWithoutSections once its GA areas have categories of their own', () => {
    const drawing = structuredClone(rowsWithoutSections);
    for (const area of drawing.subChart!.generalAdmissionAreas!) area.categoryKey = 'string11';
    expect(failed(drawing)).toEqual([]);
  });

  it.each([
    ['withTables', withTables],
    ['withBooths', withBooths],
    ['withFloors', withFloors],
    ['withZones', withZones],
    ['a generated drawing', generatedDrawing({ sections: 3, rowsPerSection: 3, seatsPerRow: 3 })],
  ])('passes %s', (_, drawing) => {
    expect(failed(drawing)).toEqual([]);
  });

  it('fails withSections only on its category shared by seats and a GA area', () => {
    expect(failed(withSections)).toEqual(['VALIDATE_OBJECT_TYPES_PER_CATEGORY']);
  });

  it('does not count tables when checking object types per category', () => {
    // T1 and its seats share category 1: a table and its own seats are not mixed types.
    expect(buildObjectIndex(withTables).findings.categoriesWithMixedObjectTypes).toEqual([]);
  });

  it('counts booths and seats in one category as mixed', () => {
    const drawing = structuredClone(withBooths);
    drawing.subChart!.rows = [{ label: 'A', seats: [{ label: '1', x: 0, y: 0, categoryKey: 'small' }] }];
    expect(failed(drawing)).toEqual(['VALIDATE_OBJECT_TYPES_PER_CATEGORY']);
  });

  it('fails VALIDATE_EMPTY_FLOOR for a floor without objects', () => {
    const drawing = structuredClone(withFloors);
    drawing.subChartFloors!.push({ floorName: '3', floorDisplayName: 'Roof', rows: [], sections: [] });
    const index = buildObjectIndex(drawing);
    expect(index.findings.emptyFloors).toEqual(['3']);
    expect(failedValidators(index)).toEqual(['VALIDATE_EMPTY_FLOOR']);
  });

  it('fails VALIDATE_EMPTY_FLOOR for a floor whose only seats are unlabeled', () => {
    const drawing = structuredClone(withFloors);
    drawing.subChartFloors![1]!.sections![0]!.label = '';
    expect(failed(drawing)).toEqual(['VALIDATE_UNLABELED_OBJECTS', 'VALIDATE_EMPTY_FLOOR']);
  });

  it('accepts a zone focal point in place of a chart focal point', () => {
    const drawing = structuredClone(withZones);
    for (const zone of drawing.zones!.list) zone.focalPoint = null;
    expect(failed(withZones)).not.toContain('VALIDATE_FOCAL_POINT');
    expect(failed(drawing)).toEqual(['VALIDATE_FOCAL_POINT']);
  });

  it('takes a top-level focal point', () => {
    const drawing = structuredClone(withErrors);
    drawing.focalPoint = { x: 0, y: 0 };
    expect(failed(drawing)).not.toContain('VALIDATE_FOCAL_POINT');
  });

  it('fails VALIDATE_OBJECTS_WITHOUT_CATEGORIES for a category key no category has', () => {
    const drawing = structuredClone(withTables);
    drawing.subChart!.tables![0]!.seats![0]!.categoryKey = 99;
    expect(failed(drawing)).toEqual(['VALIDATE_OBJECTS_WITHOUT_CATEGORIES']);
  });

  it('fails an empty chart only on its focal point', () => {
    expect(failed({ categories: { list: [] }, subChart: {} })).toEqual(['VALIDATE_FOCAL_POINT']);
  });
});

describe('classifyFailures', () => {
  const all = [...CHART_VALIDATORS];

  it('ignores every failure when every validator is OFF', () => {
    expect(classifyFailures(all, levels())).toEqual({ errors: [], warnings: [] });
  });

  it('sorts failures into errors and warnings by level, keeping their order', () => {
    const result = classifyFailures(
      all,
      levels({
        VALIDATE_DUPLICATE_LABELS: 'ERROR',
        VALIDATE_OBJECTS_WITHOUT_CATEGORIES: 'WARNING',
        VALIDATE_UNLABELED_OBJECTS: 'OFF',
        VALIDATE_FOCAL_POINT: 'ERROR',
        VALIDATE_OBJECT_TYPES_PER_CATEGORY: 'WARNING',
        VALIDATE_EMPTY_FLOOR: 'ERROR',
      }),
    );
    expect(result).toEqual({
      errors: ['VALIDATE_DUPLICATE_LABELS', 'VALIDATE_FOCAL_POINT', 'VALIDATE_EMPTY_FLOOR'],
      warnings: ['VALIDATE_OBJECTS_WITHOUT_CATEGORIES', 'VALIDATE_OBJECT_TYPES_PER_CATEGORY'],
    });
  });

  it('reports only validators that failed', () => {
    const everythingOn = levels(Object.fromEntries(CHART_VALIDATORS.map((v) => [v, 'ERROR'])));
    expect(classifyFailures(failed(rowsWithoutSections), everythingOn)).toEqual({
      errors: ['VALIDATE_OBJECT_TYPES_PER_CATEGORY'],
      warnings: [],
    });
    expect(classifyFailures([], everythingOn)).toEqual({ errors: [], warnings: [] });
  });

  it('classifies withErrors under mixed levels', () => {
    expect(
      classifyFailures(failed(withErrors), levels({ VALIDATE_FOCAL_POINT: 'WARNING', VALIDATE_UNLABELED_OBJECTS: 'ERROR' })),
    ).toEqual({ errors: ['VALIDATE_UNLABELED_OBJECTS'], warnings: ['VALIDATE_FOCAL_POINT'] });
  });

  it('treats validators missing from the settings (stored before they existed) as OFF', () => {
    const stored = { VALIDATE_DUPLICATE_LABELS: 'ERROR' } as Record<ChartValidator, ValidatorLevel>;
    expect(classifyFailures(['VALIDATE_DUPLICATE_LABELS', 'VALIDATE_EMPTY_FLOOR'], stored)).toEqual({
      errors: ['VALIDATE_DUPLICATE_LABELS'],
      warnings: [],
    });
  });
});
