// Long loops over every object of a big event (reports) run in slices, with the event loop
// free between them: what arrives meanwhile (in the report thread, the next reports' calls)
// is taken after at most one slice instead of after the whole loop (docs/reports.md, "The
// report thread").

/** Objects handled between two pauses: a few milliseconds of work. */
export const SLICE_SIZE = 2000;

/** Lets timers and I/O run (setImmediate runs after the poll phase, so pending requests go first). */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What runs between two slices, told how long the slice took (ms). */
export type Pause = (sliceMs: number) => Promise<void>;

/** Calls `each` on every item (with its position), pausing after every `size` items. */
export async function inSlices<T>(items: Iterable<T>, each: (item: T, i: number) => void, pause: Pause = yieldToEventLoop, size = SLICE_SIZE): Promise<void> {
  let i = 0;
  let began = performance.now();
  for (const item of items) {
    each(item, i++);
    if (i % size === 0) {
      await pause(performance.now() - began);
      began = performance.now();
    }
  }
}
