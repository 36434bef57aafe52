import type {
  CategoryKey,
  Drawing,
  DrawingCategory,
  DrawingSeat,
  DrawingSection,
  PlacedShape,
  Point,
  SubChart,
} from './drawing.js';

// The object index: every bookable object of a drawing (seats, tables, booths, GA areas)
// under the label clients address it by, composed the way seats.io composes it:
//   row seat "A-1", seat in a section "Section A-A-1", table seat "T1-1", table "T1",
//   booth and GA area their own label ("GA1"), prefixed by their section inside one.
// Floors are not part of labels. Pure: built from a parsed drawing, no I/O.
//
// Sized for 100,000-seat venues (bench/objectIndex.ts: under 20 MB of heap per 100,000
// seats): an object is a record of four fields. What the objects of a row (or table, booth,
// GA area) have in common is one shared `ObjectTraits` record; what differs seat by seat
// lives in typed arrays owned by the index (`ObjectColumns`), where coordinates are plain
// doubles (a double field of an object would be a boxed number of its own). Rows, sections,
// floors and categories are shared by reference, neighbours are array positions, seat
// properties bit flags. The full per-object JSON is only built when asked for.

export type ObjectType = 'seat' | 'table' | 'booth' | 'generalAdmission';
export type ChartVenueType = 'SIMPLE' | 'WITH_SECTIONS_AND_FLOORS' | 'WITH_ZONES';

export interface IndexedCategory {
  key: CategoryKey;
  label: string;
  color: string;
  accessible: boolean;
}

export interface Floor {
  name: string;
  displayName: string;
}

export interface Section {
  label: string;
  entrance: string | null;
  zone: string | null;
}

export interface Parent {
  label: string;
  type: 'row' | 'table';
}

export interface Zone {
  key: string;
  label: string;
}

/** The seat properties object info shows, by the drawing field that sets them. */
export const SEAT_PROPERTIES = [
  ['accessible', 'isAccessible'],
  ['companionSeat', 'isCompanionSeat'],
  ['liftUpArmrests', 'hasLiftUpArmrests'],
  ['hearingImpaired', 'isHearingImpaired'],
  ['semiAmbulatorySeat', 'isSemiAmbulatorySeat'],
  ['signLanguageInterpretation', 'hasSignLanguageInterpretation'],
  ['plusSize', 'isPlusSize'],
  ['restrictedView', 'hasRestrictedView'],
] as const;
export type SeatProperty = (typeof SEAT_PROPERTIES)[number][1];

export interface GeneralAdmissionSettings {
  variableOccupancy: boolean;
  minOccupancy: number;
}

/** What describes one object, given once when it is indexed. */
export interface ObjectFields {
  objectType: ObjectType;
  ownLabel: string;
  parent: Parent | null;
  section: Section | null;
  category: IndexedCategory | null;
  x: number;
  y: number;
  floor: Floor | null;
  entrance: string | null;
  /** Bit i set = SEAT_PROPERTIES[i] is true. */
  seatFlags: number;
  /** GA: places in the area. Table: seats at the table. Otherwise 1. */
  capacity: number;
  /** GA areas and tables: booked only as a whole. */
  bookAsAWhole: boolean;
  /** Seats at a table: the table's position in `ObjectIndex.objects`; -1 otherwise. */
  table: number;
  generalAdmission: GeneralAdmissionSettings | null;
}

/**
 * What the objects of one row, table, booth or GA area share (all but coordinates, seat
 * properties and neighbours): one record per run of objects alike, instead of these fields
 * on every object.
 */
export class ObjectTraits {
  constructor(
    readonly columns: ObjectColumns,
    readonly objectType: ObjectType,
    readonly parent: Parent | null,
    readonly section: Section | null,
    readonly category: IndexedCategory | null,
    readonly floor: Floor | null,
    readonly entrance: string | null,
    readonly capacity: number,
    readonly bookAsAWhole: boolean,
    readonly table: number,
    readonly generalAdmission: GeneralAdmissionSettings | null,
  ) {}

  /** True when an object of `fields` has these traits (so it can share this record). */
  fits(fields: ObjectFields): boolean {
    return (
      this.objectType === fields.objectType &&
      this.parent === fields.parent &&
      this.section === fields.section &&
      this.category === fields.category &&
      this.floor === fields.floor &&
      this.entrance === fields.entrance &&
      this.capacity === fields.capacity &&
      this.bookAsAWhole === fields.bookAsAWhole &&
      this.table === fields.table &&
      this.generalAdmission === fields.generalAdmission
    );
  }
}

