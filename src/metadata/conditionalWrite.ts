import type { Collection, Filter, MatchKeysAndValues } from 'mongodb';
import { ApiError } from '../domain/errors.js';

// Read-decide-write loops over documents carrying a `version` field. A failed conditional
// write means another write won, so retrying always makes progress; the bound only stops a
// pathological pile-up. Jitter spreads the retries of concurrent writers apart.

const MAX_ATTEMPTS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `attempt` until it returns a value (its conditional write won). `attempt` returns
 * undefined when its write lost to a concurrent change and must re-read and decide again.
 */
export async function untilWritten<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== undefined) return result;
    await sleep(Math.random() * Math.min(20, 2 * (i + 1)));
  }
  throw new ApiError(409, 'CONCURRENT_MODIFICATION', `${what} is being changed by other requests; try again`);
}

/** A document written only through `setIfUnchanged`. */
export interface Versioned {
  _id: number;
  version: number;
}

/**
 * Sets `fields` and bumps `version`, only if the document is still at the version `doc`
 * was read at. False when a concurrent write got there first (the caller re-reads).
 */
export async function setIfUnchanged<D extends Versioned>(collection: Collection<D>, doc: D, fields: Partial<D>): Promise<boolean> {
  const result = await collection.updateOne({ _id: doc._id, version: doc.version } as Filter<D>, {
    $set: { ...fields, version: doc.version + 1 } as MatchKeysAndValues<D>,
  });
  return result.modifiedCount === 1;
}
