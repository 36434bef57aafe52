// With `--target`, the one origin the bench may send requests to (docs/benchmarks.md, "Against
// your own deployment"): measure() and the admin calls check every URL against it, so a
// scenario that built an address of its own fails before it sends anything there.

let only: string | undefined;

/** From now on, requests go to `origin` (scheme, host and port) alone. */
export function sendOnlyTo(origin: string): void {
  only = origin;
}

/** Throws for a URL outside the origin set by sendOnlyTo (any URL while none is set). */
export function checkOrigin(url: string): void {
  if (only === undefined) return;
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    throw new Error(`refusing to send a request to "${url}": not a URL (the target is ${only})`);
  }
  if (origin !== only) throw new Error(`refusing to send a request to ${origin}: the bench sends requests to the target ${only} only`);
}
