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

const TRAILING_NUMBER = /^(.*\D)?(\d+)$/;

/**
 * The bucket of a label: FNV-1a of the label with its trailing number divided by 16, so
 * seats next to each other in a row (A-1 .. A-15) share a bucket and a request for a few
 * of them writes one bucket key, not one per seat. Only this writer needs the spread.
 */
function usedBucket(label: string, buckets: number): number {
  const numbered = TRAILING_NUMBER.exec(label);
  const key = numbered ? `${numbered[1] ?? ''}#${Math.floor(Number(numbered[2]) / 16)}` : label;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % buckets;
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
