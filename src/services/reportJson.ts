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
 * turn up. With `only`, just that group (`[]` when empty).
 */
export async function groupedJson<T>(
  objects: readonly T[],
  entry: (object: T) => { group: string; json: () => string },
  always: string[],
  pace: ReportPace,
  only?: string,
): Promise<Buffer> {
  // Groups are written one after the other but turn up interleaved: each keeps its members'
  // text makers, called when written.
  const groups = new Map<string, (() => string)[]>((only === undefined ? always : [only]).map((group) => [group, []]));
  await inSlices(
    objects,
    (object) => {
      const { group, json } = entry(object);
      if (only !== undefined && group !== only) return;
      let texts = groups.get(group);
      if (!texts) groups.set(group, (texts = []));
      texts.push(json);
    },
    pace.pause,
  );
  const out = new GzipStream(pace.compressionWidth);
  out.write('{');
  let first = true;
  for (const [group, texts] of groups) {
    out.write(`${first ? '' : ','}${JSON.stringify(group)}:[`);
    await writeJoined(out, texts, (json) => json(), ',', pace.pause);
    out.write(']');
    first = false;
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
async function writeJoined<T>(out: GzipStream, items: readonly T[], text: (item: T) => string, separator: string, pause: Pause): Promise<void> {
  for (let start = 0; start < items.length; start += SLICE_SIZE) {
    const began = performance.now();
    out.write(Buffer.from((start > 0 ? separator : '') + items.slice(start, start + SLICE_SIZE).map(text).join(separator)));
    if (start + SLICE_SIZE < items.length) {
      await pause(performance.now() - began);
      await out.drained();
    }
  }
}
