import type { HoldToken, HoldTokenStore } from '../inventory/holdTokenStore.js';
import type { HoldExpiry } from '../jobs/holdExpiry.js';

// Hold tokens as the routes see them: the store, plus the token's expiry job following a
// change of its expiry (docs/hold-expiry.md).

export class HoldTokenService {
  constructor(
    private readonly store: HoldTokenStore,
    private readonly expiry: HoldExpiry,
  ) {}

  create(workspaceId: number, expiresInMinutes: number, now: number): Promise<HoldToken> {
    return this.store.create(workspaceId, expiresInMinutes, now);
  }

  get(workspaceId: number, token: string, now: number): Promise<HoldToken> {
    return this.store.get(workspaceId, token, now);
  }

  /** 0 minutes expires the token now; its holds in every event and its expiry job move with it. */
  async changeExpiry(workspaceId: number, token: string, expiresInMinutes: number, now: number): Promise<HoldToken> {
    const changed = await this.store.changeExpiry(workspaceId, token, expiresInMinutes, now);
    await this.expiry.moved(token, changed.expiresAt);
    return changed;
  }
}