/** Per object position, what differs from object to object: grown while indexing, trimmed at the end. */
class ObjectColumns {
  x = new Float64Array(16);
  y = new Float64Array(16);
  /** Positions of the seats beside one in its row; -1 at a row end. */
  left = new Int32Array(16);
  right = new Int32Array(16);
  seatFlags = new Uint8Array(16);

  /** Makes room for position `at` (doubling, as an array would). */
  reserve(at: number): void {
    if (at < this.x.length) return;
    const size = Math.max(at + 1, this.x.length * 2);
    this.x = grown(this.x, new Float64Array(size));
    this.y = grown(this.y, new Float64Array(size));
    this.left = grown(this.left, new Int32Array(size));
    this.right = grown(this.right, new Int32Array(size));
    this.seatFlags = grown(this.seatFlags, new Uint8Array(size));
  }

  /** Drops the room left over once every object is in. */
  trim(count: number): void {
    this.x = this.x.slice(0, count);
    this.y = this.y.slice(0, count);
    this.left = this.left.slice(0, count);
    this.right = this.right.slice(0, count);
    this.seatFlags = this.seatFlags.slice(0, count);
  }
}

function grown<T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T {
  (to as Float64Array).set(from);
  return to;
}

export class ChartObject implements ObjectFields {
  constructor(
    /** Position in `ObjectIndex.objects`. */
    readonly position: number,
    /** The label clients book by (the object's id in seats.io terms). */
    readonly label: string,
    readonly ownLabel: string,
    /** What it shares with the objects around it (one record per row, table, ...). */
    readonly traits: ObjectTraits,
  ) {}

  get objectType(): ObjectType {
    return this.traits.objectType;
  }
  get parent(): Parent | null {
    return this.traits.parent;
  }
  get section(): Section | null {
    return this.traits.section;
  }
  get category(): IndexedCategory | null {
    return this.traits.category;
  }
  get floor(): Floor | null {
    return this.traits.floor;
  }
  get entrance(): string | null {
    return this.traits.entrance;
  }
  get capacity(): number {
    return this.traits.capacity;
  }
  get bookAsAWhole(): boolean {
    return this.traits.bookAsAWhole;
  }
  get table(): number {
    return this.traits.table;
  }
  get generalAdmission(): GeneralAdmissionSettings | null {
    return this.traits.generalAdmission;
  }
  get x(): number {
    return this.traits.columns.x[this.position]!;
  }
  get y(): number {
    return this.traits.columns.y[this.position]!;
  }
  get seatFlags(): number {
    return this.traits.columns.seatFlags[this.position]!;
  }
  /** Positions in `ObjectIndex.objects` of the seats beside this one in its row; -1 at a row end. */
  get left(): number {
    return this.traits.columns.left[this.position]!;
  }
  get right(): number {
    return this.traits.columns.right[this.position]!;
  }

  has(property: SeatProperty): boolean {
    const bit = SEAT_PROPERTIES.findIndex(([, name]) => name === property);
    return (this.seatFlags & (1 << bit)) !== 0;
  }
}

/** What the validators need to know that the index itself does not keep. */
export interface IndexFindings {
  unlabeledObjects: number;
  /** Labels given to more than one object (the first keeps the label in `byLabel`). */
  duplicateLabels: string[];
  objectsWithoutCategory: number;
  /** Category ids used by more than one kind of object (seats, booths, GA areas). */
  categoriesWithMixedObjectTypes: string[];
  emptyFloors: string[];
}

export interface ObjectIndex {
  objects: ChartObject[];
  byLabel: Map<string, ChartObject>;
  categories: IndexedCategory[];
  zones: Zone[];
  floors: Floor[];
  focalPoint: Point | null;
  /** True when any zone has its own focal point (best available per zone). */
  zoneFocalPoints: boolean;
  /** Zone key -> its own focal point, for zones that have one. */
  zoneFocal: Map<string, Point>;
  venueType: ChartVenueType;
  findings: IndexFindings;
}

/** Category keys 1 and '1' are the same key (docs/seatsio-behaviour.md, "Chart categories"). */
export const categoryId = (key: CategoryKey): string => String(key);

const DEFAULT_CATEGORY_COLOR = '#888888';
const MAX_REPORTED_DUPLICATES = 20;

export function indexCategory(category: DrawingCategory): IndexedCategory {
  return {
    key: category.key,
    label: category.label,
    color: category.color ?? DEFAULT_CATEGORY_COLOR,
    accessible: category.accessible ?? false,
  };
}

const present = (label: string | null | undefined): label is string => typeof label === 'string' && label !== '' && label !== '?';
const categoryKeyOf = (key: CategoryKey | null | undefined): CategoryKey | null => (key === undefined || key === null || key === '' ? null : key);

