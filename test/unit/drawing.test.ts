import { describe, expect, it } from 'vitest';
import { checkDrawing, emptyDrawing, MAX_NUMERIC_CATEGORY_KEY, type Drawing } from '../../src/domain/drawing.js';
import { ApiError } from '../../src/domain/errors.js';
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

/** The ApiError checkDrawing throws for `value`; fails the test when it does not throw one. */
function rejection(value: unknown): ApiError {
  try {
    checkDrawing(value);
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('checkDrawing accepted the drawing');
}

function expectInvalid(value: unknown, ...fragments: string[]): ApiError {
  const error = rejection(value);
  expect(error.status).toBe(400);
  expect(error.errors[0]!.code).toBe('INVALID_DRAWING');
  for (const fragment of fragments) expect(error.errors[0]!.message).toContain(fragment);
  return error;
}

/** A copy of a fixture as loose JSON, to break in place. */
const broken = (drawing: Drawing): any => structuredClone(drawing);

describe('checkDrawing rejects', () => {
  it.each([['a string'], [42], [null], [undefined], [true], [[]], [['a', 'list']]])('%o: not a JSON object', (value) => {
    expectInvalid(value, 'must be a JSON object');
  });

  it('a drawing with neither subChart nor subChartFloors', () => {
    expectInvalid({ name: 'x', categories: { list: [] } }, 'neither subChart nor subChartFloors');
    expectInvalid({}, 'neither subChart nor subChartFloors');
  });

  it('a seat without x', () => {
    const drawing = broken(rowsWithoutSections);
    delete drawing.subChart.rows[1].seats[2].x;
    expectInvalid(drawing, '#/subChart/rows/1/seats/2: seat needs numeric x and y coordinates');
  });

  it.each([['12'], [null], [Number.NaN], [Number.POSITIVE_INFINITY]])('a seat with y %o', (y) => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.rows[0].seats[0].y = y;
    expectInvalid(drawing, '#/subChart/rows/0/seats/0: seat needs numeric x and y');
  });

  it('a seat without coordinates inside a section, naming the path through the section', () => {
    const drawing = broken(withSections);
    delete drawing.subChart.sections[1].subChart.rows[0].seats[3].y;
    expectInvalid(drawing, '#/subChart/sections/1/subChart/rows/0/seats/3: seat needs numeric x and y');
  });

  it('a seat without coordinates on a floor, naming the path through the floor', () => {
    const drawing = broken(withFloors);
    delete drawing.subChartFloors[1].sections[0].subChart.rows[0].seats[0].x;
    expectInvalid(drawing, '#/subChartFloors/1/sections/0/subChart/rows/0/seats/0: seat needs numeric x and y');
  });

  it.each([
    ['0', 0],
    ['negative', -5],
    ['missing', undefined],
    ['non-integer', 1.5],
    ['a string', '100'],
    ['null', null],
  ])('a GA area with capacity %s', (_, capacity) => {
    const drawing = broken(rowsWithoutSections);
    if (capacity === undefined) delete drawing.subChart.generalAdmissionAreas[1].capacity;
    else drawing.subChart.generalAdmissionAreas[1].capacity = capacity;
    expectInvalid(drawing, '#/subChart/generalAdmissionAreas/1/capacity', 'positive whole-number capacity');
  });

  it('a GA area without any coordinates', () => {
    const drawing = broken(rowsWithoutSections);
    delete drawing.subChart.generalAdmissionAreas[0].center;
    expectInvalid(drawing, '#/subChart/generalAdmissionAreas/0: general admission area needs coordinates');
  });

  it('a GA area whose outline has a bad point', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.generalAdmissionAreas[1].points[2] = { x: 1 };
    expectInvalid(drawing, '#/subChart/generalAdmissionAreas/1: general admission area needs coordinates');
  });

  it('a table without center', () => {
    const drawing = broken(withTables);
    delete drawing.subChart.tables[1].center;
    expectInvalid(drawing, '#/subChart/tables/1: table needs a center {x, y}');
  });

  it('a table with a center missing y', () => {
    const drawing = broken(withTables);
    drawing.subChart.tables[0].center = { x: 3 };
    expectInvalid(drawing, '#/subChart/tables/0: table needs a center');
  });

  it('a booth without coordinates', () => {
    const drawing = broken(withBooths);
    delete drawing.subChart.booths[1].x;
    expectInvalid(drawing, '#/subChart/booths/1: booth needs numeric x and y');
  });

  it.each([['rows'], ['tables'], ['booths'], ['generalAdmissionAreas'], ['sections']])('a non-array %s field', (field) => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart[field] = { 0: 'not a list' };
    expectInvalid(drawing, `#/subChart/${field}: must be an array`);
  });

  it('a non-array seats field and a non-object seat', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.rows[2].seats = 'A-1';
    drawing.subChart.rows[3].seats[4] = 7;
    expectInvalid(drawing, '#/subChart/rows/2/seats: must be an array', '#/subChart/rows/3/seats/4: must be an object');
  });

  it.each([[true], [null], [{}], [['9']]])('a category key %o', (key) => {
    const drawing = broken(rowsWithoutSections);
    drawing.categories.list[1].key = key;
    expectInvalid(drawing, '#/categories/list/1/key: must be a whole number or a string');
  });

  it('a category key that is not a finite number, naming the key field', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.categories.list[0].key = Number.NaN;
    drawing.categories.list[1].key = MAX_NUMERIC_CATEGORY_KEY + 1;
    const error = expectInvalid(drawing);
    expect(error.errors[0]!.message).toContain('#/categories/list/0/key');
    expect(error.errors[0]!.message).toContain('#/categories/list/1/key');
  });

  it('a category without a label, and categories that are not a list', () => {
    const drawing = broken(rowsWithoutSections);
    delete drawing.categories.list[2].label;
    expectInvalid(drawing, '#/categories/list/2/label: must be a string');
    expectInvalid({ ...broken(rowsWithoutSections), categories: [] }, '#/categories: must be an object with a list');
    expectInvalid({ ...broken(rowsWithoutSections), categories: null }, '#/categories');
  });

  it.each([[true], [{}], [[1]]])('an object category key %o', (key) => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.generalAdmissionAreas[0].categoryKey = key;
    expectInvalid(drawing, '#/subChart/generalAdmissionAreas/0/categoryKey');
  });

  it('an object category key above 2^53 - 1', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.rows[0].seats[0].categoryKey = 2 ** 53;
    expectInvalid(drawing, '#/subChart/rows/0/seats/0/categoryKey: must not exceed 9007199254740991');
  });

  it('labels that are not strings', () => {
    const drawing = broken(withSections);
    drawing.subChart.sections[0].label = 1;
    drawing.subChart.sections[0].subChart.rows[1].label = { text: 'B' };
    drawing.subChart.sections[1].subChart.rows[0].seats[0].label = 1;
    expectInvalid(
      drawing,
      '#/subChart/sections/0/label: must be a string',
      '#/subChart/sections/0/subChart/rows/1/label: must be a string',
      '#/subChart/sections/1/subChart/rows/0/seats/0/label: must be a string',
    );
  });

  it('a name or venue type that is not a string', () => {
    expectInvalid({ ...broken(withTables), name: 5 }, '#/name: must be a string');
    expectInvalid({ ...broken(withTables), venueType: ['SIMPLE'] }, '#/venueType: must be a string');
  });

  it('a subChart that is not an object', () => {
    expectInvalid({ categories: { list: [] }, subChart: [] }, '#/subChart: must be an object');
    expectInvalid({ categories: { list: [] }, subChart: null }, '#/subChart: must be an object');
  });

  it('an empty or malformed subChartFloors', () => {
    expectInvalid({ categories: { list: [] }, subChartFloors: [] }, '#/subChartFloors: must be a non-empty array');
    expectInvalid({ categories: { list: [] }, subChartFloors: {} }, '#/subChartFloors: must be a non-empty array');
    expectInvalid({ categories: { list: [] }, subChartFloors: [{}, 'floor'] }, '#/subChartFloors/1: must be an object');
    expectInvalid({ categories: { list: [] }, subChartFloors: [{ floorName: 2 }] }, '#/subChartFloors/0/floorName: must be a string');
  });

  it('a section nested in a section', () => {
    const drawing = broken(withSections);
    drawing.subChart.sections[0].subChart.sections = [{ label: 'inner', subChart: {} }];
    expectInvalid(drawing, '#/subChart/sections/0/subChart/sections/0: sections cannot be nested inside sections');
  });

  it('a section without a subChart or with a bad topLeft', () => {
    const drawing = broken(withSections);
    delete drawing.subChart.sections[0].subChart;
    drawing.subChart.sections[1].topLeft = { x: 'left', y: 0 };
    expectInvalid(drawing, '#/subChart/sections/0/subChart: must be an object', '#/subChart/sections/1/topLeft: must be {x, y}');
  });

  it('a focal point that is not {x, y}', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.focalPoint = { x: 1 };
    expectInvalid(drawing, '#/subChart/focalPoint: must be {x, y} or null');
  });

  it('zones that are not a list of keyed zones', () => {
    expectInvalid({ ...broken(withZones), zones: [] }, '#/zones: must be an object with a list of zones');
    const drawing = broken(withZones);
    drawing.zones.list[1].key = 2;
    expectInvalid(drawing, '#/zones/list/1: must be an object with a string key');
  });

  it('with every problem listed in the message and in the data, up to 20', () => {
    const drawing = broken(rowsWithoutSections);
    delete drawing.subChart.rows[0].seats[0].x;
    drawing.subChart.generalAdmissionAreas[0].capacity = 0;
    const error = expectInvalid(drawing, '#/subChart/rows/0/seats/0', '#/subChart/generalAdmissionAreas/0/capacity');
    expect(error.errors[0]!.data).toEqual({
      problems: [
        '#/subChart/rows/0/seats/0: seat needs numeric x and y coordinates',
        '#/subChart/generalAdmissionAreas/0/capacity: a general admission area needs a positive whole-number capacity',
      ],
    });

    const many = broken(rowsWithoutSections);
    for (const row of many.subChart.rows) for (const seat of row.seats) delete seat.x;
    const problems = (expectInvalid(many).errors[0]!.data as { problems: string[] }).problems;
    expect(problems).toHaveLength(20);
  });

  // A drawing may carry a focal point at the top level (the index prefers it to the
  // subChart's), so it needs the same check as the subChart's.
  it('a top-level focal point that is not {x, y}', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.focalPoint = 'stage';
    expectInvalid(drawing, '#/focalPoint');
  });
});

