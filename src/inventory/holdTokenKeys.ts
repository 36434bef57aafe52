import type { EventRef } from './eventKeys.js';

// Where a hold token lives in Redis and how long it is kept (docs/redis-layout.md, "Hold
// tokens"). A token is a Redis hash tagged by the token itself, so tokens spread over a
// cluster instead of crowding one workspace's slot. Apart from the store (holdTokenStore.ts),
// so that the status call's contract (statusContract.ts) and the call's builder
// (statusChanges.ts) name a token's keys without depending on the store.

export const MAX_HOLD_TOKEN_LIFETIME_MS = 2 * 60 * 60 * 1000;
/** Kept a while past its maximum life so a late request gets "expired", not a reused id. */
export const RETENTION_AFTER_MAX_LIFETIME_MS = 60 * 60 * 1000;
/** How long Redis keeps a token's keys after its creation. */
export const KEPT_FOR_MS = MAX_HOLD_TOKEN_LIFETIME_MS + RETENTION_AFTER_MAX_LIFETIME_MS;

export const holdTokenKey = (token: string) => `holdToken:{${token}}`;
/** set of `<tag>:<eventId>` of the events where the token held something, to retime and expire them. */
export const holdTokenEventsKey = (token: string) => `holdToken:{${token}}:events`;
/** string that lives exactly as long as the token: Redis's TTL is the token's expiry (docs/hold-expiry.md). */
export const holdTokenLiveKey = (token: string) => `holdToken:{${token}}:live`;

/** An event as its entry in a token's events set lists it: the event's hash tag and id are all its keys need. */
export const eventEntry = (event: EventRef) => `${event.tag}:${event._id}`;