function seatFlags(seat: DrawingSeat): number {
  let flags = 0;
  SEAT_PROPERTIES.forEach(([field], bit) => {
    if (seat[field] === true) flags |= 1 << bit;
  });
  return flags;
}

/** Mirrors checkPlaced in drawing.ts: center, else x/y, else the outline's average point. */
function shapeCenter(shape: PlacedShape): Point {
  if (shape.center) return shape.center;
  if (shape.x !== undefined || shape.y !== undefined) return { x: shape.x!, y: shape.y! };
  const points = shape.points ?? [];
  if (points.length === 0) return { x: 0, y: 0 };
  let x = 0;
  let y = 0;
  for (const p of points) {
    x += p.x;
    y += p.y;
  }
  return { x: x / points.length, y: y / points.length };
}

export function chartVenueType(drawing: Drawing): ChartVenueType {
  if (drawing.venueType === 'ZONES' || (drawing.zones?.list.length ?? 0) > 0) return 'WITH_ZONES';
  const sectioned =
    drawing.venueType === 'ROWS_WITH_SECTIONS' ||
    drawing.venueType === 'WITH_SECTIONS_AND_FLOORS' ||
    drawing.subChartFloors !== undefined ||
    (drawing.subChart?.sections?.length ?? 0) > 0;
  return sectioned ? 'WITH_SECTIONS_AND_FLOORS' : 'SIMPLE';
}

/** Where a subchart sits: its section (if any), floor, offset and inherited category. */
interface Placement {
  section: Section | null;
  /** Label parts before the object's own: [] at top level, [section label] in a section. */
  prefix: (string | null | undefined)[];
  sectionCategory: CategoryKey | null;
  floor: Floor | null;
  dx: number;
  dy: number;
}

