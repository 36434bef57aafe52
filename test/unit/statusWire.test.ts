import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { StatusWire } from '../../src/inventory/statusWire.js';

// The status call's hand-made RESP text must be what ioredis would write for the same FCALL.

const asIoredisWrites = (functionName: string, keyPrefix: string, keys: string[], args: (string | number)[]) =>
  new Command('fcall', [functionName, keys.length, ...keys, ...args], { keyPrefix }).toWritable(undefined as never);

describe('StatusWire', () => {
  it('writes the FCALL ioredis writes, key prefix on every key, labels in UTF-8', () => {
    const wire = new StatusWire('change_object_status_abc', 'test:');
    const keys = ['inv:{7}:7:objects', 'inv:{7}:7:history', 'inv:{7}:request:x1'];
    const args = [1764000000000, '{"l":"Ä-1 ✓"}', 12, 0];
    expect(wire.command(keys, args).toWritable(undefined as never)).toBe(asIoredisWrites('change_object_status_abc', 'test:', keys, args));
  });

  it('encodes a kept key again only as what it was; a new record key each call', () => {
    const wire = new StatusWire('f', '');
    const first = wire.command(['a', 'r1'], [1]).toWritable(undefined as never);
    const second = wire.command(['a', 'r2'], [1]).toWritable(undefined as never);
    expect(first).toBe(asIoredisWrites('f', '', ['a', 'r1'], [1]));
    expect(second).toBe(asIoredisWrites('f', '', ['a', 'r2'], [1]));
  });
});
