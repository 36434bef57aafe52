import { describe, expect, it } from 'vitest';
import { eventKeys } from '../../src/inventory/eventKeys.js';
import { action, createEvent, done } from '../support/events.js';
import { uploadDrawing } from '../support/charts.js';
import { eventually, testEnv } from '../support/harness.js';
import { drawing, holdExpiryHarness, ROWS, SEATS, seat, setUp } from '../support/holdExpiry.js';

// Hold expiry at scale (docs/hold-expiry.md): 10,000 holds, each on a token of its own,
// expiring within one second, all given back and recorded as HOLD_EXPIRED while the server
// keeps answering. Its own file, run against one redis-server: what it adds to
// holdExpiry.test.ts is load, not a Redis Cluster behaviour (that file runs on both).

const { server, redisOf, stored } = holdExpiryHarness();

describe('hold expiry at scale', () => {
  it('gives back 10,000 holds expiring within one second, records each, and keeps answering meanwhile', async () => {
    // 10,000 tokens made at once may wait longer than the default 2 s for Redis beside other test files.
    const env = testEnv({ REDIS_TIMEOUT_MS: '10000' });
    const app = await server(env);
    const setup = await setUp(app);
    const other = await createEvent(setup.clients.api, (await uploadDrawing(setup.clients.api, drawing)).key);
    const redis = redisOf(env);
    const keys = eventKeys(setup.ref);
    const api = setup.clients.api;
    const total = ROWS * SEATS;
    const workspaceId = setup.clients.company.workspace.id;
    const parts = app.app.parts;
    const tokens = await Promise.all(Array.from({ length: total }, () => parts.holdTokens.create(workspaceId, 10, Date.now())));

    // Every seat held by a token of its own, through the API.
    let next = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        for (let i = next++; i < total; i = next++) await done(api, setup.eventKey, 'hold', { objects: [seat(i)], holdToken: tokens[i]!.token });
      }),
    );
    expect(await redis.hlen(keys.objects)).toBe(total);

    // Then every token set to expire within one second, once all of them are set (10,000
    // expiry changes, each moving its job, take a few seconds on two cores, and over 15 s beside
    // other test files).
    const start = Date.now() + 30_000;
    next = 0;
    const service = parts.holdExpiry;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        for (let i = next++; i < total; i = next++) {
          const expiresAt = start + (i % 1_000);
          await parts.holdTokens.changeExpiry(workspaceId, tokens[i]!.token, (expiresAt - Date.now()) / 60_000, Date.now());
          await service.moved(tokens[i]!.token, expiresAt);
        }
      }),
    );
    expect(Date.now(), 'the expiry changes took longer than the margin before the first expiry').toBeLessThan(start);
    while (Date.now() < start - 200) await new Promise((r) => setTimeout(r, 50));

    // Bookings on another event go on while the holds are given back.
    const answered: number[] = [];
    let booking = 0;
    const sales = (async () => {
      while ((await redis.hlen(keys.objects)) > 0 && booking < total) {
        const response = await action(api, other, 'book', { objects: [seat(booking++)] });
        answered.push(response.status);
      }
    })();
    await eventually(async () => (await redis.hlen(keys.objects)) === 0, 60_000, 50);
    await sales;
    expect(answered.length).toBeGreaterThan(10);
    expect(answered.every((status) => status === 204)).toBe(true);
    expect(await redis.exists(keys.holdTokens)).toBe(0);

    await eventually(async () => (await stored(env.MONGODB_DB!, setup.ref._id)).length === 2 * total, 60_000, 200);
    const expired = (await stored(env.MONGODB_DB!, setup.ref._id)).filter((c) => c.origin.type === 'HOLD_EXPIRED');
    expect(expired).toHaveLength(total);
    expect(new Set(expired.map((c) => c.label)).size).toBe(total);
    expect(expired.every((c) => c.date.getTime() >= start && c.status === 'free')).toBe(true);
  }, 180_000);
});
