import { isCssColor } from './cssColors.js';
import type { CategoryKey, Drawing } from './drawing.js';

// An SVG picture of a chart drawing, for thumbnails. Pure: no I/O.
//
// Only numbers (rounded to one decimal) and validated colours from the drawing reach the
// SVG; labels, names and every other string are never written, so a drawing cannot inject
// markup. The drawing is read defensively: editor fields such as `shapes` and a section's
// `points` are not checked by checkDrawing, so anything that is not a finite number or a
// well-formed list is skipped rather than trusted.
//
// Built for large charts (100,000 seats): one pass over the objects, fragments collected
// in arrays and joined, objects of one colour grouped under a single <g fill>.

export const UNKNOWN_COLOR = '#bbbbbb';
const BACKGROUND = '#ffffff';
const DEFAULT_SEAT_RADIUS = 5;
const BOOTH_SIZE = 16;
const EMPTY_SIZE = 100;
/** The thumbnail never gets more elongated than this; the short side is padded instead. */
const MAX_ASPECT = 4;
/** The size in pixels of the longer side of the picture as it will be rasterised. */
export const DEFAULT_TARGET_PIXELS = 400;
/** Seats are never drawn smaller than this many pixels in radius at the target size. */
const MIN_SEAT_PIXELS = 0.75;

type Json = Record<string, unknown>;

interface Offset {
  dx: number;
  dy: number;
  /** The enclosing section's category, inherited by objects without one of their own. */
  category: CategoryKey | null;
}

/** Fragments of one layer, bucketed by fill colour so each colour is written once. */
class Layer {
  readonly byColor = new Map<string, string[]>();
  constructor(readonly attributes: string) {}

  add(color: string, fragment: string): void {
    let bucket = this.byColor.get(color);
    if (!bucket) this.byColor.set(color, (bucket = []));
    bucket.push(fragment);
  }

  write(out: string[]): void {
    for (const [color, fragments] of this.byColor) {
      out.push(`<g fill="${color}"${this.attributes}>`, fragments.join(''), '</g>');
    }
  }
}

export function thumbnailSvg(drawing: Drawing, targetPixels = DEFAULT_TARGET_PIXELS): string {
  return thumbnailPicture(drawing, targetPixels).svg;
}

