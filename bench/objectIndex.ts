import { describeVersion } from '../src/domain/chart.js';
import { checkDrawing } from '../src/domain/drawing.js';
import { buildObjectIndex, type ObjectIndex } from '../src/domain/objectIndex.js';
import { renderThumbnail } from '../src/rendering/thumbnail.js';
import { generatedDrawing, SEATS_100K, seatCount } from './drawings.js';
import { median } from './lib/median.js';

// `node --expose-gc dist/bench/objectIndex.js`: what indexing a 100,000-seat drawing costs.
// - parse: JSON text -> checked drawing -> object index, as a chart upload does it (median of runs)
// - heap: bytes the finished index keeps alive once the drawing is dropped (after full GCs)
// Prints one JSON line; bench/run.ts includes it in its report.

const RUNS = 5;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

function fullGc(): void {
  for (let i = 0; i < 3; i++) gc!();
}

const json = JSON.stringify(generatedDrawing(SEATS_100K));
const parseMs: number[] = [];
const indexMs: number[] = [];
const versionMs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  let t = performance.now();
  const drawing = checkDrawing(JSON.parse(json));
  parseMs.push(performance.now() - t);
  t = performance.now();
  buildObjectIndex(drawing);
  indexMs.push(performance.now() - t);
  t = performance.now();
  describeVersion(drawing, 'bench');
  versionMs.push(performance.now() - t);
}

fullGc();
const before = process.memoryUsage().heapUsed;
let kept: ObjectIndex | undefined = buildObjectIndex(checkDrawing(JSON.parse(json)));
fullGc();
const indexHeapBytes = process.memoryUsage().heapUsed - before;
const objects = kept.objects.length;
kept = undefined;

const drawing = checkDrawing(JSON.parse(json));
let t = performance.now();
const png = await renderThumbnail(drawing);
const thumbnailMs = performance.now() - t;

const result = {
  seats: seatCount(SEATS_100K),
  objects,
  drawingBytes: Buffer.byteLength(json),
  parseAndCheckMs: Math.round(median(parseMs)),
  buildIndexMs: Math.round(median(indexMs)),
  parseToIndexMs: Math.round(median(parseMs.map((p, i) => p + indexMs[i]!))),
  describeVersionMs: Math.round(median(versionMs)),
  indexHeapBytes,
  indexHeapMB: Math.round((indexHeapBytes / 1024 / 1024) * 10) / 10,
  thumbnailMs: Math.round(thumbnailMs),
  thumbnailBytes: png.length,
};
console.log(JSON.stringify(result));
