import { scanKeys, type RedisClient } from './redis.js';
import { randomId } from '../util/randomIds.js';
import { badRequest, notFound } from '../domain/errors.js';
import { tokenEntryExpiry, tokenEntryLabels } from '../domain/objectStates.js';
import { eventKeys, holdTokensKeyEvent, type EventRef } from './eventKeys.js';
import { eventEntry, holdTokenEventsKey, holdTokenKey, holdTokenLiveKey, KEPT_FOR_MS, MAX_HOLD_TOKEN_LIFETIME_MS, RETENTION_AFTER_MAX_LIFETIME_MS } from './holdTokenKeys.js';
import type { Scripts } from './scripts.js';

// Hold tokens tie held objects to one buyer. A token is a Redis hash tagged by the token
// itself (src/inventory/holdTokenKeys.ts); the hold scripts of an event get what they need
// of a token as arguments.

export interface HoldToken {
  token: string;
  workspaceId: number;
  createdAt: number;
  expiresAt: number;
}

/** An entry of a token's events set: the event's hash tag and id are all its keys need. */
function eventOfEntry(entry: string): EventRef {
  const at = entry.lastIndexOf(':');
  return { tag: entry.slice(0, at), _id: Number(entry.slice(at + 1)) };
}

const notFoundError = (token: string) => notFound('HOLD_TOKEN_NOT_FOUND', `Hold token not found or expired: ${token}`);
/** A status change carrying a token that is unknown here, of another workspace, or expired. */
export const refused = (token: string) => badRequest('HOLD_TOKEN_NOT_FOUND', `Hold token not found or expired: ${token}`);

/** A token's entry in one event's holdTokens hash. */
export interface TokenInEvent {
  event: EventRef;
  token: string;
}

