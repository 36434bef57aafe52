import { badRequest } from './errors.js';

// The seats.io chart drawing JSON (docs/seatsio-behaviour.md, "Chart drawings"), as far as this server reads it.
// Everything else in a drawing (shapes, texts, editor settings) is kept as the user sent it
// and never interpreted. Pure: no I/O.

export interface Point {
  x: number;
  y: number;
}

export type CategoryKey = number | string;

export interface DrawingCategory {
  key: CategoryKey;
  label: string;
  color: string;
  accessible?: boolean;
}

export interface DrawingSeat {
  label?: string | null;
  x: number;
  y: number;
  categoryKey?: CategoryKey | null;
  entrance?: string | null;
  accessible?: boolean;
  companionSeat?: boolean;
  liftUpArmrests?: boolean;
  hearingImpaired?: boolean;
  semiAmbulatorySeat?: boolean;
  signLanguageInterpretation?: boolean;
  plusSize?: boolean;
  restrictedView?: boolean;
}

export interface DrawingRow {
  label?: string | null;
  categoryKey?: CategoryKey | null;
  seats?: DrawingSeat[];
}

export interface DrawingTable {
  label?: string | null;
  center: Point;
  categoryKey?: CategoryKey | null;
  bookAsAWhole?: boolean;
  seats?: DrawingSeat[];
  entrance?: string | null;
}

/** Booths and GA areas are placed by `center`, by outline `points`, or by `x`/`y`. */
export interface PlacedShape {
  center?: Point;
  points?: Point[];
  x?: number;
  y?: number;
}

export interface DrawingBooth extends PlacedShape {
  label?: string | null;
  categoryKey?: CategoryKey | null;
  entrance?: string | null;
}

export interface DrawingGeneralAdmissionArea extends PlacedShape {
  label?: string | null;
  capacity: number;
  categoryKey?: CategoryKey | null;
  bookAsAWhole?: boolean;
  variableOccupancy?: boolean;
  minOccupancy?: number;
  entrance?: string | null;
}

export interface DrawingSection {
  label?: string | null;
  categoryKey?: CategoryKey | null;
  entrance?: string | null;
  topLeft?: Point;
  zone?: string | null;
  subChart: SubChart;
}

export interface SubChart {
  rows?: DrawingRow[];
  tables?: DrawingTable[];
  booths?: DrawingBooth[];
  generalAdmissionAreas?: DrawingGeneralAdmissionArea[];
  sections?: DrawingSection[];
  focalPoint?: Point | null;
  [editorField: string]: unknown;
}

export interface FloorSubChart extends SubChart {
  floorName?: string;
  floorDisplayName?: string;
}

export interface DrawingZone {
  key: string;
  label: string;
  focalPoint?: Point | null;
}

export interface Drawing {
  name?: string;
  venueType?: string;
  categories: { list: DrawingCategory[]; maxCategoryKey?: unknown };
  zones?: { list: DrawingZone[] };
  subChart?: SubChart;
  subChartFloors?: FloorSubChart[];
  focalPoint?: Point | null;
  [editorField: string]: unknown;
}

export const DEFAULT_CHART_NAME = 'Untitled chart';
/** What `POST /charts` writes into a new chart's drawing when no venue type is given (docs/seatsio-behaviour.md, "Charts"). */
export const DEFAULT_DRAWING_VENUE_TYPE = 'SIMPLE';
export const MAX_DRAWING_BYTES = 10 * 1024 * 1024;
/** The largest integer category key seats.io allows (2^53 - 1). */
export const MAX_NUMERIC_CATEGORY_KEY = Number.MAX_SAFE_INTEGER;
/** Stop collecting after this many problems: the message must stay readable. */
const MAX_REPORTED_PROBLEMS = 20;

export function emptyDrawing(fields: { name?: string; venueType?: string; categories?: DrawingCategory[] }): Drawing {
  return {
    name: fields.name ?? DEFAULT_CHART_NAME,
    venueType: fields.venueType ?? DEFAULT_DRAWING_VENUE_TYPE,
    categories: { list: fields.categories ?? [], maxCategoryKey: maxNumericKey(fields.categories ?? []) },
    subChart: { rows: [], tables: [], booths: [], generalAdmissionAreas: [], sections: [], shapes: [], texts: [], focalPoint: null },
  };
}

