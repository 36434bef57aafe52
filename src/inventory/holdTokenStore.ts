import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { badRequest, notFound } from '../domain/errors.js';
import { eventKeys, type EventRef } from './eventKeys.js';
import type { Scripts } from './scripts.js';

// Hold tokens tie held objects to one buyer. A token is a Redis hash tagged by the token
// itself, so tokens spread over a cluster instead of crowding one workspace's slot; the
// hold scripts of an event get what they need of a token as arguments.

export const MAX_HOLD_TOKEN_LIFETIME_MS = 2 * 60 * 60 * 1000;
/** Kept a while past its maximum life so a late request gets "expired", not a reused id. */
const RETENTION_AFTER_MAX_LIFETIME_MS = 60 * 60 * 1000;
/** How long Redis keeps a token's keys after its creation. */
const KEPT_FOR_MS = MAX_HOLD_TOKEN_LIFETIME_MS + RETENTION_AFTER_MAX_LIFETIME_MS;

export interface HoldToken {
  token: string;
  workspaceId: number;
  createdAt: number;
  expiresAt: number;
}

export const holdTokenKey = (token: string) => `holdToken:{${token}}`;
/** set of `<tag>:<eventId>` of the events where the token held something, to retime them. */
export const holdTokenEventsKey = (token: string) => `holdToken:{${token}}:events`;

const notFoundError = (token: string) => notFound('HOLD_TOKEN_NOT_FOUND', `Hold token not found or expired: ${token}`);
/** A status change carrying a token that is unknown here, of another workspace, or expired. */
const refused = (token: string) => badRequest('HOLD_TOKEN_NOT_FOUND', `Hold token not found or expired: ${token}`);

export class HoldTokenStore {
  constructor(
    private readonly redis: Redis,
    private readonly scripts: Scripts,
  ) {}

  async create(workspaceId: number, expiresInMinutes: number, now: number): Promise<HoldToken> {
    const token: HoldToken = {
      token: randomBytes(16).toString('base64url'),
      workspaceId,
      createdAt: now,
      expiresAt: now + expiresInMinutes * 60_000,
    };
    await this.scripts.createHoldToken(holdTokenKey(token.token), workspaceId, token.createdAt, token.expiresAt, now + KEPT_FOR_MS);
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
    const expiresAt = await this.scripts.holdTokenForEvent(holdTokenKey(token), holdTokenEventsKey(token), workspaceId, now, `${event.tag}:${event._id}`, KEPT_FOR_MS);
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
      workspaceId,
      now,
      now + expiresInMinutes * 60_000,
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
    const events = await this.redis.smembers(holdTokenEventsKey(token));
    await Promise.all(
      events.map((entry) => {
        const at = entry.lastIndexOf(':');
        const keys = eventKeys({ tag: entry.slice(0, at), _id: Number(entry.slice(at + 1)) });
        return this.scripts.retimeHoldToken(keys.holdTokens, keys.gaHoldExpiry, token, expiresAt);
      }),
    );
  }
}