export class HoldTokenStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly scripts: Scripts,
    /** The deployment's REDIS_KEY_PREFIX: SCAN patterns and replies carry it, commands add it. */
    private readonly keyPrefix = '',
  ) {}

  async create(workspaceId: number, expiresInMinutes: number, now: number): Promise<HoldToken> {
    const token: HoldToken = {
      token: randomId(16),
      workspaceId,
      createdAt: now,
      expiresAt: Math.round(now + expiresInMinutes * 60_000),
    };
    await this.scripts.createHoldToken(holdTokenKey(token.token), holdTokenLiveKey(token.token), workspaceId, token.createdAt, token.expiresAt, now + KEPT_FOR_MS);
    return token;
  }

  /** The token if it belongs to the workspace and has not expired; else 404. */
  async get(workspaceId: number, token: string, now: number): Promise<HoldToken> {
    const [owner, createdAt, expiresAt] = await this.redis.hmget(holdTokenKey(token), 'workspaceId', 'createdAt', 'expiresAt');
    if (owner !== String(workspaceId) || Number(expiresAt) <= now) throw notFoundError(token);
    return { token, workspaceId, createdAt: Number(createdAt), expiresAt: Number(expiresAt) };
  }

  /**
   * The expiry of a token about to hold objects of an event; 400 if the token is unknown
   * in the workspace or expired, and then nothing is written. Remembers the event, so a
   * later expiry change reaches it.
   */
  async expiryForHold(workspaceId: number, token: string, event: EventRef, now: number): Promise<number> {
    const expiresAt = await this.scripts.holdTokenForEvent(holdTokenKey(token), holdTokenEventsKey(token), workspaceId, now, eventEntry(event), KEPT_FOR_MS);
    if (expiresAt === 0) throw refused(token);
    return expiresAt;
  }

  /** The expiry of a token a book, release or status change carries; 400 as for a hold. */
  async expiryForChange(workspaceId: number, token: string, now: number): Promise<number> {
    const [owner, expiresAt] = await this.redis.hmget(holdTokenKey(token), 'workspaceId', 'expiresAt');
    if (owner !== String(workspaceId) || Number(expiresAt) <= now) throw refused(token);
    return Number(expiresAt);
  }

  /** 0 minutes expires the token now; the total life stays within two hours of creation. */
  async changeExpiry(workspaceId: number, token: string, expiresInMinutes: number, now: number): Promise<HoldToken> {
    const result = await this.scripts.changeHoldTokenExpiry(
      holdTokenKey(token),
      holdTokenLiveKey(token),
      workspaceId,
      now,
      Math.round(now + expiresInMinutes * 60_000),
      MAX_HOLD_TOKEN_LIFETIME_MS,
      RETENTION_AFTER_MAX_LIFETIME_MS,
    );
    if (result[0] === 0) throw notFoundError(token);
    if (result[0] === -1) {
      const minutesLeft = Math.floor((result[1]! - now) / 60_000);
      throw badRequest(
        'HOLD_TOKEN_MAX_LIFETIME',
        `A hold token lives at most 2 hours from its creation; this one can expire in at most ${minutesLeft} minutes`,
      );
    }
    await this.retimeHolds(token, result[2]!);
    return { token, workspaceId, createdAt: result[1]!, expiresAt: result[2]! };
  }

  /** Moves the token's holds in every event it holds something in to its new expiry. */
  private async retimeHolds(token: string, expiresAt: number): Promise<void> {
    const events = await this.eventsHeldIn(token);
    await Promise.all(
      events.map((event) => {
        const keys = eventKeys(event);
        return this.scripts.retimeHoldToken(keys.holdTokens, keys.gaHoldExpiry, token, expiresAt);
      }),
    );
  }

  /** The events the token held something in (while its record is kept). */
  async eventsHeldIn(token: string): Promise<EventRef[]> {
    return (await this.redis.smembers(holdTokenEventsKey(token))).map(eventOfEntry);
  }

  /** Milliseconds until the token expires by its live key; 0 when it has expired (or never existed). */
  async msUntilExpiry(token: string): Promise<number> {
    return Math.max(0, await this.redis.pttl(holdTokenLiveKey(token)));
  }

  /** The token's expiry (ms epoch) by its record, or null once the record is gone. */
  async expiryOf(token: string): Promise<number | null> {
    const expiresAt = await this.redis.hget(holdTokenKey(token), 'expiresAt');
    return expiresAt === null ? null : Number(expiresAt);
  }

  /** Every event's entries of tokens that expired before `before`, a key's worth at a time. */
  async *expiredEntries(before: number): AsyncGenerator<TokenInEvent[]> {
    for await (const keys of scanKeys(this.redis, `${this.keyPrefix}inv:*:holdTokens`)) {
      for (const key of keys) {
        const event = holdTokensKeyEvent(key.slice(this.keyPrefix.length));
        if (!event) continue;
        const entries = await this.redis.hgetall(eventKeys(event).holdTokens);
        const expired = Object.keys(entries).filter((token) => tokenEntryExpiry(entries[token]) < before);
        if (expired.length > 0) yield expired.map((token) => ({ event, token }));
      }
    }
  }

  /** Every event's entries of tokens that hold something, with the expiry each entry says, a key's worth at a time. */
  async *holdingEntries(): AsyncGenerator<{ token: string; expiresAt: number }[]> {
    for await (const keys of scanKeys(this.redis, `${this.keyPrefix}inv:*:holdTokens`)) {
      for (const key of keys) {
        const event = holdTokensKeyEvent(key.slice(this.keyPrefix.length));
        if (!event) continue;
        const entries = await this.redis.hgetall(eventKeys(event).holdTokens);
        const holding = Object.keys(entries).filter((token) => tokenEntryLabels(entries[token]).length > 0);
        if (holding.length > 0) yield holding.map((token) => ({ token, expiresAt: tokenEntryExpiry(entries[token]) }));
      }
    }
  }

  /**
   * Whether the token holds anything in any event it is entered in, read only: an entry that
   * holds nothing yet may be the one an expiry change just retimed for a hold checked before
   * it and applied after, which must find it (holdsAnything would drop it).
   */
  holdsSomething(token: string): Promise<boolean> {
    return this.inAnyEvent(token, async (key) => tokenEntryLabels((await this.redis.hget(key, token)) ?? undefined).length > 0);
  }

  /** Whether the token holds anything in any event it held in; entries holding nothing are dropped on the way. */
  holdsAnything(token: string): Promise<boolean> {
    return this.inAnyEvent(token, async (key) => (await this.scripts.dropIdleHoldToken(key, token)) === 1);
  }

  /** Whether `check` holds for the token in some event it is entered in (each event's holdTokens key, all at once). */
  private async inAnyEvent(token: string, check: (holdTokensKey: string) => Promise<boolean>): Promise<boolean> {
    const events = await this.eventsHeldIn(token);
    return (await Promise.all(events.map((event) => check(eventKeys(event).holdTokens)))).some(Boolean);
  }
}