export function maxNumericKey(categories: DrawingCategory[]): number {
  return categories.reduce((max, c) => (typeof c.key === 'number' && c.key > max ? c.key : max), 0);
}

/**
 * Checks that a value is a drawing this server can index and returns it typed. Anything
 * that would make an object unaddressable or meaningless (no coordinates, no capacity,
 * wrong types) is refused with a 400 naming every place that is wrong (up to a limit).
 * Findings that seats.io stores and reports through validation (duplicate or missing
 * labels, missing categories or focal point) are not refused here.
 */
export function checkDrawing(value: unknown): Drawing {
  const problems: string[] = [];
  const problem = (path: string, message: string) => {
    if (problems.length < MAX_REPORTED_PROBLEMS) problems.push(`${path}: ${message}`);
  };

  if (!isObject(value)) {
    throw badRequest('INVALID_DRAWING', 'The drawing must be a JSON object');
  }
  const drawing = value;
  if (drawing.subChart === undefined && drawing.subChartFloors === undefined) {
    throw badRequest('INVALID_DRAWING', 'The drawing has neither subChart nor subChartFloors');
  }
  checkOptionalString(drawing, 'name', '#', problem);
  checkOptionalString(drawing, 'venueType', '#', problem);
  checkCategories(drawing.categories, problem);
  checkFocalPoint(drawing, '#', problem);
  checkZones(drawing.zones, problem);

  if (drawing.subChart !== undefined) checkSubChart(drawing.subChart, '#/subChart', true, problem);
  if (drawing.subChartFloors !== undefined) {
    if (!Array.isArray(drawing.subChartFloors) || drawing.subChartFloors.length === 0) {
      problem('#/subChartFloors', 'must be a non-empty array of floors');
    } else {
      drawing.subChartFloors.forEach((floor, i) => {
        const path = `#/subChartFloors/${i}`;
        checkSubChart(floor, path, true, problem);
        if (isObject(floor)) {
          checkOptionalString(floor, 'floorName', path, problem);
          checkOptionalString(floor, 'floorDisplayName', path, problem);
        }
      });
    }
  }
  if (problems.length > 0) {
    throw badRequest('INVALID_DRAWING', `The drawing is not valid: ${problems.join('; ')}`, { problems });
  }
  if (drawing.categories === undefined) drawing.categories = { list: [] };
  return drawing as unknown as Drawing;
}

type Report = (path: string, message: string) => void;
type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPoint(value: unknown): value is Point {
  return isObject(value) && Number.isFinite(value.x) && Number.isFinite(value.y);
}

function checkOptionalString(obj: Json, field: string, path: string, problem: Report): void {
  const value = obj[field];
  if (value !== undefined && value !== null && typeof value !== 'string') problem(`${path}/${field}`, 'must be a string');
}

function checkLabel(obj: Json, path: string, problem: Report): void {
  const label = obj.label;
  if (label !== undefined && label !== null && typeof label !== 'string') problem(`${path}/label`, 'must be a string');
}

function checkKey(key: unknown, path: string, problem: Report): void {
  if (typeof key === 'string') return;
  if (typeof key !== 'number' || !Number.isInteger(key)) problem(path, 'must be a whole number or a string');
  else if (Math.abs(key) > MAX_NUMERIC_CATEGORY_KEY) problem(path, `must not exceed ${MAX_NUMERIC_CATEGORY_KEY}`);
}

function checkCategoryKey(obj: Json, path: string, problem: Report): void {
  if (obj.categoryKey !== undefined && obj.categoryKey !== null) checkKey(obj.categoryKey, `${path}/categoryKey`, problem);
}

function checkCategories(categories: unknown, problem: Report): void {
  if (categories === undefined) return;
  if (!isObject(categories) || !Array.isArray(categories.list)) {
    problem('#/categories', 'must be an object with a list of categories');
    return;
  }
  const seen = new Set<string>();
  categories.list.forEach((category, i) => {
    const path = `#/categories/list/${i}`;
    if (!isObject(category)) return problem(path, 'must be an object');
    checkKey(category.key, `${path}/key`, problem);
    // Keys 1 and '1' are the same key: objects could not say which category they mean.
    if (seen.has(String(category.key))) problem(`${path}/key`, `duplicate category key ${JSON.stringify(category.key)}`);
    seen.add(String(category.key));
    if (typeof category.label !== 'string') problem(`${path}/label`, 'must be a string');
  });
}

