import { describe, expect, it } from 'vitest';
import type { Drawing } from '../../src/domain/drawing.js';
import { buildObjectIndex, chartVenueType, describeObject, type ChartObject, type ObjectIndex } from '../../src/domain/objectIndex.js';
import {
  generatedDrawing,
  rowLabel,
  rowsWithoutSections,
  withBooths,
  withErrors,
  withFloors,
  withSections,
  withTables,
  withZones,
} from '../fixtures/drawings.js';

const SEAT_FLAGS = [
  'isAccessible',
  'isCompanionSeat',
  'hasLiftUpArmrests',
  'isHearingImpaired',
  'isSemiAmbulatorySeat',
  'hasSignLanguageInterpretation',
  'isPlusSize',
  'hasRestrictedView',
] as const;

const noFlags = Object.fromEntries(SEAT_FLAGS.map((flag) => [flag, false]));

function get(index: ObjectIndex, label: string): ChartObject {
  const object = index.byLabel.get(label);
  if (!object) throw new Error(`no object labelled ${label}`);
  return object;
}

const describe_ = (index: ObjectIndex, label: string) => describeObject(index, get(index, label));

const seatLabels = (rows: string[], seats: number, prefix = '') =>
  rows.flatMap((row) => Array.from({ length: seats }, (_, i) => `${prefix}${row}-${i + 1}`));

