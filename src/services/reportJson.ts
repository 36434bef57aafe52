import { GzipStream } from '../util/gzipStream.js';
import { inSlices, SLICE_SIZE, type Pause } from '../util/slices.js';
import type { ReportPace } from './reportLane.js';

// The bodies of detailed reports, the flat list and the CSV, written as the objects are
// described, in slices (src/util/slices.ts), and gzipped as they are written
// (src/util/gzipStream.ts): a 100,000-object report is never held as objects nor as text
// (each object's text is made when its slice is written), and neither describing nor
// serialising it holds the event loop for long.

/**
 * `{group: [item, ...]}` gzipped: `entry` gives each object's group and its JSON text (made
 * only when wanted); the `always` groups come first (empty or not), then the others as they
 * turn up. With `only`, just that group (`[]` when empty). `entry` is asked twice per object,
 * for its group and then, when its group is written, for its text: keeping each object's
 * description from one pass to the next held some 30 MB for 100,000 objects.
 */
export async function groupedJson<T>(
  objects: readonly T[],
  entry: (object: T) => { group: string; json: () => string },
  always: string[],
  pace: ReportPace,
  only?: string,
): Promise<Buffer> {
  // Groups are written one after the other but turn up interleaved: each object's group is
  // kept as a number, then the objects are ordered by it (keeping their order within a group).
  const names = only === undefined ? [...always] : [only];
  const numbers = new Map(names.map((group, i) => [group, i]));
  const groupOf = new Int32Array(objects.length).fill(-1);
  await inSlices(
    objects,
    (object, i) => {
      const { group } = entry(object);
      if (only !== undefined && group !== only) return;
      let number = numbers.get(group);
      if (number === undefined) numbers.set(group, (number = names.push(group) - 1));
      groupOf[i] = number;
    },
    pace.pause,
  );
  const ends = new Int32Array(names.length + 1);
  for (const number of groupOf) if (number >= 0) ends[number + 1]!++;
  for (let g = 0; g < names.length; g++) ends[g + 1]! += ends[g]!;
  const ordered = new Int32Array(ends[names.length]!);
  const next = ends.slice(0, names.length);
  groupOf.forEach((number, i) => {
    if (number >= 0) ordered[next[number]!++] = i;
  });
  const out = new GzipStream(pace.compressionWidth);
  out.write('{');
  for (let g = 0; g < names.length; g++) {
    out.write(`${g === 0 ? '' : ','}${JSON.stringify(names[g])}:[`);
    await writeJoined(out, ordered.subarray(ends[g]!, ends[g + 1]!), (i) => entry(objects[i]!).json(), ',', pace.pause);
    out.write(']');
  }
  out.write('}');
  return out.finish();
}

/** `open`, then every object's text (`text(object)`) joined by `separator`, then `close`, gzipped. */
export async function listBody<T>(objects: readonly T[], text: (object: T) => string, open: string, separator: string, close: string, pace: ReportPace): Promise<Buffer> {
  const out = new GzipStream(pace.compressionWidth);
  out.write(open);
  await writeJoined(out, objects, text, separator, pace.pause);
  out.write(close);
  return out.finish();
}

/** Writes the texts of `items` joined by `separator`, a slice at a time, each slice's texts made as it is written. */
async function writeJoined<T>(out: GzipStream, items: ArrayLike<T>, text: (item: T) => string, separator: string, pause: Pause): Promise<void> {
  for (let start = 0; start < items.length; start += SLICE_SIZE) {
    const began = performance.now();
    const end = Math.min(items.length, start + SLICE_SIZE);
    const texts = new Array<string>(end - start);
    for (let k = start; k < end; k++) texts[k - start] = text(items[k]!);
    out.write(Buffer.from((start > 0 ? separator : '') + texts.join(separator)));
    if (end < items.length) {
      await pause(performance.now() - began);
      await out.drained();
    }
  }
}