function checkZones(zones: unknown, problem: Report): void {
  if (zones === undefined || zones === null) return;
  if (!isObject(zones) || !Array.isArray(zones.list)) return problem('#/zones', 'must be an object with a list of zones');
  zones.list.forEach((zone, i) => {
    if (!isObject(zone) || typeof zone.key !== 'string') problem(`#/zones/list/${i}`, 'must be an object with a string key');
  });
}

function checkArray(obj: Json, field: string, path: string, problem: Report, each: (item: Json, path: string) => void): void {
  const list = obj[field];
  if (list === undefined || list === null) return;
  if (!Array.isArray(list)) return problem(`${path}/${field}`, 'must be an array');
  list.forEach((item, i) => {
    const itemPath = `${path}/${field}/${i}`;
    if (!isObject(item)) problem(itemPath, 'must be an object');
    else each(item, itemPath);
  });
}

function checkSeat(seat: Json, path: string, problem: Report): void {
  if (!Number.isFinite(seat.x) || !Number.isFinite(seat.y)) problem(path, 'seat needs numeric x and y coordinates');
  checkLabel(seat, path, problem);
  checkCategoryKey(seat, path, problem);
}

function checkFocalPoint(obj: Json, path: string, problem: Report): void {
  if (obj.focalPoint !== undefined && obj.focalPoint !== null && !isPoint(obj.focalPoint)) problem(`${path}/focalPoint`, 'must be {x, y} or null');
}

/** The first placement given is the one used (see shapeCenter), so it must be valid. */
function checkPlaced(obj: Json, path: string, kind: string, problem: Report): void {
  if (obj.center !== undefined && obj.center !== null) {
    if (!isPoint(obj.center)) problem(`${path}/center`, 'must be {x, y} with numbers');
  } else if (obj.x !== undefined || obj.y !== undefined) {
    if (!Number.isFinite(obj.x) || !Number.isFinite(obj.y)) problem(path, `${kind} needs numeric x and y`);
  } else if (!(Array.isArray(obj.points) && obj.points.length > 0 && obj.points.every(isPoint))) {
    problem(path, `${kind} needs coordinates: a center {x, y}, numeric x and y, or outline points`);
  }
}

function checkSubChart(subChart: unknown, path: string, sectionsAllowed: boolean, problem: Report): void {
  if (!isObject(subChart)) return problem(path, 'must be an object');
  checkArray(subChart, 'rows', path, problem, (row, rowPath) => {
    checkLabel(row, rowPath, problem);
    checkCategoryKey(row, rowPath, problem);
    checkArray(row, 'seats', rowPath, problem, (seat, seatPath) => checkSeat(seat, seatPath, problem));
  });
  checkArray(subChart, 'tables', path, problem, (table, tablePath) => {
    if (!isPoint(table.center)) problem(tablePath, 'table needs a center {x, y}');
    checkLabel(table, tablePath, problem);
    checkCategoryKey(table, tablePath, problem);
    checkArray(table, 'seats', tablePath, problem, (seat, seatPath) => checkSeat(seat, seatPath, problem));
  });
  checkArray(subChart, 'booths', path, problem, (booth, boothPath) => {
    checkPlaced(booth, boothPath, 'booth', problem);
    checkLabel(booth, boothPath, problem);
    checkCategoryKey(booth, boothPath, problem);
  });
  checkArray(subChart, 'generalAdmissionAreas', path, problem, (area, areaPath) => {
    const capacity = area.capacity;
    if (typeof capacity !== 'number' || !Number.isInteger(capacity) || capacity <= 0) {
      problem(`${areaPath}/capacity`, 'a general admission area needs a positive whole-number capacity');
    }
    checkPlaced(area, areaPath, 'general admission area', problem);
    checkLabel(area, areaPath, problem);
    checkCategoryKey(area, areaPath, problem);
  });
  checkFocalPoint(subChart, path, problem);
  checkArray(subChart, 'sections', path, problem, (section, sectionPath) => {
    if (!sectionsAllowed) return problem(sectionPath, 'sections cannot be nested inside sections');
    checkLabel(section, sectionPath, problem);
    checkCategoryKey(section, sectionPath, problem);
    if (section.topLeft !== undefined && section.topLeft !== null && !isPoint(section.topLeft)) {
      problem(`${sectionPath}/topLeft`, 'must be {x, y}');
    }
    checkSubChart(section.subChart, `${sectionPath}/subChart`, false, problem);
  });
}
