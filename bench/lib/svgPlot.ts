// Line plots as plain inline SVG, for the bench's HTML report (bench/lib/htmlReport.ts): axes
// with round ticks, a linear or logarithmic x axis, lines that break where a value is missing,
// a legend. Nothing to load: the report opens as a file, without a network.

export interface PlotSeries {
  name: string;
  /** [x, y]; a null y breaks the line there. */
  points: [number, number | null][];
  color: string;
  /** Drawn dashed and lighter (an earlier run's overlay). */
  earlier?: boolean;
}

export interface PlotOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: PlotSeries[];
  /** A logarithmic x axis (x > 0 only). */
  logX?: boolean;
  /** Ticks on whole x values only (seconds). */
  wholeX?: boolean;
  width?: number;
  height?: number;
}

const MARGIN = { left: 56, right: 12, top: 34, bottom: 38 };

export const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** About `count` round values (1, 2 or 5 times a power of ten apart) covering min..max. */
export function niceTicks(min: number, max: number, count = 5, smallestStep = 0): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(smallestStep, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!);
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

/** A tick's label: short, and without floating-point noise (1.5k, 0.2, 12). */
export function tickLabel(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1_000_000) return `${Number((value / 1_000_000).toPrecision(3))}M`;
  if (abs >= 10_000) return `${Number((value / 1000).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}

export function linePlot(options: PlotOptions): string {
  const width = options.width ?? 400;
  const height = options.height ?? 230;
  const inner = { w: width - MARGIN.left - MARGIN.right, h: height - MARGIN.top - MARGIN.bottom };
  const tx = options.logX ? (x: number) => Math.log10(x) : (x: number) => x;
  const all = options.series.flatMap((s) => s.points.filter(([x, y]) => y !== null && (!options.logX || x > 0))) as [number, number][];
  const parts: string[] = [];
  parts.push(`<text x="${MARGIN.left}" y="14" class="plot-title">${escapeXml(options.title)}</text>`);
  if (all.length === 0) {
    parts.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="plot-empty">no data</text>`);
    return svg(width, height, options.title, parts);
  }
  let [xMin, xMax] = [Math.min(...all.map(([x]) => tx(x))), Math.max(...all.map(([x]) => tx(x)))];
  if (xMax === xMin) [xMin, xMax] = [xMin - 0.5, xMax + 0.5];
  const yTicks = niceTicks(0, Math.max(...all.map(([, y]) => y)) || 1);
  const yMax = Math.max(yTicks[yTicks.length - 1]!, Math.max(...all.map(([, y]) => y)));
  const px = (x: number) => MARGIN.left + ((tx(x) - xMin) / (xMax - xMin)) * inner.w;
  const py = (y: number) => MARGIN.top + inner.h - (y / yMax) * inner.h;
  // Gridlines and y ticks.
  for (const y of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + inner.w}" y1="${f(py(y))}" y2="${f(py(y))}" class="grid"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${f(py(y) + 4)}" text-anchor="end" class="tick">${tickLabel(y)}</text>`);
  }
  // x ticks: powers of ten on a log axis (with 2 and 5 between when it spans little), round values otherwise.
  const xTicks = options.logX ? logTicks(10 ** xMin, 10 ** xMax) : niceTicks(xMin, xMax, 6, options.wholeX ? 1 : 0);
  for (const x of xTicks) {
    parts.push(`<line x1="${f(px(x))}" x2="${f(px(x))}" y1="${MARGIN.top + inner.h}" y2="${MARGIN.top + inner.h + 4}" class="axis"/>`);
    parts.push(`<text x="${f(px(x))}" y="${MARGIN.top + inner.h + 16}" text-anchor="middle" class="tick">${tickLabel(x)}</text>`);
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + inner.w}" y1="${MARGIN.top + inner.h}" y2="${MARGIN.top + inner.h}" class="axis"/>`);
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + inner.h}" class="axis"/>`);
  parts.push(`<text x="${MARGIN.left + inner.w / 2}" y="${height - 4}" text-anchor="middle" class="axis-label">${escapeXml(options.xLabel)}</text>`);
  parts.push(`<text transform="translate(12 ${MARGIN.top + inner.h / 2}) rotate(-90)" text-anchor="middle" class="axis-label">${escapeXml(options.yLabel)}</text>`);
  // The lines: the earlier run's first, so today's are drawn over them.
  const ordered = [...options.series.filter((s) => s.earlier), ...options.series.filter((s) => !s.earlier)];
  for (const series of ordered) {
    const cls = series.earlier ? 'line earlier' : 'line';
    for (const segment of segments(series.points, options.logX)) {
      const points = segment.map(([x, y]) => `${f(px(x))},${f(py(y))}`).join(' ');
      if (segment.length === 1) parts.push(`<circle cx="${f(px(segment[0]![0]))}" cy="${f(py(segment[0]![1]))}" r="2" fill="${series.color}" class="${cls}"/>`);
      else parts.push(`<polyline points="${points}" fill="none" stroke="${series.color}" class="${cls}"/>`);
    }
  }
  // The legend, along the top.
  let lx = MARGIN.left + 8;
  for (const series of options.series) {
    const dash = series.earlier ? ' stroke-dasharray="5 3"' : '';
    parts.push(`<line x1="${lx}" x2="${lx + 16}" y1="26" y2="26" stroke="${series.color}" stroke-width="2"${dash}/>`);
    parts.push(`<text x="${lx + 20}" y="30" class="legend">${escapeXml(series.name)}</text>`);
    lx += 28 + series.name.length * 6.2;
  }
  return svg(width, height, options.title, parts);
}

const f = (n: number) => n.toFixed(1);

function svg(width: number, height: number, title: string, parts: string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img"><title>${escapeXml(title)}</title>${parts.join('')}</svg>`;
}

/** The runs of points with a value (and x > 0 on a log axis) between the missing ones. */
function segments(points: [number, number | null][], logX?: boolean): [number, number][][] {
  const runs: [number, number][][] = [];
  let run: [number, number][] = [];
  for (const [x, y] of points) {
    if (y === null || (logX && x <= 0)) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push([x, y]);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

function logTicks(min: number, max: number): number[] {
  const decades = Math.log10(max / min);
  const steps = decades < 1.5 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let power = Math.floor(Math.log10(min)); power <= Math.ceil(Math.log10(max)); power++) {
    for (const m of steps) {
      const t = Number((m * 10 ** power).toPrecision(6));
      if (t >= min * 0.999 && t <= max * 1.001) ticks.push(t);
    }
  }
  return ticks;
}
