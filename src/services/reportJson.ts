import { inSlices, joinedParts, type Pause } from '../util/slices.js';

// The JSON of a detailed report, `{group: [item, ...]}`, written as the items are described
// (in slices, src/util/slices.ts): a 100,000-object report is never held as objects, and
// neither describing nor serialising it holds the event loop for long.

/**
 * Describes every object and groups the JSON texts: the `always` groups first (empty or
 * not), then the others as they turn up. With `only`, just that group (`[]` when empty).
 */
export async function groupedJson<T>(
  objects: readonly T[],
  describe: (object: T) => Record<string, unknown>,
  groupOf: (info: Record<string, unknown>) => string,
  always: string[],
  pause: Pause,
  only?: string,
): Promise<Buffer> {
  const groups = new Map<string, string[]>((only === undefined ? always : [only]).map((group) => [group, []]));
  await inSlices(objects, (object) => {
    const info = describe(object);
    const group = groupOf(info);
    if (only !== undefined && group !== only) return;
    let texts = groups.get(group);
    if (!texts) groups.set(group, (texts = []));
    texts.push(JSON.stringify(info));
  }, pause);
  const parts: Buffer[] = [Buffer.from('{')];
  let first = true;
  for (const [group, texts] of groups) {
    parts.push(...(await joinedParts(`${first ? '' : ','}${JSON.stringify(group)}:[`, texts, ']', pause)));
    first = false;
  }
  parts.push(Buffer.from('}'));
  return Buffer.concat(parts);
}