/** The SVG with its size in user units (the viewBox, also its width and height attributes). */
export function thumbnailPicture(
  drawing: Drawing,
  targetPixels = DEFAULT_TARGET_PIXELS,
): { svg: string; width: number; height: number } {
  const colors = categoryColors(drawing);
  const colorOf = (...keys: unknown[]): string => {
    for (const key of keys) {
      if (typeof key === 'number' || typeof key === 'string') return colors.get(String(key)) ?? UNKNOWN_COLOR;
    }
    return UNKNOWN_COLOR;
  };

  const chart = drawnSubChart(drawing);
  const seatRadius = chart ? seatRadiusFor(chart) : DEFAULT_SEAT_RADIUS;

  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const include = (x0: number, y0: number, x1: number, y1: number) => {
    if (x0 < minX) minX = x0;
    if (y0 < minY) minY = y0;
    if (x1 > maxX) maxX = x1;
    if (y1 > maxY) maxY = y1;
  };

  // Bottom to top.
  const shapes = new Layer('');
  const sectionOutlines = new Layer(' fill-opacity="0.15" stroke="#888888" stroke-width="1"');
  const areas = new Layer(' fill-opacity="0.45"');
  const tables = new Layer(' fill-opacity="0.35"');
  const booths = new Layer('');
  // Seat centres, x and y interleaved, by colour: their radius is only chosen at the end,
  // once the scale of the picture is known.
  const seats = new Map<string, number[]>();

  const circle = (layer: Layer, color: string, x: number, y: number, radius: number, rText: string) => {
    layer.add(color, `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="${rText}"/>`);
    include(x - radius, y - radius, x + radius, y + radius);
  };

  const polygon = (layer: Layer, color: string, points: unknown, dx: number, dy: number): boolean => {
    if (!Array.isArray(points)) return false;
    const coords: string[] = [];
    for (const p of points) {
      const x = pointX(p);
      const y = pointY(p);
      if (x === undefined || y === undefined) continue;
      coords.push(`${fmt(x + dx)},${fmt(y + dy)}`);
      include(x + dx, y + dy, x + dx, y + dy);
    }
    if (coords.length === 0) return false;
    layer.add(color, `<polygon points="${coords.join(' ')}"/>`);
    return true;
  };

  /** Seats without a category of their own take `fallback`, their row's or table's or section's. */
  const drawSeats = (list: unknown, at: Offset, fallback: string) => {
    if (!Array.isArray(list)) return;
    for (const seat of list as unknown[]) {
      if (!isObject(seat)) continue;
      const x = finite(seat.x);
      const y = finite(seat.y);
      if (x === undefined || y === undefined) continue;
      const key = seat.categoryKey;
      const color = typeof key === 'number' || typeof key === 'string' ? colorOf(key) : fallback;
      let bucket = seats.get(color);
      if (!bucket) seats.set(color, (bucket = []));
      bucket.push(x + at.dx, y + at.dy);
      include(x + at.dx - seatRadius, y + at.dy - seatRadius, x + at.dx + seatRadius, y + at.dy + seatRadius);
    }
  };

  const drawShapes = (list: unknown, at: Offset) => {
    for (const shape of arrayOf(list)) {
      const color = validColor(shape.fillColor);
      if (polygon(shapes, color, shape.points, at.dx, at.dy)) continue;
      const cx = pointX(shape.center);
      const cy = pointY(shape.center);
      const w = finite(shape.width);
      const h = finite(shape.height);
      if (cx === undefined || cy === undefined || w === undefined || h === undefined || w <= 0 || h <= 0) continue;
      const x = cx + at.dx - w / 2;
      const y = cy + at.dy - h / 2;
      if (shape.type === 'circle' || shape.type === 'ellipse') {
        shapes.add(color, `<ellipse cx="${fmt(cx + at.dx)}" cy="${fmt(cy + at.dy)}" rx="${fmt(w / 2)}" ry="${fmt(h / 2)}"/>`);
      } else {
        shapes.add(color, `<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(w)}" height="${fmt(h)}"/>`);
      }
      include(x, y, x + w, y + h);
    }
  };

  const drawSubChart = (subChart: Json, at: Offset, sectionsAllowed: boolean) => {
    drawShapes(subChart.shapes, at);

    for (const area of arrayOf(subChart.generalAdmissionAreas)) {
      const color = colorOf(area.categoryKey, at.category);
      if (polygon(areas, color, area.points, at.dx, at.dy)) continue;
      const cx = pointX(area.center) ?? finite(area.x);
      const cy = pointY(area.center) ?? finite(area.y);
      if (cx === undefined || cy === undefined) continue;
      // A GA area placed by a point has no outline: size the ellipse by its width/height
      // when the editor stored them, otherwise by its capacity.
      const capacity = finite(area.capacity) ?? 1;
      const fallback = Math.min(200, Math.max(seatRadius * 3, Math.sqrt(Math.max(capacity, 1)) * seatRadius));
      const rx = positive(area.width) !== undefined ? positive(area.width)! / 2 : (positive(area.radius) ?? fallback);
      const ry = positive(area.height) !== undefined ? positive(area.height)! / 2 : (positive(area.radius) ?? fallback);
      const x = cx + at.dx;
      const y = cy + at.dy;
      areas.add(color, `<ellipse cx="${fmt(x)}" cy="${fmt(y)}" rx="${fmt(rx)}" ry="${fmt(ry)}"/>`);
      include(x - rx, y - ry, x + rx, y + ry);
    }

    for (const table of arrayOf(subChart.tables)) {
      const cx = pointX(table.center);
      const cy = pointY(table.center);
      const tableSeats = Array.isArray(table.seats) ? (table.seats as unknown[]) : [];
      if (cx !== undefined && cy !== undefined) {
        // The table top reaches to just inside its ring of seats.
        let nearest = Infinity;
        for (const seat of tableSeats) {
          if (!isObject(seat)) continue;
          const sx = finite(seat.x);
          const sy = finite(seat.y);
          if (sx !== undefined && sy !== undefined) nearest = Math.min(nearest, Math.hypot(sx - cx, sy - cy));
        }
        const radius = Number.isFinite(nearest) ? Math.max(seatRadius, nearest - seatRadius * 1.5) : seatRadius * 3;
        const firstSeat = tableSeats.find(isObject);
        const color = colorOf(table.categoryKey, firstSeat?.categoryKey, at.category);
        circle(tables, color, cx + at.dx, cy + at.dy, radius, fmt(radius));
      }
      drawSeats(tableSeats, at, colorOf(table.categoryKey, at.category));
    }

    for (const booth of arrayOf(subChart.booths)) {
      const color = colorOf(booth.categoryKey, at.category);
      if (polygon(booths, color, booth.points, at.dx, at.dy)) continue;
      const cx = pointX(booth.center) ?? finite(booth.x);
      const cy = pointY(booth.center) ?? finite(booth.y);
      if (cx === undefined || cy === undefined) continue;
      const x = cx + at.dx - BOOTH_SIZE / 2;
      const y = cy + at.dy - BOOTH_SIZE / 2;
      booths.add(color, `<rect x="${fmt(x)}" y="${fmt(y)}" width="${BOOTH_SIZE}" height="${BOOTH_SIZE}"/>`);
      include(x, y, x + BOOTH_SIZE, y + BOOTH_SIZE);
    }

    for (const row of arrayOf(subChart.rows)) drawSeats(row.seats, at, colorOf(row.categoryKey, at.category));

    if (!sectionsAllowed) return;
    for (const section of arrayOf(subChart.sections)) {
      const category = keyOrNull(section.categoryKey);
      // Section outlines are in chart coordinates; their contents are relative to topLeft.
      polygon(sectionOutlines, colorOf(category), section.points, 0, 0);
      if (!isObject(section.subChart)) continue;
      const inner: Offset = {
        dx: pointX(section.topLeft) ?? 0,
        dy: pointY(section.topLeft) ?? 0,
        category,
      };
      drawSubChart(section.subChart, inner, false);
    }
  };

  if (chart) drawSubChart(chart, { dx: 0, dy: 0, category: null }, true);

  let viewX: number;
  let viewY: number;
  let viewW: number;
  let viewH: number;
  if (minX > maxX || minY > maxY) {
    viewX = 0;
    viewY = 0;
    viewW = EMPTY_SIZE;
    viewH = EMPTY_SIZE;
  } else {
    const margin = Math.max(seatRadius * 2, 0.04 * Math.max(maxX - minX, maxY - minY));
    viewX = minX - margin;
    viewY = minY - margin;
    viewW = maxX - minX + 2 * margin;
    viewH = maxY - minY + 2 * margin;
    // Pad the short side of a very elongated chart (one long row) so the picture keeps a
    // usable height at thumbnail width.
    if (viewW > viewH * MAX_ASPECT) {
      viewY -= (viewW / MAX_ASPECT - viewH) / 2;
      viewH = viewW / MAX_ASPECT;
    } else if (viewH > viewW * MAX_ASPECT) {
      viewX -= (viewH / MAX_ASPECT - viewW) / 2;
      viewW = viewH / MAX_ASPECT;
    }
  }
  // Integer bounds keep the rounded viewBox covering every drawn object.
  const x0 = Math.floor(viewX);
  const y0 = Math.floor(viewY);
  const width = Math.max(1, Math.ceil(viewX + viewW) - x0);
  const height = Math.max(1, Math.ceil(viewY + viewH) - y0);

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="${x0} ${y0} ${width} ${height}">`,
    `<rect x="${x0}" y="${y0}" width="${width}" height="${height}" fill="${BACKGROUND}"/>`,
  ];
  for (const layer of [shapes, sectionOutlines, areas, tables, booths]) layer.write(out);
  // In a dense chart seats a fraction of a pixel apart would vanish into a pale haze; at
  // least MIN_SEAT_PIXELS keeps them visible as blocks of their category colour. The growth
  // is under a pixel, well inside the margin.
  const r = fmt(Math.max(seatRadius, (MIN_SEAT_PIXELS * Math.max(width, height)) / targetPixels));
  for (const [color, centres] of seats) {
    const circles: string[] = new Array<string>(centres.length / 2);
    for (let i = 0; i < centres.length; i += 2) {
      circles[i / 2] = `<circle cx="${fmt(centres[i]!)}" cy="${fmt(centres[i + 1]!)}" r="${r}"/>`;
    }
    out.push(`<g fill="${color}">`, circles.join(''), '</g>');
  }
  out.push('</svg>');
  return { svg: out.join(''), width, height };
}

/** The first floor of a multi-floor chart, otherwise the chart's only subChart. */
function drawnSubChart(drawing: Drawing): Json | undefined {
  const floors = drawing.subChartFloors;
  if (Array.isArray(floors) && floors.length > 0) return isObject(floors[0]) ? floors[0] : undefined;
  return isObject(drawing.subChart) ? drawing.subChart : undefined;
}

function categoryColors(drawing: Drawing): Map<string, string> {
  const colors = new Map<string, string>();
  const list: unknown = drawing.categories?.list;
  for (const category of arrayOf(list)) {
    const key = category.key;
    // Keys 1 and '1' name the same category; the first one listed wins.
    if ((typeof key === 'number' || typeof key === 'string') && !colors.has(String(key))) {
      colors.set(String(key), validColor(category.color));
    }
  }
  return colors;
}

/**
 * A colour that is safe to write into an attribute: #hex, rgb[a]()/hsl[a]() with plain
 * numbers, or a CSS colour name; anything else is grey. Whitespace is collapsed to single
 * spaces because control characters such as \v and \f are not allowed in XML at all.
 */
export function validColor(value: unknown): string {
  if (typeof value !== 'string' || value.length > 100 || !isCssColor(value)) return UNKNOWN_COLOR;
  const color = value.trim().replace(/\s+/g, ' ');
  // Belt and braces: nothing that can end an attribute or open markup gets through.
  if (!/^[#a-zA-Z0-9 .,%+\-/()]+$/.test(color)) return UNKNOWN_COLOR;
  return /^[a-zA-Z]+$/.test(color) ? color.toLowerCase() : color;
}

/**
 * Seats are drawn at a fraction of the usual distance between neighbours in a row, so a
 * densely drawn chart does not turn into one blob and a sparse one stays visible.
 */
function seatRadiusFor(subChart: Json): number {
  const gaps: number[] = [];
  const sample = (rows: unknown) => {
    for (const row of arrayOf(rows)) {
      if (gaps.length >= 2000) return;
      const seats = Array.isArray(row.seats) ? (row.seats as unknown[]) : [];
      for (let i = 1; i < seats.length && i < 50; i++) {
        const a = seats[i - 1];
        const b = seats[i];
        if (!isObject(a) || !isObject(b)) continue;
        const ax = finite(a.x);
        const ay = finite(a.y);
        const bx = finite(b.x);
        const by = finite(b.y);
        if (ax === undefined || ay === undefined || bx === undefined || by === undefined) continue;
        const gap = Math.hypot(bx - ax, by - ay);
        if (gap > 0) gaps.push(gap);
      }
    }
  };
  sample(subChart.rows);
  for (const section of arrayOf(subChart.sections)) {
    if (isObject(section.subChart)) sample(section.subChart.rows);
  }
  if (gaps.length === 0) return DEFAULT_SEAT_RADIUS;
  gaps.sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)]!;
  return Math.min(20, Math.max(0.5, median * 0.4));
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function arrayOf(value: unknown): Json[] {
  return Array.isArray(value) ? (value as unknown[]).filter(isObject) : [];
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function positive(value: unknown): number | undefined {
  const n = finite(value);
  return n !== undefined && n > 0 ? n : undefined;
}

function pointX(point: unknown): number | undefined {
  return isObject(point) ? finite(point.x) : undefined;
}

function pointY(point: unknown): number | undefined {
  return isObject(point) ? finite(point.y) : undefined;
}

function keyOrNull(value: unknown): CategoryKey | null {
  return typeof value === 'number' || typeof value === 'string' ? value : null;
}

/** One decimal, no exponent for ordinary chart sizes, never "-0". */
function fmt(n: number): string {
  const rounded = Math.round(n * 10) / 10;
  return rounded === 0 ? '0' : String(rounded);
}
