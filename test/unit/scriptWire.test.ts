import { Command } from 'ioredis';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ScriptCall, ScriptWire } from '../../src/inventory/scriptWire.js';

// A script call's hand-made RESP must be what ioredis writes for the same EVALSHA.

const LUA = "return redis.call('GET', KEYS[1])";
const SHA = createHash('sha1').update(LUA).digest('hex');

const asIoredisWrites = (keyPrefix: string, keys: string[], args: (string | number)[]) =>
  new Command('evalsha', [SHA, keys.length, ...keys, ...args], { keyPrefix }).toWritable(undefined as never).toString();

const neverAgain = () => Promise.reject(new Error('not expected'));

describe('ScriptWire', () => {
  it('writes the EVALSHA ioredis writes: the key count, the key prefix on every key, numbers as digits, texts in UTF-8', () => {
    const wire = new ScriptWire(LUA, 'test:');
    const cases: [string[], (string | number)[]][] = [
      [['holdToken:{abc}', 'holdToken:{abc}:live'], [7, 1764000000000, 1764000900000, 1764010800000]],
      [['k'], []],
      [[], ['only', 'args']],
      [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'], [-1, 0.5, 2 ** 60, '', 'Ä-1 ✓', 'x'.repeat(100)]],
      [['ünïcode-key-longer-than-thirty-two-characters'], ['A-1\u0001B-2']],
    ];
    for (const [keys, args] of cases) expect(wire.bytes(keys, args).toString()).toBe(asIoredisWrites('test:', keys, args));
    expect(new ScriptWire(LUA, '').bytes(['k'], [1]).toString()).toBe(asIoredisWrites('', ['k'], [1]));
  });

  it('gives every call bytes of its own', () => {
    const wire = new ScriptWire(LUA, '');
    const first = wire.bytes(['a'], [1]);
    const second = wire.bytes(['b'], [2]);
    expect(first.toString()).toBe(asIoredisWrites('', ['a'], [1]));
    expect(second.toString()).toBe(asIoredisWrites('', ['b'], [2]));
  });

  // ioredis answers a command by calling its resolve or reject as methods.
  it('settles its promise with the reply, decoded, or the error; a missing script goes again through the fallback', async () => {
    const wire = new ScriptWire(LUA, '');
    const answered = new ScriptCall(wire.bytes(['a'], []), ['a'], [], neverAgain);
    answered.resolve(Buffer.from('value'));
    await expect(answered.promise).resolves.toBe('value');
    const failed = new ScriptCall(wire.bytes(['a'], []), ['a'], [], neverAgain);
    failed.reject(new Error('ERR wrong number of arguments'));
    await expect(failed.promise).rejects.toThrow('ERR wrong number of arguments');
    const fallbacks: unknown[] = [];
    const missing = new ScriptCall(wire.bytes(['a'], [3]), ['a'], [3], (keys, args) => {
      fallbacks.push([keys, args]);
      return Promise.resolve(42);
    });
    missing.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
    await expect(missing.promise).resolves.toBe(42);
    expect(fallbacks).toEqual([[['a'], [3]]]);
    const missingThenFailed = new ScriptCall(wire.bytes(['a'], []), ['a'], [], () => Promise.reject(new Error('ERR from EVAL')));
    missingThenFailed.reject(new Error('NOSCRIPT No matching script.'));
    await expect(missingThenFailed.promise).rejects.toThrow('ERR from EVAL');
  });
});
