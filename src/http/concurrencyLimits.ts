import { rateLimitExceeded } from '../domain/errors.js';
import type { Lane } from './route.js';

// seats.io's concurrency limits (docs/operations.md, "Concurrency limits"): a company may have at most so
// many requests of each lane in flight at once, counted from when a request is authenticated
// until it is answered and its work has ended; one more is answered 429 RATE_LIMIT_EXCEEDED
// before its handler runs, so it changes nothing. Off unless configured.
//
// Counted in this process only: a count in Redis would cost every request two more round
// trips, and the counts of a process that died would stay taken until something expired
// them. With N server processes a company may therefore have up to N times the limit in
// flight. Per request this is one Map lookup and one integer change when it is admitted and
// again when it is done; a company with nothing in flight has no entry.

/** Limits per lane; 0: that lane has none. */
export interface LaneLimits {
  priority: number;
  regular: number;
}

/**
 * What a refused request is told to wait before retrying: whatever filled the lane is
 * usually answered within milliseconds, and the SDKs back off on their own (0.4 s, 0.8 s, ...).
 */
const RETRY_AFTER_SECONDS = 1;

// One error for every refusal: refusals come in floods, and an error answer is never changed.
const REFUSED = rateLimitExceeded(RETRY_AFTER_SECONDS);

/** The 429 in the API description, for every route that knows its company (the legacy calls add it themselves). */
export const CONCURRENCY_ERROR = "with a concurrency limit set: the company already has that many requests of this route's lane in flight (Retry-After)";

export class ConcurrencyLimits {
  /** Per lane: company id -> requests in flight (absent: none). */
  private readonly counts: Record<Lane, Map<number, number>> = { priority: new Map(), regular: new Map() };

  constructor(private readonly limits: LaneLimits) {}

  /**
   * Takes one of the company's places in the lane: true when taken (give it back with
   * `give`), false when the lane has no limit (nothing counted). Throws the 429 when the
   * company already has the limit in flight.
   */
  take(companyId: number, lane: Lane): boolean {
    const limit = this.limits[lane];
    if (limit === 0) return false;
    const counts = this.counts[lane];
    const inFlight = counts.get(companyId) ?? 0;
    if (inFlight >= limit) throw REFUSED;
    counts.set(companyId, inFlight + 1);
    return true;
  }

  /** Gives back a place `take` gave. */
  give(companyId: number, lane: Lane): void {
    const counts = this.counts[lane];
    const inFlight = counts.get(companyId) ?? 0;
    if (inFlight <= 1) counts.delete(companyId);
    else counts.set(companyId, inFlight - 1);
  }

  /** The company's requests of the lane in flight (counted only while the lane has a limit). */
  inFlight(companyId: number, lane: Lane): number {
    return this.counts[lane].get(companyId) ?? 0;
  }
}