describe('checkDrawing accepts', () => {
  it.each([
    ['rowsWithoutSections', rowsWithoutSections],
    ['withSections', withSections],
    ['withTables', withTables],
    ['withBooths', withBooths],
    ['withFloors', withFloors],
    ['withZones', withZones],
    ['withErrors', withErrors],
    ['a generated drawing', generatedDrawing({ sections: 4, rowsPerSection: 5, seatsPerRow: 6 })],
    ['an empty drawing', emptyDrawing({})],
  ])('%s, returning it unchanged', (_, drawing) => {
    const copy = structuredClone(drawing);
    expect(checkDrawing(copy)).toBe(copy);
    expect(copy).toEqual(drawing);
  });

  it('a drawing without categories, giving it an empty list', () => {
    const drawing = broken(withTables);
    delete drawing.categories;
    expect(checkDrawing(drawing).categories).toEqual({ list: [] });
  });

  it('null labels, category keys, entrances and focal points', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.rows[0].label = null;
    drawing.subChart.rows[0].seats[0].categoryKey = null;
    drawing.subChart.rows[0].seats[0].entrance = null;
    drawing.subChart.focalPoint = null;
    drawing.zones = null;
    expect(() => checkDrawing(drawing)).not.toThrow();
  });

  it('GA areas and booths placed by x and y', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.generalAdmissionAreas[0] = { label: 'GA1', capacity: 3, x: 1, y: 2 };
    expect(() => checkDrawing(drawing)).not.toThrow();
  });

  it('the largest safe category key', () => {
    const drawing = broken(rowsWithoutSections);
    drawing.categories.list[0].key = MAX_NUMERIC_CATEGORY_KEY;
    drawing.subChart.rows[0].seats[0].categoryKey = MAX_NUMERIC_CATEGORY_KEY;
    expect(() => checkDrawing(drawing)).not.toThrow();
  });

  it('a drawing with both subChart and subChartFloors', () => {
    const drawing = { ...broken(withFloors), subChart: broken(withBooths).subChart };
    expect(() => checkDrawing(drawing)).not.toThrow();
  });

  // What checkDrawing accepts must index to real coordinates: an object placed by a valid
  // outline (or x/y) but also carrying a malformed center must not end up at NaN.
  it.each([
    ['a GA area', 'generalAdmissionAreas', { label: 'GA1', capacity: 10, center: {}, points: [{ x: 0, y: 0 }, { x: 10, y: 10 }] }],
    ['a booth', 'booths', { label: 'GA1', center: { x: 'left' }, x: 5, y: 5 }],
  ])('%s with a malformed center only if it indexes at finite coordinates', (_, field, shape) => {
    const drawing = broken(rowsWithoutSections);
    drawing.subChart.generalAdmissionAreas = [];
    drawing.subChart[field] = [shape];
    let checked: Drawing;
    try {
      checked = checkDrawing(drawing);
    } catch (e) {
      expect((e as ApiError).errors[0]!.code).toBe('INVALID_DRAWING');
      return;
    }
    const object = buildObjectIndex(checked).byLabel.get('GA1')!;
    expect(Number.isFinite(object.x) && Number.isFinite(object.y)).toBe(true);
  });
});
