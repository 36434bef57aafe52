import { describe, expect, it } from 'vitest';
import { useServerWithCompany } from '../support/harness.js';

describe('hold tokens', () => {
  const ctx = useServerWithCompany('shared');

  it('creates a token with the company hold period by default', async () => {
    const before = Date.now();
    const created = await ctx.api.post('/hold-tokens', {});
    expect(created.status).toBe(200);
    expect(created.body.holdToken).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(created.body.workspaceKey).toBe(ctx.company.workspace.key);
    expect(created.body.expiresInSeconds).toBeGreaterThan(15 * 60 - 5);
    expect(created.body.expiresInSeconds).toBeLessThanOrEqual(15 * 60);
    const expiresAt = Date.parse(created.body.expiresAt);
    expect(expiresAt - before).toBeGreaterThanOrEqual(15 * 60_000 - 1000);

    const retrieved = await ctx.api.get(`/hold-tokens/${created.body.holdToken}`);
    expect(retrieved.status).toBe(200);
    expect(retrieved.body.expiresAt).toBe(created.body.expiresAt);
  });

  it('creates a token without a body and with expiresInMinutes', async () => {
    expect((await ctx.api.post('/hold-tokens')).status).toBe(200);
    const token = await ctx.api.post('/hold-tokens', { expiresInMinutes: 5 });
    expect(token.body.expiresInSeconds).toBeGreaterThan(5 * 60 - 5);
    expect(token.body.expiresInSeconds).toBeLessThanOrEqual(5 * 60);
  });

  it('rejects expiry outside 1..120 minutes and wrong types, creating nothing', async () => {
    for (const body of [{ expiresInMinutes: 0 }, { expiresInMinutes: 121 }, { expiresInMinutes: 'ten' }, { expiresInMinutes: 1.5 }]) {
      const response = await ctx.api.post('/hold-tokens', body);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].code).toBe('GENERAL_ERROR');
      expect(response.body.messages[0]).toContain('expiresInMinutes');
    }
  });

  it('changes the expiry, caps the total life at 2 hours and expires at 0', async () => {
    const { body: token } = await ctx.api.post('/hold-tokens', { expiresInMinutes: 1 });
    const longer = await ctx.api.post(`/hold-tokens/${token.holdToken}`, { expiresInMinutes: 30 });
    expect(longer.status).toBe(200);
    expect(longer.body.expiresInSeconds).toBeGreaterThan(30 * 60 - 5);

    // Created a moment ago, so 120 more minutes is past 2 hours from creation; 119 fits.
    const tooLong = await ctx.api.post(`/hold-tokens/${token.holdToken}`, { expiresInMinutes: 120 });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0].code).toBe('HOLD_TOKEN_MAX_LIFETIME');
    expect((await ctx.api.get(`/hold-tokens/${token.holdToken}`)).body.expiresAt).toBe(longer.body.expiresAt);
    const longest = await ctx.api.post(`/hold-tokens/${token.holdToken}`, { expiresInMinutes: 119 });
    expect(longest.status).toBe(200);
    expect(longest.body.expiresInSeconds).toBeGreaterThan(118 * 60);

    const expired = await ctx.api.post(`/hold-tokens/${token.holdToken}`, { expiresInMinutes: 0 });
    expect(expired.status).toBe(200);
    expect(expired.body.expiresInSeconds).toBe(0);
    expect((await ctx.api.get(`/hold-tokens/${token.holdToken}`)).status).toBe(404);
    // An expired token is never revived.
    const revived = await ctx.api.post(`/hold-tokens/${token.holdToken}`, { expiresInMinutes: 10 });
    expect(revived.status).toBe(404);
    expect(revived.body.errors[0].code).toBe('HOLD_TOKEN_NOT_FOUND');
  });

  it('answers 404 for unknown tokens and for tokens of another workspace', async () => {
    expect((await ctx.api.get('/hold-tokens/doesNotExist')).status).toBe(404);
    const { api: otherApi } = await ctx.freshCompany();
    const { body: token } = await otherApi.post('/hold-tokens', {});
    const foreign = await ctx.api.get(`/hold-tokens/${token.holdToken}`);
    expect(foreign.status).toBe(404);
    expect((await ctx.api.post(`/hold-tokens/${token.holdToken}`, { expiresInMinutes: 3 })).status).toBe(404);
  });

  it('uses a changed company hold period for new tokens', async () => {
    const { api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
    expect((await ownAdmin.post('/accounts/me/actions/change-hold-period', { holdPeriodInMinutes: 42 })).status).toBe(204);
    const token = await ownApi.post('/hold-tokens', {});
    expect(token.body.expiresInSeconds).toBeGreaterThan(42 * 60 - 5);
    expect(token.body.expiresInSeconds).toBeLessThanOrEqual(42 * 60);
  });
});
