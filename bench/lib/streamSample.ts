// Which of the status stream bench's subscribers are in its sample (bench/lib/streamSubscribers.ts).

/**
 * Whether the subscriber opened `index`-th is in the sample: `sampled` of `count`, spread evenly
 * over the order they open in. The server writes a frame to an event's subscribers in the order
 * they joined, a slice per turn of its event loop, so the first ones opened get each frame
 * first: a sample of those alone would time the best deliveries, not the spread of them all.
 */
export function isSampled(index: number, count: number, sampled: number): boolean {
  const stride = Math.max(1, Math.floor(count / Math.max(1, sampled)));
  return index % stride === 0 && index / stride < sampled;
}
