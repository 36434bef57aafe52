// Where a used (billed) object label is kept: the labels an event used in a month are
// spread over a fixed number of small bucket keys (see src/inventory/usedObjects.ts and
// lua/includes/usedObjects.lua), chosen here without I/O.

/** Labels per bucket key: Redis keeps a hash of up to 128 short fields as a compact listpack. */
const LABELS_PER_BUCKET = 48;
const MAX_BUCKETS = 8192;

/** Bucket keys for an event of `objectCount` objects, fixed when the event is created. */
export function usedBucketsFor(objectCount: number): number {
  let buckets = 1;
  while (buckets * LABELS_PER_BUCKET < objectCount && buckets < MAX_BUCKETS) buckets *= 2;
  return buckets;
}

const DIGIT_0 = 48;
const DIGIT_9 = 57;
const HASH_SIGN = 35;

/** FNV-1a of the characters from..to of a string, continuing from `hash`. */
function fnv(hash: number, text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * The bucket of a label: FNV-1a of the label with its trailing number divided by 16
 * (`<text before the number>#<number / 16, rounded down>`), so seats next to each other in
 * a row (A-1 .. A-15) share a bucket and a request for a few of them writes one bucket key,
 * not one per seat. Only this writer needs the spread, but a label must keep its bucket
 * across versions (a month's count adds the buckets up): test/unit/usedBuckets.test.ts
 * pins some. Hashed in place rather than through a regular expression and a joined key:
 * every booking asks for each of its objects.
 */
function usedBucket(label: string, buckets: number): number {
  let start = label.length;
  while (start > 0) {
    const code = label.charCodeAt(start - 1);
    if (code < DIGIT_0 || code > DIGIT_9) break;
    start--;
  }
  let hash = 0x811c9dc5;
  if (start === label.length) {
    hash = fnv(hash, label, 0, label.length);
  } else {
    hash = fnv(hash, label, 0, start);
    hash = Math.imul(hash ^ HASH_SIGN, 0x01000193);
    if (label.length - start <= SHORT_NUMBER_DIGITS) {
      hash = fnvGroup(hash, label, start);
    } else {
      const group = String(Math.floor(Number(label.slice(start)) / 16));
      hash = fnv(hash, group, 0, group.length);
    }
  }
  return (hash >>> 0) % buckets;
}

/** Trailing numbers of up to this many digits are read in place (they fit 32 bits); longer ones through a text. */
const SHORT_NUMBER_DIGITS = 9;

/** FNV-1a continued over the decimal digits of the number from `start` on divided by 16, read in place. */
function fnvGroup(hash: number, label: string, start: number): number {
  let number = 0;
  for (let i = start; i < label.length; i++) number = number * 10 + (label.charCodeAt(i) - DIGIT_0);
  const group = (number / 16) | 0;
  let unit = 1;
  while (unit * 10 <= group) unit *= 10;
  for (; unit >= 1; unit = (unit / 10) | 0) hash = Math.imul(hash ^ (DIGIT_0 + (((group / unit) | 0) % 10)), 0x01000193);
  return hash;
}

/** The labels grouped by their bucket: bucket number -> labels. */
export function byUsedBucket(labels: Iterable<string>, buckets: number): Map<number, string[]> {
  const grouped = new Map<number, string[]>();
  for (const label of labels) {
    const bucket = usedBucket(label, buckets);
    const list = grouped.get(bucket);
    if (list) list.push(label);
    else grouped.set(bucket, [label]);
  }
  return grouped;
}

/** The UTC month `YYYY-MM` of a time. Every status change asks, so the last answer is kept. */
let lastMonth = { from: 0, to: -1, month: '' };
export function monthOf(time: number): string {
  if (time >= lastMonth.from && time < lastMonth.to) return lastMonth.month;
  const date = new Date(time);
  const from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
  const to = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  lastMonth = { from, to, month: date.toISOString().slice(0, 7) };
  return lastMonth.month;
}
