import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildServer } from '../../src/embedded/childServer.js';
import { startRedisServer } from '../../src/embedded/redisServer.js';
import { holdTokenKey, holdTokenLiveKey } from '../../src/inventory/holdTokenKeys.js';
import { Scripts } from '../../src/inventory/scripts.js';
import { RedisMonitor } from '../support/redisMonitor.js';

// The scripts' calls written as EVALSHA bytes (src/inventory/scriptWire.ts) on a Redis of the
// test's own, which starts without any script: a call Redis answers NOSCRIPT goes again through
// ioredis's script command, which loads the script, and later calls are EVALSHA alone.

let dir: string;
let server: ChildServer;
let redis: Redis;
let scripts: Scripts;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'script-wire-'));
  server = await startRedisServer({ dir, appendOnly: false });
  redis = new Redis(server.url, { keyPrefix: 'wire:' });
  scripts = new Scripts(redis);
});

afterAll(async () => {
  await redis.quit();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The commands Redis ran while `run` ran, as their names, until one named `last` (case-insensitive). */
async function commandsWhile(run: () => Promise<unknown>, last: string): Promise<string[]> {
  const monitor = await RedisMonitor.open(server.url);
  try {
    await run();
    await monitor.seen((args) => args[0]!.toLowerCase() === last);
    return monitor.commands.map((args) => args[0]!.toLowerCase());
  } finally {
    monitor.close();
  }
}

const createToken = (token: string, workspaceId = 7) =>
  scripts.createHoldToken(holdTokenKey(token), holdTokenLiveKey(token), workspaceId, 1_000, Date.now() + 60_000, Date.now() + 120_000);

describe('script calls as EVALSHA bytes', () => {
  it('loads a script Redis does not have through the fallback, then calls it by its SHA alone, keys prefixed', async () => {
    const first = await commandsWhile(async () => expect(await createToken('t1')).toBe(1), 'hset');
    // EVALSHA answered NOSCRIPT without running; EVAL ran it once.
    expect(first.filter((name) => name === 'evalsha' || name === 'eval')).toEqual(['evalsha', 'eval']);
    expect(first.filter((name) => name === 'hset')).toHaveLength(1);
    const second = await commandsWhile(async () => expect(await createToken('t2', 8)).toBe(1), 'hset');
    expect(second.filter((name) => name === 'evalsha' || name === 'eval')).toEqual(['evalsha']);
    // Keys with the connection's prefix, as ioredis writes them; the arguments as given.
    const plain = new Redis(server.url);
    try {
      expect(await plain.hgetall('wire:holdToken:{t2}')).toMatchObject({ workspaceId: '8', createdAt: '1000' });
      expect(await plain.exists('wire:holdToken:{t2}:live', 'holdToken:{t2}')).toBe(1);
    } finally {
      plain.disconnect();
    }
  });

  it('answers a reply of the script as ioredis did, and an error as an error', async () => {
    await createToken('t3');
    const event = 'tag:12';
    expect(await scripts.holdTokenForEvent('holdToken:{t3}', 'holdToken:{t3}:events', 7, Date.now(), event, 60_000)).toBeGreaterThan(Date.now());
    // Another workspace's token: 0, nothing written.
    expect(await scripts.holdTokenForEvent('holdToken:{t3}', 'holdToken:{t3}:events', 9, Date.now(), event, 60_000)).toBe(0);
    // A key of the wrong type: Redis's error, not an answer.
    await redis.set('holdToken:{t4}', 'not a hash');
    await expect(createToken('t4')).rejects.toThrow(/WRONGTYPE/);
    // Too few keys never reach Redis.
    await expect((scripts as unknown as { call(name: string, keys: string[], args: unknown[]): Promise<unknown> }).call('createHoldToken', ['k'], [])).rejects.toThrow(/takes 2 keys/);
  });

  it('loads the scripts again after Redis lost them (SCRIPT FLUSH), with nothing lost', async () => {
    await createToken('t5');
    await redis.script('FLUSH');
    const commands = await commandsWhile(async () => expect(await createToken('t6')).toBe(1), 'hset');
    expect(commands.filter((name) => name === 'hset')).toHaveLength(1);
    expect(await redis.hget('holdToken:{t6}', 'workspaceId')).toBe('7');
    expect(await createToken('t7')).toBe(1);
  });
});