export function buildObjectIndex(drawing: Drawing): ObjectIndex {
  const categories = drawing.categories.list.map(indexCategory);
  const categoriesById = new Map(categories.map((c) => [categoryId(c.key), c]));
  const objects: ChartObject[] = [];
  const byLabel = new Map<string, ChartObject>();
  const columns = new ObjectColumns();
  /** Own labels ("1", "2", ...) repeat row after row: each text is kept once. */
  const ownLabels = new Map<string, string>();
  /** The traits of the object indexed last: the next one usually shares them. */
  let traits: ObjectTraits | null = null;
  const duplicateLabels: string[] = [];
  const typesByCategory = new Map<string, Set<string>>();
  let unlabeledObjects = 0;
  let objectsWithoutCategory = 0;

  function category(...keys: (CategoryKey | null | undefined)[]): IndexedCategory | null {
    for (const key of keys) {
      const found = categoryKeyOf(key);
      if (found !== null) return categoriesById.get(categoryId(found)) ?? null;
    }
    return null;
  }

  /** Indexes one object unless it cannot be addressed (a label part missing) or its label is taken. */
  function add(labelParts: (string | null | undefined)[], fields: ObjectFields): ChartObject | null {
    if (!labelParts.every(present)) {
      unlabeledObjects++;
      return null;
    }
    const label = (labelParts as string[]).join('-');
    // A table is made of its seats: its category and kind are theirs, not checked twice.
    if (fields.objectType !== 'table') {
      if (fields.category === null) objectsWithoutCategory++;
      else {
        const id = categoryId(fields.category.key);
        let kinds = typesByCategory.get(id);
        if (!kinds) typesByCategory.set(id, (kinds = new Set()));
        kinds.add(fields.objectType);
      }
    }
    if (byLabel.has(label)) {
      if (duplicateLabels.length < MAX_REPORTED_DUPLICATES && !duplicateLabels.includes(label)) duplicateLabels.push(label);
      return null;
    }
    if (!traits?.fits(fields)) {
      const f = fields;
      traits = new ObjectTraits(columns, f.objectType, f.parent, f.section, f.category, f.floor, f.entrance, f.capacity, f.bookAsAWhole, f.table, f.generalAdmission);
    }
    let ownLabel = ownLabels.get(fields.ownLabel);
    if (ownLabel === undefined) ownLabels.set(fields.ownLabel, (ownLabel = fields.ownLabel));
    const position = objects.length;
    columns.reserve(position);
    columns.x[position] = fields.x;
    columns.y[position] = fields.y;
    columns.left[position] = -1;
    columns.right[position] = -1;
    columns.seatFlags[position] = fields.seatFlags;
    const object = new ChartObject(position, label, ownLabel, traits);
    byLabel.set(label, object);
    objects.push(object);
    return object;
  }

  /**
   * One object's fields as a single literal of fixed shape: spreading partial objects
   * together instead made indexing 100,000 seats ten times slower.
   */
  function fields(
    at: Placement,
    objectType: ObjectType,
    ownLabel: string | null | undefined,
    parent: Parent | null,
    objectCategory: IndexedCategory | null,
    point: Point,
    entrance: string | null | undefined,
    extra: Partial<Pick<ObjectFields, 'seatFlags' | 'capacity' | 'bookAsAWhole' | 'table' | 'generalAdmission'>> = {},
  ): ObjectFields {
    return {
      objectType,
      ownLabel: ownLabel!,
      parent,
      section: at.section,
      category: objectCategory,
      x: point.x + at.dx,
      y: point.y + at.dy,
      floor: at.floor,
      entrance: entrance ?? at.section?.entrance ?? null,
      seatFlags: extra.seatFlags ?? 0,
      capacity: extra.capacity ?? 1,
      bookAsAWhole: extra.bookAsAWhole ?? false,
      table: extra.table ?? -1,
      generalAdmission: extra.generalAdmission ?? null,
    };
  }

  function seatFields(seat: DrawingSeat, at: Placement, parent: Parent | null, categories: (CategoryKey | null | undefined)[], entrance: string | null | undefined, table: number): ObjectFields {
    const seatCategory = category(seat.categoryKey, ...categories);
    return fields(at, 'seat', seat.label, parent, seatCategory, seat, seat.entrance ?? entrance, { seatFlags: seatFlags(seat), table });
  }

  function indexSubChart(subChart: SubChart, at: Placement): void {
    const prefix = at.prefix;
    for (const row of subChart.rows ?? []) {
      const parent: Parent | null = present(row.label) ? { label: row.label, type: 'row' } : null;
      let previous: ChartObject | null = null;
      for (const seat of row.seats ?? []) {
        const object = add([...prefix, row.label, seat.label], seatFields(seat, at, parent, [row.categoryKey, at.sectionCategory], null, -1));
        // An unaddressable seat breaks the row: neighbours are the seats actually beside it.
        if (object && previous) {
          columns.left[object.position] = previous.position;
          columns.right[previous.position] = object.position;
        }
        previous = object;
      }
    }
    for (const table of subChart.tables ?? []) {
      const seats = table.seats ?? [];
      const tableCategory = category(table.categoryKey, seats[0]?.categoryKey, at.sectionCategory);
      const tableObject = add(
        [...prefix, table.label],
        fields(at, 'table', table.label, null, tableCategory, table.center, table.entrance, {
          capacity: seats.length,
          bookAsAWhole: table.bookAsAWhole === true,
        }),
      );
      const parent: Parent | null = present(table.label) ? { label: table.label, type: 'table' } : null;
      for (const seat of seats) {
        add(
          [...prefix, table.label, seat.label],
          seatFields(seat, at, parent, [table.categoryKey, at.sectionCategory], table.entrance, tableObject ? tableObject.position : -1),
        );
      }
    }
    for (const booth of subChart.booths ?? []) {
      const boothCategory = category(booth.categoryKey, at.sectionCategory);
      add([...prefix, booth.label], fields(at, 'booth', booth.label, null, boothCategory, shapeCenter(booth), booth.entrance));
    }
    for (const area of subChart.generalAdmissionAreas ?? []) {
      const areaCategory = category(area.categoryKey, at.sectionCategory);
      add(
        [...prefix, area.label],
        fields(at, 'generalAdmission', area.label, null, areaCategory, shapeCenter(area), area.entrance, {
          capacity: area.capacity,
          bookAsAWhole: area.bookAsAWhole === true,
          generalAdmission: { variableOccupancy: area.variableOccupancy === true, minOccupancy: area.minOccupancy ?? 1 },
        }),
      );
    }
    for (const section of subChart.sections ?? []) indexSection(section, at.floor);
  }

  function indexSection(section: DrawingSection, floor: Floor | null): void {
    // An unlabeled section keeps its objects unaddressable: the null in `prefix` makes
    // every one of them count as unlabeled.
    const shared: Section | null = present(section.label)
      ? { label: section.label, entrance: section.entrance ?? null, zone: section.zone ?? null }
      : null;
    indexSubChart(section.subChart, {
      section: shared,
      prefix: [section.label],
      sectionCategory: section.categoryKey ?? null,
      floor,
      // Coordinates inside a section are relative to the section's top-left corner.
      dx: section.topLeft?.x ?? 0,
      dy: section.topLeft?.y ?? 0,
    });
  }

  const floors: Floor[] = [];
  const emptyFloors: string[] = [];
  let focalPoint: Point | null = drawing.focalPoint ?? null;
  const topLevel: Placement = { section: null, prefix: [], sectionCategory: null, floor: null, dx: 0, dy: 0 };
  if (drawing.subChart) {
    indexSubChart(drawing.subChart, topLevel);
    focalPoint ??= drawing.subChart.focalPoint ?? null;
  }
  for (const [i, floorChart] of (drawing.subChartFloors ?? []).entries()) {
    const name = floorChart.floorName ?? String(i + 1);
    const floor: Floor = { name, displayName: floorChart.floorDisplayName ?? name };
    floors.push(floor);
    const before = objects.length;
    indexSubChart(floorChart, { ...topLevel, floor });
    if (objects.length === before) emptyFloors.push(floor.name);
    focalPoint ??= floorChart.focalPoint ?? null;
  }

  columns.trim(objects.length);
  const zoneList = drawing.zones?.list ?? [];
  return {
    objects,
    byLabel,
    categories,
    zones: zoneList.map((z) => ({ key: z.key, label: z.label ?? z.key })),
    floors,
    focalPoint,
    zoneFocalPoints: zoneList.some((z) => z.focalPoint),
    zoneFocal: new Map(zoneList.filter((z) => z.focalPoint).map((z) => [z.key, z.focalPoint!])),
    venueType: chartVenueType(drawing),
    findings: {
      unlabeledObjects,
      duplicateLabels,
      objectsWithoutCategory,
      categoriesWithMixedObjectTypes: [...typesByCategory].filter(([, kinds]) => kinds.size > 1).map(([id]) => id),
      emptyFloors,
    },
  };
}

