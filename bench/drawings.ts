import type { Drawing, DrawingRow, DrawingSeat, DrawingSection } from '../src/domain/drawing.js';

// Drawings generated deterministically, for benchmarks and scale tests: sections on a grid,
// rows of seats 10 units apart, categories by section, one focal point.

const ROW_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Row labels as seats.io's "SimpleLettersUppercase" gives them: A..Z, AA..AZ, BA.. */
export function rowLabel(index: number): string {
  let label = '';
  let n = index;
  do {
    label = ROW_LETTERS[n % 26] + label;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return label;
}

/** A straight row of seats labelled 1..count, `spacing` apart along x. */
export function straightRow(
  label: string,
  count: number,
  start: { x: number; y: number },
  categoryKey: number | string | null,
  spacing = 20,
  extra: Record<number, Partial<DrawingSeat>> = {},
): DrawingRow {
  const seats: DrawingSeat[] = [];
  for (let i = 0; i < count; i++) {
    seats.push({ label: String(i + 1), x: start.x + i * spacing, y: start.y, categoryKey, ...extra[i + 1] });
  }
  return { label, seats };
}

export interface GeneratedDrawingOptions {
  sections: number;
  rowsPerSection: number;
  seatsPerRow: number;
  /** Number of categories (keys 1..n), assigned to sections in turn. Default 4. */
  categories?: number;
  /** General admission areas at the top level, beside the sections (label and capacity). */
  generalAdmission?: { label: string; capacity: number }[];
}

/**
 * A deterministic drawing of `sections` sections ("S1", "S2", ...) laid out on a grid, each
 * with `rowsPerSection` rows (A, B, ..., Z, AA, ...) of `seatsPerRow` seats (1..n) that
 * inherit the section's category. Object count: sections * rowsPerSection * seatsPerRow.
 * With `sections: 0` the rows are placed at the top level (a SIMPLE chart).
 */
export function generatedDrawing(options: GeneratedDrawingOptions): Drawing {
  const { sections, rowsPerSection, seatsPerRow } = options;
  const categoryCount = Math.max(1, options.categories ?? 4);
  const spacing = 10;
  const rows = (categoryKey: number | null): DrawingRow[] =>
    Array.from({ length: rowsPerSection }, (_, r) => straightRow(rowLabel(r), seatsPerRow, { x: 0, y: r * spacing }, categoryKey, spacing));
  const categories = Array.from({ length: categoryCount }, (_, i) => ({
    key: i + 1,
    label: `Category ${i + 1}`,
    color: `#${(((i + 1) * 0x3f7a1b) & 0xffffff).toString(16).padStart(6, '0')}`,
    accessible: false,
  }));
  const sectionWidth = seatsPerRow * spacing + 50;
  const sectionHeight = rowsPerSection * spacing + 50;
  const perLine = Math.max(1, Math.ceil(Math.sqrt(sections)));
  const sectionList: DrawingSection[] = Array.from({ length: sections }, (_, s) => ({
    label: `S${s + 1}`,
    categoryKey: (s % categoryCount) + 1,
    entrance: `Entrance ${(s % 4) + 1}`,
    topLeft: { x: (s % perLine) * sectionWidth, y: 100 + Math.floor(s / perLine) * sectionHeight },
    zone: null,
    subChart: { rows: rows(null) },
  }));
  return {
    name: `Generated ${sections}x${rowsPerSection}x${seatsPerRow}`,
    venueType: sections > 0 ? 'ROWS_WITH_SECTIONS' : 'ROWS_WITHOUT_SECTIONS',
    categories: { list: categories, maxCategoryKey: categoryCount },
    subChart: {
      rows: sections > 0 ? [] : rows(1),
      tables: [],
      booths: [],
      generalAdmissionAreas: (options.generalAdmission ?? []).map(({ label, capacity }, i) => ({
        label,
        capacity,
        categoryKey: 1,
        center: { x: -200, y: 100 + i * 200 },
      })),
      sections: sectionList,
      focalPoint: { x: (perLine * sectionWidth) / 2, y: 0 },
    },
  };
}

/** The venues the benchmarks seed. */
export const SEATS_100K: GeneratedDrawingOptions = { sections: 10, rowsPerSection: 100, seatsPerRow: 100 };
export const SEATS_10K: GeneratedDrawingOptions = { sections: 4, rowsPerSection: 50, seatsPerRow: 50 };
/** The 10,000-seat venue with a standing area, for the GA sell-out. */
export const SEATS_10K_WITH_GA: GeneratedDrawingOptions = { ...SEATS_10K, generalAdmission: [{ label: 'GA1', capacity: 10_000 }] };

export function seatCount(options: GeneratedDrawingOptions): number {
  return Math.max(1, options.sections) * options.rowsPerSection * options.seatsPerRow;
}
