import { describe, expect, it } from 'vitest';
import type { Drawing, DrawingCategory, DrawingRow, DrawingSeat, SubChart } from '../../src/domain/drawing.js';
import { thumbnailSvg, UNKNOWN_COLOR } from '../../src/domain/thumbnailSvg.js';
import { renderThumbnail } from '../../src/rendering/thumbnail.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Width and height from the IHDR chunk, which always follows the 8-byte signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function expectPng(png: Buffer): void {
  expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
}

function drawing(subChart: SubChart, categories: DrawingCategory[] = [{ key: 1, label: 'Stalls', color: '#e53935' }]): Drawing {
  return { name: 'Test', categories: { list: categories }, subChart };
}

function straightRow(y: number, seats: number, categoryKey: number | string | null, spacing = 20, x0 = 0): DrawingRow {
  const list: DrawingSeat[] = [];
  for (let i = 0; i < seats; i++) list.push({ label: String(i + 1), x: x0 + i * spacing, y, categoryKey });
  return { label: `R${y}`, seats: list };
}

/** A small venue: stage, three sections of curved rows, tables, booths and a GA floor. */
function sampleVenue(): Drawing {
  const sections = [-1, 0, 1].map((side, s) => {
    const rows: DrawingRow[] = [];
    for (let r = 0; r < 10; r++) {
      const seats: DrawingSeat[] = [];
      for (let i = 0; i < 14; i++) {
        const x = 20 + i * 20;
        seats.push({ label: String(i + 1), x, y: 20 + r * 22 + side * ((i - 6.5) ** 2) * 0.6, categoryKey: null });
      }
      rows.push({ label: String.fromCharCode(65 + r), seats, categoryKey: r < 3 ? 2 : null });
    }
    const left = 60 + s * 330;
    return {
      label: `S${s + 1}`,
      categoryKey: s === 1 ? '1' : 3,
      topLeft: { x: left, y: 260 },
      points: [
        { x: left, y: 250 },
        { x: left + 320, y: 250 },
        { x: left + 320, y: 520 },
        { x: left, y: 520 },
      ],
      subChart: { rows },
    };
  });
  const tables = [0, 1, 2, 3].map((t) => {
    const center = { x: 150 + t * 230, y: 640 };
    const seats: DrawingSeat[] = [];
    for (let i = 0; i < 8; i++) {
      const a = (i / 8) * 2 * Math.PI;
      seats.push({ label: String(i + 1), x: center.x + Math.cos(a) * 45, y: center.y + Math.sin(a) * 45 });
    }
    return { label: `T${t + 1}`, center, categoryKey: 4, seats };
  });
  return {
    name: 'Sample venue',
    categories: {
      list: [
        { key: 1, label: 'Centre', color: '#e53935' },
        { key: 2, label: 'Front', color: 'rgb(255, 160, 0)' },
        { key: 3, label: 'Side', color: 'royalblue' },
        { key: 4, label: 'Tables', color: 'hsl(140, 60%, 40%)' },
        { key: 5, label: 'Floor', color: '#8e24aa' },
      ],
    },
    subChart: {
      shapes: [{ type: 'rectangle', center: { x: 545, y: 110 }, width: 500, height: 90, fillColor: '#424242' }],
      sections,
      tables,
      booths: [0, 1, 2, 3, 4, 5].map((b) => ({ label: `B${b}`, center: { x: 1110, y: 120 + b * 30 }, categoryKey: 5 })),
      generalAdmissionAreas: [
        { label: 'Floor', capacity: 300, categoryKey: 5, points: [{ x: 1060, y: 350 }, { x: 1160, y: 350 }, { x: 1160, y: 700 }, { x: 1060, y: 700 }] },
        { label: 'Lawn', capacity: 100, center: { x: 1110, y: 790 } },
      ],
      rows: [],
    },
  };
}

