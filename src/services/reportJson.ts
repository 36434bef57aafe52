import { GzipStream, type GzipPart } from '../util/gzipStream.js';
import { inSlices, SLICE_SIZE, type Pause } from '../util/slices.js';
import type { ReportPace } from './reportLane.js';

// The bodies of detailed reports, the flat list and the CSV, written as the objects are
// described, in slices (src/util/slices.ts), and gzipped as they are written
// (src/util/gzipStream.ts): a 100,000-object report is never held as objects nor as text,
// and neither describing nor serialising it holds the event loop for long.

/** A detailed report's group: its objects' text makers not written yet, and its body so far, compressed apart. */
interface Group {
  /** Made once the group has a slice of objects: a report of many small groups (by label) makes none. */
  part: GzipPart | null;
  pending: (() => string)[];
  written: number;
}

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
  const out = new GzipStream(pace.compressionWidth);
  // Groups turn up interleaved and are written one after the other. Each keeps its members'
  // text makers until it has a slice of them, then writes their text into a part of the body
  // of its own, compressed as it fills: a big group holds its text compressed, not its
  // objects (some 50 MiB less heap for 100,000 objects), and no object is described twice.
  const groups = new Map<string, Group>();
  const open = (name: string): Group => {
    const group: Group = { part: null, pending: [], written: 0 };
    groups.set(name, group);
    return group;
  };
  for (const name of only === undefined ? always : [only]) open(name);
  await inSlices(
    objects,
    (object) => {
      const { group: name, json } = entry(object);
      if (only !== undefined && name !== only) return;
      const group = groups.get(name) ?? open(name);
      group.pending.push(json);
      if (group.pending.length === SLICE_SIZE) {
        (group.part ??= out.apart()).write(joinedText(group.pending, (json) => json(), ',', group.written > 0));
        group.written += group.pending.length;
        group.pending = [];
      }
    },
    async (sliceMs) => {
      await pace.pause(sliceMs);
      await out.drained();
    },
  );
  out.write('{');
  let first = true;
  for (const [name, group] of groups) {
    out.write(`${first ? '' : ','}${JSON.stringify(name)}:[`);
    if (group.part) out.append(group.part);
    await writeJoined(out, group.pending, (json) => json(), ',', pace.pause, group.written > 0);
    out.write(']');
    first = false;
  }
  out.write('}');
  return out.finish();
}

/** The texts of `items` joined by `separator`, after a separator when `after` (items came before them). */
function joinedText<T>(items: readonly T[], text: (item: T) => string, separator: string, after: boolean): string {
  return (after ? separator : '') + items.map(text).join(separator);
}

/** `open`, then every object's text (`text(object)`) joined by `separator`, then `close`, gzipped. */
export async function listBody<T>(objects: readonly T[], text: (object: T) => string, open: string, separator: string, close: string, pace: ReportPace): Promise<Buffer> {
  const out = new GzipStream(pace.compressionWidth);
  out.write(open);
  await writeJoined(out, objects, text, separator, pace.pause);
  out.write(close);
  return out.finish();
}

/**
 * Writes the texts of `items` joined by `separator`, a slice at a time, each slice's texts
 * made as it is written; after a separator when `after` (items were written before).
 */
async function writeJoined<T>(out: GzipStream, items: readonly T[], text: (item: T) => string, separator: string, pause: Pause, after = false): Promise<void> {
  for (let start = 0; start < items.length; start += SLICE_SIZE) {
    const began = performance.now();
    out.write(Buffer.from(joinedText(items.slice(start, start + SLICE_SIZE), text, separator, start > 0 || after)));
    if (start + SLICE_SIZE < items.length) {
      await pause(performance.now() - began);
      await out.drained();
    }
  }
}