describe('buildObjectIndex: rows without sections', () => {
  const index = buildObjectIndex(rowsWithoutSections);

  it('indexes every seat and GA area under its composed label, in drawing order', () => {
    expect(index.objects).toHaveLength(34);
    expect(index.objects.map((o) => o.label)).toEqual([...seatLabels(['A', 'B', 'C', 'D'], 8), 'GA1', 'GA2']);
    expect([...index.byLabel.keys()]).toEqual(index.objects.map((o) => o.label));
    index.objects.forEach((o, i) => expect(o.position).toBe(i));
  });

  it('is a SIMPLE chart without floors or zones', () => {
    expect(index.venueType).toBe('SIMPLE');
    expect(index.floors).toEqual([]);
    expect(index.zones).toEqual([]);
    expect(index.focalPoint).toEqual({ x: 225, y: 33.23 });
  });

  it('keeps every category, including unused ones', () => {
    expect(index.categories).toEqual([
      { key: 9, label: 'Cat1', color: '#87A9CD', accessible: false },
      { key: 10, label: 'Cat2', color: '#5E42ED', accessible: false },
      { key: 'string11', label: 'Cat3', color: '#5E42BB', accessible: false },
    ]);
    expect(index.objects.some((o) => o.category?.key === 'string11')).toBe(false);
  });

  it('describes a row seat the way seats.io does', () => {
    const details = describe_(index, 'A-1');
    expect(details).toEqual({
      label: 'A-1',
      labels: { own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' } },
      ids: { own: '1', parent: 'A' },
      categoryLabel: 'Cat1',
      categoryKey: '9',
      objectType: 'seat',
      ...noFlags,
      rightNeighbour: 'A-2',
      distanceToFocalPoint: expect.any(Number),
    });
    expect(details).not.toHaveProperty('leftNeighbour');
    expect(details).not.toHaveProperty('section');
    expect(details).not.toHaveProperty('entrance');
    expect(details).not.toHaveProperty('floor');
    expect(details).not.toHaveProperty('zone');
    expect(details).not.toHaveProperty('capacity');
    expect(details).not.toHaveProperty('bookAsAWhole');
  });

  it('gives category keys as strings and labels for both categories', () => {
    expect(describe_(index, 'B-8')).toMatchObject({ categoryKey: '9', categoryLabel: 'Cat1' });
    expect(describe_(index, 'C-1')).toMatchObject({ categoryKey: '10', categoryLabel: 'Cat2' });
    expect(get(index, 'D-8').category?.key).toBe(10);
  });

  it('keeps absolute coordinates of top-level seats', () => {
    expect(get(index, 'A-1')).toMatchObject({ x: 151.94, y: 99.56 });
    expect(get(index, 'A-8')).toMatchObject({ x: 151.94 + 7 * 20, y: 99.56 });
    expect(get(index, 'D-1')).toMatchObject({ x: 151.94, y: 159.56 });
  });

  it('computes the Euclidean distance to the focal point (single precision, as seats.io does)', () => {
    expect(describe_(index, 'A-1').distanceToFocalPoint).toBeCloseTo(Math.hypot(151.94 - 225, 99.56 - 33.23), 4);
    expect(describe_(index, 'A-1').distanceToFocalPoint).toBeCloseTo(98.678425, 4);
    expect(describe_(index, 'GA1').distanceToFocalPoint).toBeCloseTo(Math.hypot(400 - 225, 120 - 33.23), 4);
  });

  it('gives seats.io\'s exact distance for A-1 (98.67842540608864)', () => {
    // seats.io's own value for a seat at (151.94, 99.56) and focal point (225, 33.23).
    expect(describe_(index, 'A-1').distanceToFocalPoint).toBe(98.67842540608864);
  });

  it('reads every seat property', () => {
    expect(describe_(index, 'A-7')).toMatchObject({ ...noFlags, isAccessible: true });
    expect(describe_(index, 'A-2')).toMatchObject({ ...noFlags, isCompanionSeat: true });
    expect(describe_(index, 'B-1')).toMatchObject({ ...noFlags, hasRestrictedView: true });
    expect(describe_(index, 'B-2')).toMatchObject({ ...noFlags, hasLiftUpArmrests: true });
    expect(describe_(index, 'B-3')).toMatchObject({ ...noFlags, isHearingImpaired: true });
    expect(describe_(index, 'B-4')).toMatchObject({ ...noFlags, isSemiAmbulatorySeat: true });
    expect(describe_(index, 'B-5')).toMatchObject({ ...noFlags, hasSignLanguageInterpretation: true });
    expect(describe_(index, 'B-6')).toMatchObject({ ...noFlags, isPlusSize: true });
    expect(describe_(index, 'B-8')).toMatchObject(Object.fromEntries(SEAT_FLAGS.map((flag) => [flag, true])));
    expect(get(index, 'A-7').has('isAccessible')).toBe(true);
    expect(get(index, 'A-7').has('isCompanionSeat')).toBe(false);
    expect(get(index, 'B-8').has('hasRestrictedView')).toBe(true);
  });

  it('links each seat to the seats beside it in its row, and not across rows', () => {
    expect(describe_(index, 'A-4')).toMatchObject({ leftNeighbour: 'A-3', rightNeighbour: 'A-5' });
    const rowEnd = describe_(index, 'A-8');
    expect(rowEnd.leftNeighbour).toBe('A-7');
    expect(rowEnd).not.toHaveProperty('rightNeighbour');
    const rowStart = describe_(index, 'B-1');
    expect(rowStart).not.toHaveProperty('leftNeighbour');
    expect(rowStart.rightNeighbour).toBe('B-2');
    expect(get(index, 'A-8').right).toBe(-1);
    expect(get(index, 'A-1').left).toBe(-1);
  });

  it('takes a seat\'s own entrance, in labels too', () => {
    expect(describe_(index, 'D-8').entrance).toBe('Gate D');
    expect(describe_(index, 'D-8').labels).toEqual({ own: { label: '8', type: 'seat' }, parent: { label: 'D', type: 'row' }, entrance: { label: 'Gate D' } });
    expect(describe_(index, 'D-7')).not.toHaveProperty('entrance');
    expect(describe_(index, 'D-7').labels).not.toHaveProperty('entrance');
  });

  it('leaves ids.section out for objects in no section, keeping ids.parent null where there is no parent', () => {
    for (const object of index.objects) {
      const { ids } = describe_(index, object.label) as { ids: Record<string, unknown> };
      expect(ids, object.label).not.toHaveProperty('section');
      expect(Object.keys(ids), object.label).toEqual(['own', 'parent']);
    }
  });

  it('describes GA areas with capacity, occupancy and bookAsAWhole, without seat fields', () => {
    const ga1 = describe_(index, 'GA1');
    expect(ga1).toEqual({
      label: 'GA1',
      labels: { own: { label: 'GA1', type: 'generalAdmission' } },
      ids: { own: 'GA1', parent: null },
      categoryLabel: 'Cat1',
      categoryKey: '9',
      objectType: 'generalAdmission',
      capacity: 100,
      bookAsAWhole: false,
      variableOccupancy: true,
      minOccupancy: 10,
      maxOccupancy: 100,
      distanceToFocalPoint: expect.any(Number),
    });
    for (const flag of SEAT_FLAGS) expect(ga1).not.toHaveProperty(flag);
    expect(ga1).not.toHaveProperty('leftNeighbour');
    expect(describe_(index, 'GA2')).toMatchObject({
      categoryKey: '10',
      categoryLabel: 'Cat2',
      capacity: 100,
      bookAsAWhole: false,
      variableOccupancy: false,
      minOccupancy: 1,
    });
  });

  it('places a GA area at its center, or at the mean of its outline points', () => {
    expect(get(index, 'GA1')).toMatchObject({ x: 400, y: 120, capacity: 100 });
    expect(get(index, 'GA2')).toMatchObject({ x: 550, y: 150 });
  });

  it('reports no findings', () => {
    expect(index.findings).toMatchObject({ unlabeledObjects: 0, duplicateLabels: [], objectsWithoutCategory: 0, emptyFloors: [] });
  });
});

describe('buildObjectIndex: sections', () => {
  const index = buildObjectIndex(withSections);

  it('prefixes labels with the section label', () => {
    expect(index.objects.map((o) => o.label)).toEqual([
      ...seatLabels(['A', 'B'], 3, 'Section A-'),
      ...seatLabels(['A'], 4, 'Section B-'),
      'Section B-Standing',
    ]);
    expect(index.venueType).toBe('WITH_SECTIONS_AND_FLOORS');
  });

  it('describes a seat in a section with section labels, ids and entrance', () => {
    const details = describe_(index, 'Section A-A-1');
    expect(details).toEqual({
      label: 'Section A-A-1',
      labels: { own: { label: '1', type: 'seat' }, parent: { label: 'A', type: 'row' }, section: 'Section A', entrance: { label: 'Entrance 1' } },
      ids: { own: '1', parent: 'A', section: 'Section A' },
      categoryLabel: 'Stalls',
      categoryKey: '1',
      objectType: 'seat',
      section: 'Section A',
      entrance: 'Entrance 1',
      ...noFlags,
      rightNeighbour: 'Section A-A-2',
      distanceToFocalPoint: expect.any(Number),
    });
    expect(details).not.toHaveProperty('zone');
  });

  it('applies the section offset to coordinates', () => {
    expect(get(index, 'Section A-A-1')).toMatchObject({ x: 110, y: 210 });
    expect(get(index, 'Section A-B-3')).toMatchObject({ x: 150, y: 230 });
    expect(get(index, 'Section B-A-4')).toMatchObject({ x: 470, y: 210 });
    expect(get(index, 'Section B-Standing')).toMatchObject({ x: 450, y: 280 });
    expect(describe_(index, 'Section A-A-1').distanceToFocalPoint).toBeCloseTo(Math.hypot(110 - 300, 210 - 0), 10);
  });

  it('lets seats with a null category inherit the section category, and keeps an explicit one', () => {
    expect(describe_(index, 'Section A-B-2')).toMatchObject({ categoryKey: '1', categoryLabel: 'Stalls' });
    expect(describe_(index, 'Section A-B-3')).toMatchObject({ categoryKey: '2', categoryLabel: 'Balcony' });
    expect(describe_(index, 'Section B-A-1')).toMatchObject({ categoryKey: '2', categoryLabel: 'Balcony' });
    expect(describe_(index, 'Section B-Standing')).toMatchObject({ categoryKey: '2', categoryLabel: 'Balcony' });
    expect(index.findings.objectsWithoutCategory).toBe(0);
  });

  it('takes the entrance from the section unless the seat has its own', () => {
    expect(describe_(index, 'Section A-B-1').entrance).toBe('Door 3');
    expect(describe_(index, 'Section A-B-2').entrance).toBe('Entrance 1');
    expect(describe_(index, 'Section B-A-1').entrance).toBe('Entrance 2');
    expect(describe_(index, 'Section B-Standing').entrance).toBe('Entrance 2');
    expect((describe_(index, 'Section A-B-1').labels as { entrance: unknown }).entrance).toEqual({ label: 'Door 3' });
    expect((describe_(index, 'Section B-Standing').labels as { entrance: unknown }).entrance).toEqual({ label: 'Entrance 2' });
  });

  it('takes the zone from the section', () => {
    expect(describe_(index, 'Section B-A-2').zone).toBe('upper');
    expect(describe_(index, 'Section B-Standing').zone).toBe('upper');
    expect(get(index, 'Section B-A-2').section).toEqual({ label: 'Section B', entrance: 'Entrance 2', zone: 'upper' });
  });

  it('keeps neighbours within a row of a section', () => {
    expect(describe_(index, 'Section A-A-3')).toMatchObject({ leftNeighbour: 'Section A-A-2' });
    expect(describe_(index, 'Section A-A-3')).not.toHaveProperty('rightNeighbour');
    expect(describe_(index, 'Section A-B-1')).not.toHaveProperty('leftNeighbour');
  });

  it('describes a GA area inside a section', () => {
    expect(describe_(index, 'Section B-Standing')).toMatchObject({
      labels: { own: { label: 'Standing', type: 'generalAdmission' }, section: 'Section B' },
      ids: { own: 'Standing', parent: null, section: 'Section B' },
      section: 'Section B',
      capacity: 50,
      objectType: 'generalAdmission',
    });
  });
});

describe('buildObjectIndex: tables', () => {
  const index = buildObjectIndex(withTables);

  it('indexes each table and then its seats', () => {
    expect(index.objects).toHaveLength(14);
    expect(index.objects.map((o) => o.label)).toEqual(['T1', ...seatLabels(['T1'], 6), 'T2', ...seatLabels(['T2'], 6)]);
    expect(index.venueType).toBe('SIMPLE');
  });

  it('describes a table with numSeats and bookAsAWhole', () => {
    const t1 = describe_(index, 'T1');
    expect(t1).toEqual({
      label: 'T1',
      labels: { own: { label: 'T1', type: 'table' } },
      ids: { own: 'T1', parent: null },
      categoryLabel: 'Tables',
      categoryKey: '1',
      objectType: 'table',
      numSeats: 6,
      bookAsAWhole: false,
      distanceToFocalPoint: expect.any(Number),
    });
    expect(t1).not.toHaveProperty('isAccessible');
    expect(t1.distanceToFocalPoint).toBeCloseTo(Math.hypot(100 - 200, 100 - 0), 10);
    expect(describe_(index, 'T2')).toMatchObject({ numSeats: 6, bookAsAWhole: true });
    expect(get(index, 'T1')).toMatchObject({ x: 100, y: 100, capacity: 6 });
  });

  it('describes a table seat with the table as its parent', () => {
    const seat = describe_(index, 'T1-1');
    expect(seat).toMatchObject({
      label: 'T1-1',
      labels: { own: { label: '1', type: 'seat' }, parent: { label: 'T1', type: 'table' } },
      ids: { own: '1', parent: 'T1' },
      objectType: 'seat',
      ...noFlags,
    });
    expect(seat).not.toHaveProperty('numSeats');
    expect(get(index, 'T1-1').table).toBe(get(index, 'T1').position);
    expect(get(index, 'T2-6').table).toBe(get(index, 'T2').position);
    expect(get(index, 'T1').table).toBe(-1);
  });

  it('lets table seats inherit the table category, and a table without one take its seats\'', () => {
    expect(describe_(index, 'T1-4')).toMatchObject({ categoryKey: '1', categoryLabel: 'Tables' });
    expect(describe_(index, 'T2-1')).toMatchObject({ categoryKey: '2', categoryLabel: 'VIP tables' });
    expect(describe_(index, 'T2')).toMatchObject({ categoryKey: '2', categoryLabel: 'VIP tables' });
  });

  it('keeps table seats at their own coordinates', () => {
    expect(get(index, 'T1-1')).toMatchObject({ x: 130, y: 100 });
    expect(get(index, 'T2-4')).toMatchObject({ x: 270, y: 100 });
  });
});

describe('buildObjectIndex: booths', () => {
  const index = buildObjectIndex(withBooths);

  it('indexes booths under their own label, placed by center, x/y or points', () => {
    expect(index.objects.map((o) => [o.label, o.objectType, o.x, o.y])).toEqual([
      ['B1', 'booth', 50, 50],
      ['B2', 'booth', 150, 50],
      ['B3', 'booth', 250, 50],
    ]);
    expect(index.venueType).toBe('SIMPLE');
  });

  it('describes a booth with string category keys and no seat or GA fields', () => {
    const b1 = describe_(index, 'B1');
    expect(b1).toEqual({
      label: 'B1',
      labels: { own: { label: 'B1', type: 'booth' } },
      ids: { own: 'B1', parent: null },
      categoryLabel: 'Small booth',
      categoryKey: 'small',
      objectType: 'booth',
      distanceToFocalPoint: Math.hypot(100, 100),
    });
    expect(describe_(index, 'B2').distanceToFocalPoint).toBe(100);
    expect(describe_(index, 'B3')).toMatchObject({ categoryKey: 'large', categoryLabel: 'Large booth' });
  });
});

describe('buildObjectIndex: floors', () => {
  const index = buildObjectIndex(withFloors);

  it('leaves floors out of labels', () => {
    expect(index.objects.map((o) => o.label)).toEqual([...seatLabels(['A'], 3, 'Stalls-'), ...seatLabels(['A'], 3, 'Balcony-')]);
    expect(index.venueType).toBe('WITH_SECTIONS_AND_FLOORS');
  });

  it('lists the floors and gives each object its floor', () => {
    expect(index.floors).toEqual([
      { name: '1', displayName: 'Floor 1' },
      { name: '2', displayName: 'Floor 2' },
    ]);
    expect(describe_(index, 'Stalls-A-1').floor).toEqual({ name: '1', displayName: 'Floor 1' });
    expect(describe_(index, 'Balcony-A-3').floor).toEqual({ name: '2', displayName: 'Floor 2' });
  });

  it('describes a seat on a floor inside a section', () => {
    expect(describe_(index, 'Balcony-A-2')).toMatchObject({
      labels: { own: { label: '2', type: 'seat' }, parent: { label: 'A', type: 'row' }, section: 'Balcony', entrance: { label: 'Stairs' } },
      ids: { own: '2', parent: 'A', section: 'Balcony' },
      categoryKey: '2',
      categoryLabel: 'Upstairs',
      entrance: 'Stairs',
      leftNeighbour: 'Balcony-A-1',
      rightNeighbour: 'Balcony-A-3',
    });
    expect(describe_(index, 'Stalls-A-1')).not.toHaveProperty('entrance');
    expect(get(index, 'Balcony-A-2')).toMatchObject({ x: 20, y: 50 });
  });

  it('takes the focal point of a floor', () => {
    expect(index.focalPoint).toEqual({ x: 20, y: 0 });
    expect(describe_(index, 'Stalls-A-1').distanceToFocalPoint).toBeCloseTo(Math.hypot(0 - 20, 100 - 0), 10);
  });

  it('names floors by position and display name by name when the drawing does not', () => {
    const drawing = structuredClone(withFloors);
    for (const floor of drawing.subChartFloors!) {
      delete floor.floorName;
      delete floor.floorDisplayName;
    }
    expect(buildObjectIndex(drawing).floors).toEqual([
      { name: '1', displayName: '1' },
      { name: '2', displayName: '2' },
    ]);
  });
});

describe('buildObjectIndex: zones', () => {
  const index = buildObjectIndex(withZones);

  it('is a WITH_ZONES chart listing its zones', () => {
    expect(index.venueType).toBe('WITH_ZONES');
    expect(index.zones).toEqual([
      { key: 'north', label: 'North Stand' },
      { key: 'south', label: 'South Stand' },
    ]);
    expect(index.zoneFocalPoints).toBe(true);
    expect(index.focalPoint).toBeNull();
  });

  it('gives each object the zone of its section', () => {
    expect(index.objects.map((o) => o.label)).toEqual(['N1-A-1', 'N1-A-2', 'S1-A-1', 'S1-A-2']);
    expect(describe_(index, 'N1-A-1')).toMatchObject({ zone: 'north', section: 'N1', categoryKey: '1', categoryLabel: 'North' });
    expect(describe_(index, 'S1-A-2')).toMatchObject({ zone: 'south', section: 'S1', categoryKey: '2', categoryLabel: 'South' });
    expect(get(index, 'S1-A-2')).toMatchObject({ x: 420, y: 900 });
  });

  it('gives no distance to a focal point when the chart has none', () => {
    expect(describe_(index, 'N1-A-1')).not.toHaveProperty('distanceToFocalPoint');
  });
});

describe('buildObjectIndex: duplicate, unlabeled and uncategorised objects', () => {
  const index = buildObjectIndex(withErrors);

  it('keeps the first object of a duplicate label and skips unlabeled ones', () => {
    expect(index.objects.map((o) => o.label)).toEqual(['A-1', 'A-4', 'B-1', 'B-2', 'GA']);
    expect(get(index, 'A-1')).toMatchObject({ x: 0, y: 0 });
    expect(describe_(index, 'A-1')).toMatchObject({ categoryKey: '1', categoryLabel: 'One' });
  });

  it('records what the validators need', () => {
    expect(index.findings).toEqual({
      unlabeledObjects: 1,
      duplicateLabels: ['A-1'],
      objectsWithoutCategory: 1,
      categoriesWithMixedObjectTypes: ['1'],
      emptyFloors: [],
    });
    expect(index.focalPoint).toBeNull();
    expect(index.zoneFocalPoints).toBe(false);
  });

  it('leaves the category of an uncategorised seat out of its details', () => {
    const details = describe_(index, 'B-2');
    expect(details.categoryKey).toBeUndefined();
    expect(details.categoryLabel).toBeUndefined();
    expect(details).not.toHaveProperty('distanceToFocalPoint');
    expect(get(index, 'B-2').category).toBeNull();
  });

  it('breaks a row at an unlabeled seat', () => {
    const drawing: Drawing = {
      categories: { list: [{ key: 1, label: 'c', color: '#000' }] },
      subChart: {
        rows: [
          {
            label: 'R',
            seats: [
              { label: '1', x: 0, y: 0, categoryKey: 1 },
              { label: '', x: 10, y: 0, categoryKey: 1 },
              { label: '3', x: 20, y: 0, categoryKey: 1 },
              { label: '4', x: 30, y: 0, categoryKey: 1 },
            ],
          },
        ],
      },
    };
    const small = buildObjectIndex(drawing);
    expect(small.objects.map((o) => o.label)).toEqual(['R-1', 'R-3', 'R-4']);
    expect(describe_(small, 'R-1')).not.toHaveProperty('rightNeighbour');
    expect(describe_(small, 'R-3')).not.toHaveProperty('leftNeighbour');
    expect(describe_(small, 'R-3').rightNeighbour).toBe('R-4');
    expect(small.findings.unlabeledObjects).toBe(1);
  });

  it('counts every object of an unlabeled section as unlabeled', () => {
    const drawing = structuredClone(withSections);
    drawing.subChart!.sections![0]!.label = null;
    const small = buildObjectIndex(drawing);
    expect(small.objects.map((o) => o.label)).toEqual([...seatLabels(['A'], 4, 'Section B-'), 'Section B-Standing']);
    expect(small.findings.unlabeledObjects).toBe(6);
  });

  it('finds categories by 1 and "1" alike', () => {
    const drawing: Drawing = {
      categories: { list: [{ key: 1, label: 'numeric', color: '#000' }] },
      subChart: { rows: [{ label: 'A', seats: [{ label: '1', x: 0, y: 0, categoryKey: '1' }] }] },
    };
    expect(describe_(buildObjectIndex(drawing), 'A-1')).toMatchObject({ categoryKey: '1', categoryLabel: 'numeric' });
  });

  it('gives indexed categories a default colour and accessible false', () => {
    const drawing = { categories: { list: [{ key: 1, label: 'bare' }] }, subChart: {} } as unknown as Drawing;
    const [category] = buildObjectIndex(drawing).categories;
    expect(category).toMatchObject({ key: 1, label: 'bare', accessible: false });
    expect(category!.color).toMatch(/^#[0-9a-f]{6}$/i);
  });
});

describe('chartVenueType', () => {
  const base = { categories: { list: [] }, subChart: {} };
  it.each([
    [{ ...base }, 'SIMPLE'],
    [{ ...base, venueType: 'ROWS_WITHOUT_SECTIONS' }, 'SIMPLE'],
    [{ ...base, venueType: 'TABLES' }, 'SIMPLE'],
    [{ ...base, venueType: 'ROWS_WITH_SECTIONS' }, 'WITH_SECTIONS_AND_FLOORS'],
    [{ ...base, venueType: 'WITH_SECTIONS_AND_FLOORS' }, 'WITH_SECTIONS_AND_FLOORS'],
    [{ ...base, venueType: 'ZONES' }, 'WITH_ZONES'],
    [{ ...base, venueType: 'MIXED', subChart: { sections: [{ label: 'S', subChart: {} }] } }, 'WITH_SECTIONS_AND_FLOORS'],
    [{ categories: { list: [] }, subChartFloors: [{ floorName: '1' }] }, 'WITH_SECTIONS_AND_FLOORS'],
    [{ ...base, zones: { list: [{ key: 'z', label: 'Z' }] } }, 'WITH_ZONES'],
  ])('maps %o to %s', (drawing, expected) => {
    expect(chartVenueType(drawing as Drawing)).toBe(expected);
  });

  it('maps the fixtures', () => {
    expect(
      [rowsWithoutSections, withSections, withTables, withBooths, withFloors, withZones, withErrors].map((d) => buildObjectIndex(d).venueType),
    ).toEqual(['SIMPLE', 'WITH_SECTIONS_AND_FLOORS', 'SIMPLE', 'SIMPLE', 'WITH_SECTIONS_AND_FLOORS', 'WITH_ZONES', 'SIMPLE']);
  });
});

describe('generatedDrawing', () => {
  it('produces the requested number of uniquely labelled, categorised seats', () => {
    const index = buildObjectIndex(generatedDrawing({ sections: 5, rowsPerSection: 30, seatsPerRow: 40 }));
    expect(index.objects).toHaveLength(5 * 30 * 40);
    expect(index.findings).toMatchObject({ unlabeledObjects: 0, duplicateLabels: [], objectsWithoutCategory: 0 });
    expect(index.byLabel.has('S1-A-1')).toBe(true);
    expect(index.byLabel.has('S5-AD-40')).toBe(true);
    expect(index.venueType).toBe('WITH_SECTIONS_AND_FLOORS');
  });

  it('is deterministic', () => {
    const options = { sections: 3, rowsPerSection: 4, seatsPerRow: 5 };
    expect(generatedDrawing(options)).toEqual(generatedDrawing(options));
  });

  it('puts rows at the top level when asked for no sections', () => {
    const index = buildObjectIndex(generatedDrawing({ sections: 0, rowsPerSection: 2, seatsPerRow: 3 }));
    expect(index.objects.map((o) => o.label)).toEqual(['A-1', 'A-2', 'A-3', 'B-1', 'B-2', 'B-3']);
    expect(index.venueType).toBe('SIMPLE');
  });

  it('labels rows like seats.io: A..Z, AA, AB, ...', () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(rowLabel)).toEqual(['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
  });
});
