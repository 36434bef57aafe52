import { bestAvailablePreparation, chooseBestAvailable, closeChoice, countOpenInRows, focalRanking, seatingLayout, type OpenObjects } from '../src/domain/bestAvailable.js';
import { buildObjectIndex } from '../src/domain/objectIndex.js';
import { generatedDrawing } from './drawings.js';

// `npm run bench:choice`: what the best-available choice itself costs, in process (no HTTP,
// no Redis): 4 seats per choice on the bestAvailable4 chart (50,000 seats) until 80 % is
// sold, each choice closed in the view as a booking would. Prints the chart's preparation
// time, and the mean and the longest µs per choice for each tenth of the run, as one JSON
// line, so the scenario's latency can be told apart from the algorithm's.

const SEATS_PER_CHOICE = 4;
const index = buildObjectIndex(generatedDrawing({ sections: 50, rowsPerSection: 40, seatsPerRow: 25 }));
let started = performance.now();
for (const step of bestAvailablePreparation(index)) step();
const prepareMs = performance.now() - started;

const layout = seatingLayout(index);
const ranking = focalRanking(layout, '', index.focalPoint!);
const view: OpenObjects = {
  open: new Uint8Array(index.objects.length).fill(1),
  openInRow: new Int32Array(layout.rows.length),
  withoutClosed: new Map(),
  withoutLoneSeats: new Map(),
  areaFree: () => 0,
};
countOpenInRows(layout, view);
const query = { number: SEATS_PER_CHOICE, accessibleSeats: 0, tryToPreventOrphanSeats: true, eligible: () => true };
const choices = Math.floor((index.objects.length * 0.8) / SEATS_PER_CHOICE);
const micros: number[] = [];
for (let i = 0; i < choices; i++) {
  started = performance.now();
  const choice = chooseBestAvailable(layout, ranking, view, query);
  micros.push((performance.now() - started) * 1000);
  if (!choice) throw new Error(`no choice after ${i} choices`);
  closeChoice(layout, view, choice);
}
const tenth = choices / 10;
const tenths = Array.from({ length: 10 }, (_, k) => micros.slice(Math.round(k * tenth), Math.round((k + 1) * tenth)));
const meanUsByTenth = tenths.map((slice) => Math.round((slice.reduce((a, b) => a + b, 0) / slice.length) * 10) / 10);
const maxUsByTenth = tenths.map((slice) => Math.round(Math.max(...slice)));
console.log(JSON.stringify({ seats: index.objects.length, choices, prepareMs: Math.round(prepareMs), meanUsByTenth, maxUsByTenth }));
