// The daily limit on for-sale changes of an event: which UTC day a call counts on, when
// the count starts again, and what the caller is told. The counter itself is in Redis
// (src/inventory/eventConfigStore.ts).

export const FOR_SALE_EDITS_PER_DAY = 10;

export interface RateLimitInfo {
  allowed: boolean;
  rateLimitRemainingCalls: number;
  /** Start of the next UTC day, when the count starts again. */
  rateLimitResetDate: Date;
}

/** The UTC day of `now` and the start of the next one, when the count starts again. */
export function dayOf(now: number): { day: string; reset: Date } {
  const day = new Date(now).toISOString().slice(0, 10);
  const reset = new Date(`${day}T00:00:00.000Z`);
  reset.setUTCDate(reset.getUTCDate() + 1);
  return { day, reset };
}

export function limitInfo(count: number, reset: Date, counting: boolean): RateLimitInfo {
  return {
    // Counting: this call is already in `count`. Peeking: one more must still fit.
    allowed: counting ? count <= FOR_SALE_EDITS_PER_DAY : count < FOR_SALE_EDITS_PER_DAY,
    rateLimitRemainingCalls: Math.max(0, FOR_SALE_EDITS_PER_DAY - count),
    rateLimitResetDate: reset,
  };
}