/**
 * Distance from an object's centre to the focal point in single-precision arithmetic:
 * seats.io computes it that way, and clients compare the exact value (98.67842540608864
 * for (151.94, 99.56) against (225, 33.23), not the double-precision 98.678429...).
 */
export function distanceToFocalPoint(object: { x: number; y: number }, focalPoint: Point): number {
  const f = Math.fround;
  const dx = f(f(object.x) - f(focalPoint.x));
  const dy = f(f(object.y) - f(focalPoint.y));
  return Math.sqrt(f(f(dx * dx) + f(dy * dy)));
}

/** The chart-level details of one object, in the field names of object info (docs/seatsio-behaviour.md, "Object info"). */
export function describeObject(index: ObjectIndex, object: ChartObject): Record<string, unknown> {
  const labels: Record<string, unknown> = { own: { label: object.ownLabel, type: object.objectType } };
  if (object.parent) labels.parent = { label: object.parent.label, type: object.parent.type };
  if (object.section) labels.section = object.section.label;
  if (object.entrance !== null) labels.entrance = { label: object.entrance };
  // `ids.parent` is null without a parent, but `ids.section` is left out without a section,
  // as seats.io answers (docs/seatsio-behaviour.md, "Object info").
  const ids: Record<string, unknown> = { own: object.ownLabel, parent: object.parent?.label ?? null };
  if (object.section) ids.section = object.section.label;
  const details: Record<string, unknown> = {
    label: object.label,
    labels,
    ids,
    categoryLabel: object.category?.label,
    categoryKey: object.category ? String(object.category.key) : undefined,
    objectType: object.objectType,
  };
  if (object.section) details.section = object.section.label;
  if (object.entrance !== null) details.entrance = object.entrance;
  if (object.objectType === 'seat') {
    SEAT_PROPERTIES.forEach(([, name], bit) => {
      details[name] = (object.seatFlags & (1 << bit)) !== 0;
    });
    if (object.left >= 0) details.leftNeighbour = index.objects[object.left]!.label;
    if (object.right >= 0) details.rightNeighbour = index.objects[object.right]!.label;
  }
  if (object.objectType === 'generalAdmission') {
    details.capacity = object.capacity;
    details.bookAsAWhole = object.bookAsAWhole;
    details.variableOccupancy = object.generalAdmission!.variableOccupancy;
    details.minOccupancy = object.generalAdmission!.minOccupancy;
    details.maxOccupancy = object.capacity;
  }
  if (object.objectType === 'table') {
    details.numSeats = object.capacity;
    details.bookAsAWhole = object.bookAsAWhole;
  }
  if (object.section?.zone) details.zone = object.section.zone;
  if (object.floor) details.floor = { name: object.floor.name, displayName: object.floor.displayName };
  if (index.focalPoint) details.distanceToFocalPoint = distanceToFocalPoint(object, index.focalPoint);
  return details;
}
