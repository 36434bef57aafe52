import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { StatusWire, type StatusReceiver } from '../../src/inventory/statusWire.js';

// The status call's hand-made RESP text must be what ioredis would write for the same FCALL.

const asIoredisWrites = (functionName: string, keyPrefix: string, keys: string[], args: (string | number)[]) =>
  new Command('fcall', [functionName, keys.length, ...keys, ...args], { keyPrefix }).toWritable(undefined as never);

const nowhere: StatusReceiver = { answer: () => undefined, fail: () => undefined };

describe('StatusWire', () => {
  it('writes the FCALL ioredis writes, key prefix on every key, labels in UTF-8', () => {
    const wire = new StatusWire('change_object_status_abc', 'test:');
    const keys = ['inv:{7}:7:objects', 'inv:{7}:7:history', 'inv:{7}:request:x1'];
    const args = [1764000000000, '{"l":"Ä-1 ✓"}', 12, 0];
    expect(wire.command(keys, args, nowhere).toWritable(undefined as never)).toBe(asIoredisWrites('change_object_status_abc', 'test:', keys, args));
  });

  it('encodes a kept key again only as what it was; a new record key each call', () => {
    const wire = new StatusWire('f', '');
    const first = wire.command(['a', 'r1'], [1], nowhere).toWritable(undefined as never);
    const second = wire.command(['a', 'r2'], [1], nowhere).toWritable(undefined as never);
    expect(first).toBe(asIoredisWrites('f', '', ['a', 'r1'], [1]));
    expect(second).toBe(asIoredisWrites('f', '', ['a', 'r2'], [1]));
  });

  // ioredis answers a command by calling its resolve or reject as methods: a StatusCommand
  // passes the reply (decoded as UTF-8, as replyEncoding says) or the error to its receiver,
  // and a missing function to the hook that loads it again.
  it('hands the reply, decoded, or the error to its receiver; a missing function to its hook', () => {
    const got: unknown[] = [];
    const receiver: StatusReceiver = { answer: (reply) => got.push(['answer', reply]), fail: (error) => got.push(['fail', (error as Error).message]) };
    const missing: string[] = [];
    const wire = new StatusWire('f', '', (command) => missing.push(command.again().wire));
    wire.command(['a', 'r1'], [1], receiver).resolve([Buffer.from('x'), 1, [Buffer.from('A-1')]]);
    wire.command(['a', 'r2'], [1], receiver).resolve(1);
    wire.command(['a', 'r3'], [1], receiver).reject(new Error('ERR something'));
    const lost = wire.command(['a', 'r4'], [2], receiver);
    lost.reject(new Error('ERR Function not found'));
    expect(got).toEqual([
      ['answer', ['x', 1, ['A-1']]],
      ['answer', 1],
      ['fail', 'ERR something'],
    ]);
    expect(missing).toEqual([lost.wire]);
    expect(lost.promise).toBeUndefined();
  });
});