describe('thumbnailSvg', () => {
  it('colours a seat by its category and a seat without one in grey', () => {
    const svg = thumbnailSvg(drawing({ rows: [straightRow(0, 3, 1), straightRow(40, 3, null)] }));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" [^>]*viewBox="/);
    expect(svg).toContain('fill="#e53935"');
    expect(svg).toContain(`fill="${UNKNOWN_COLOR}"`);
    expect(svg.match(/<circle /g)).toHaveLength(6);
  });

  it('treats category keys 1 and "1" alike and lets seats inherit row and section categories', () => {
    const svg = thumbnailSvg(
      drawing(
        {
          rows: [{ ...straightRow(0, 2, null), categoryKey: '1' }],
          sections: [{ label: 'A', categoryKey: 2, topLeft: { x: 100, y: 100 }, subChart: { rows: [straightRow(0, 2, null)] } }],
        },
        [
          { key: '1', label: 'One', color: '#111111' },
          { key: 2, label: 'Two', color: '#222222' },
        ],
      ),
    );
    expect(svg).toContain('fill="#111111"');
    expect(svg).toContain('fill="#222222"');
    expect(svg).not.toContain(UNKNOWN_COLOR);
    // The section's seats are placed relative to its top-left corner.
    expect(svg).toContain('<circle cx="120" cy="100"');
  });

  it('never writes a malicious colour or any label into the SVG', () => {
    const evil = 'red" onload="x';
    const svg = thumbnailSvg({
      name: '<script>alert(1)</script>',
      categories: {
        list: [
          { key: 1, label: '</svg><script>', color: evil },
          { key: 2, label: 'x', color: 'rgb(1,2,3)"/><script>' },
          { key: 3, label: 'y', color: 'url(#x)' },
        ],
      },
      subChart: {
        rows: [{ label: '"><img>', seats: [1, 2, 3].map((k) => ({ label: '<b>', x: k * 20, y: 0, categoryKey: k })) }],
        shapes: [{ type: 'rectangle', center: { x: 0, y: 50 }, width: 10, height: 10, fillColor: 'blue;"><script>' }],
      },
    });
    expect(svg).not.toContain(evil);
    expect(svg).not.toContain('onload');
    expect(svg).not.toContain('<script');
    expect(svg).not.toContain('<img');
    expect(svg).not.toContain('url(');
    expect(svg).not.toContain('<b>');
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg.match(/"/g)!.length % 2).toBe(0);
  });

  it('draws tables, booths, GA areas, section outlines and shapes', () => {
    const svg = thumbnailSvg(sampleVenue());
    expect(svg).toContain('<polygon ');
    expect(svg).toContain('<ellipse ');
    expect(svg).toContain('<rect ');
    expect(svg).toContain('fill="#424242"');
    expect(svg).toContain('fill="royalblue"');
    expect(svg).toContain('fill="hsl(140, 60%, 40%)"');
  });

  it('draws only the first floor', () => {
    const svg = thumbnailSvg({
      categories: { list: [] },
      subChartFloors: [
        { floorName: '1', rows: [straightRow(0, 2, null)] },
        { floorName: '2', rows: [straightRow(0, 5, null)] },
      ],
    });
    expect(svg.match(/<circle /g)).toHaveLength(2);
  });
});

describe('renderThumbnail', () => {
  it('renders a wide drawing as a 400 px wide PNG', async () => {
    const png = await renderThumbnail(drawing({ rows: [straightRow(0, 40, 1), straightRow(30, 40, 1)] }));
    expectPng(png);
    const { width, height } = pngSize(png);
    expect(width).toBe(400);
    expect(height).toBeGreaterThan(0);
    expect(height).toBeLessThan(400);
  });

  it('keeps a tall drawing at most 400 px high', async () => {
    const rows = Array.from({ length: 60 }, (_, r) => straightRow(r * 25, 5, 1));
    const png = await renderThumbnail(drawing({ rows }));
    expectPng(png);
    const { width, height } = pngSize(png);
    expect(height).toBeLessThanOrEqual(400);
    expect(width).toBeLessThan(400);
  });

  it('renders an empty drawing as a small blank PNG', async () => {
    for (const empty of [drawing({}), { categories: { list: [] } } as Drawing]) {
      const svg = thumbnailSvg(empty);
      expect(svg).toContain('viewBox="0 0 100 100"');
      const png = await renderThumbnail(empty);
      expectPng(png);
      expect(pngSize(png).width).toBe(400);
    }
  });

  it('renders a sample venue', async () => {
    const png = await renderThumbnail(sampleVenue());
    expectPng(png);
    expect(pngSize(png).width).toBe(400);
  });

  it('renders a 100,000-seat drawing', async () => {
    const rows: DrawingRow[] = [];
    for (let r = 0; r < 100; r++) {
      const seats: DrawingSeat[] = [];
      for (let s = 0; s < 1000; s++) seats.push({ label: String(s + 1), x: s * 12, y: r * 14 + Math.sin(s / 80) * 40, categoryKey: (r % 4) + 1 });
      rows.push({ label: `R${r + 1}`, seats });
    }
    const categories = ['#e53935', '#fb8c00', '#43a047', '#1e88e5'].map((color, i) => ({ key: i + 1, label: `C${i + 1}`, color }));
    const big = drawing({ rows }, categories);

    const svg = thumbnailSvg(big);
    const png = await renderThumbnail(big);

    expectPng(png);
    expect(pngSize(png).width).toBe(400);
    expect(svg.match(/<circle /g)).toHaveLength(100_000);
  });
});
