import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FinalState } from '../../bench/lib/finalState.js';
import { settle } from '../../bench/lib/settle.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import type { ChildServer } from '../../src/embedded/childServer.js';

// The bench's wait before each timed scenario (bench/lib/settle.ts), on a redis-server of its
// own with an append-only file: Redis's own rewrites turned off, it waits for the drain's
// pending streams, rewrites a file grown past 1.5 times its base and waits for the rewrite,
// and leaves a file that has not grown so far.

let dir: string;
let redis: ChildServer;
let client: Redis;
let state: FinalState;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seatsio-settle-'));
  redis = await startRedisServer({ dir, appendOnly: true });
  client = new Redis(redis.url);
  state = new FinalState([redis.url]);
});

afterAll(async () => {
  await state?.close();
  client?.disconnect();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `count` values of 1 KB that do not compress: each adds about that much to the append-only file. */
async function write(count: number, prefix: string): Promise<void> {
  const pipeline = client.pipeline();
  for (let i = 0; i < count; i++) pipeline.set(`${prefix}:${i}`, randomBytes(512).toString('hex'));
  await pipeline.exec();
}

describe('settling before a scenario', () => {
  it('turns Redis\'s own rewrites off for the run', async () => {
    await state.rewriteAppendOnlyFilesOnlyWhenAsked();
    expect(await client.config('GET', 'auto-aof-rewrite-percentage')).toEqual(['auto-aof-rewrite-percentage', '0']);
  });

  it('rewrites an append-only file grown past 1.5 times its base and waits for it; then leaves it alone', { timeout: 60_000 }, async () => {
    // A first rewrite sets the base: the file then holds what the data is.
    await write(2000, 'a');
    await client.bgrewriteaof();
    await expect.poll(async () => (await state.appendOnlyFiles())[0]!.rewriting, { timeout: 20_000 }).toBe(false);
    const [base] = await state.appendOnlyFiles();
    expect(base!.enabled).toBe(true);
    expect(base!.baseBytes).toBeGreaterThan(2000 * 1024);

    // The same again overwritten: the file doubles, the data does not.
    await write(2000, 'a');
    const [grown] = await state.appendOnlyFiles();
    expect(grown!.currentBytes).toBeGreaterThan(grown!.baseBytes * 1.5);
    const forksBefore = await state.forks();
    const settled = await settle(async () => 0, state);
    expect(settled.aofRewritten).toBe(true);
    expect(await state.forks()).toBe(forksBefore + 1);
    const [rewritten] = await state.appendOnlyFiles();
    expect(rewritten!.rewriting).toBe(false);
    expect(rewritten!.currentBytes).toBeLessThan(grown!.currentBytes);

    // A little more: under the mark, nothing is forked.
    await write(100, 'b');
    const again = await settle(async () => 0, state);
    expect(again.aofRewritten).toBe(false);
    expect(await state.forks()).toBe(forksBefore + 1);
  });

  it('waits until no stream is pending', async () => {
    const pending = [3, 2, 1, 0];
    let asked = 0;
    const settled = await settle(async () => pending[Math.min(asked++, pending.length - 1)]!, state);
    expect(asked).toBe(4);
    expect(settled.settleMs).toBeGreaterThanOrEqual(250);
  });
});
