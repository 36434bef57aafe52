import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { StatusWire, type StatusReceiver } from '../../src/inventory/statusWire.js';

// The status call's hand-made RESP text must be what ioredis would write for the same FCALL.

const asIoredisWrites = (functionName: string, keyPrefix: string, keys: string[], args: (string | number)[]) =>
  new Command('fcall', [functionName, keys.length, ...keys, ...args], { keyPrefix }).toWritable(undefined as never);

const nowhere: StatusReceiver = { answer: () => undefined, fail: () => undefined };

/** The wire's command for `keys` whose last is the record key, as the tests below name them. */
const commandOf = (wire: StatusWire, keys: readonly string[], args: (string | number)[], receiver: StatusReceiver) =>
  wire.command(keys.slice(0, -1), [], keys[keys.length - 1]!, args, receiver);

describe('StatusWire', () => {
  it('writes the FCALL ioredis writes, key prefix on every key, labels in UTF-8', () => {
    const wire = new StatusWire('change_object_status_abc', 'test:');
    const keys = ['inv:{7}:7:objects', 'inv:{7}:7:history', 'inv:{7}:request:x1'];
    const args = [1764000000000, '{"l":"Ä-1 ✓"}', 12, 0];
    expect(commandOf(wire, keys, args, nowhere).wire).toBe(asIoredisWrites('change_object_status_abc', 'test:', keys, args));
    // A record key short or long (ASCII written byte by byte up to 32 characters, longer by Buffer).
    for (const record of ['r', 'inv:{7}:requests:x1:1', 'inv:{a-long-event-tag}:requests:AbCdEfGhIjKl:17640000000']) {
      expect(wire.command(keys.slice(0, -1), [], record, args, nowhere).wire).toBe(asIoredisWrites('change_object_status_abc', 'test:', [...keys.slice(0, -1), record], args));
    }
  });

  it('encodes a kept key again only as what it was; a new record key each call', () => {
    const wire = new StatusWire('f', '');
    const first = commandOf(wire, ['a', 'r1'], [1], nowhere).wire;
    const second = commandOf(wire, ['a', 'r2'], [1], nowhere).wire;
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
    commandOf(wire, ['a', 'r1'], [1], receiver).resolve([Buffer.from('x'), 1, [Buffer.from('A-1')]]);
    commandOf(wire, ['a', 'r2'], [1], receiver).resolve(1);
    commandOf(wire, ['a', 'r3'], [1], receiver).reject(new Error('ERR something'));
    const lost = commandOf(wire, ['a', 'r4'], [2], receiver);
    lost.reject(new Error('ERR Function not found'));
    expect(got).toEqual([
      ['answer', ['x', 1, ['A-1']]],
      ['answer', 1],
      ['fail', 'ERR something'],
    ]);
    expect(missing).toEqual([lost.wire]);
    expect(lost.promise).toBeUndefined();
  });

  // An event's kept (frozen) key list is encoded once and copied into each call: the call
  // is one Buffer, written as it is.
  it('copies the head of a frozen key list into each call, and writes the call as one Buffer', () => {
    const wire = new StatusWire('f', 'p:');
    const eventKeys = Object.freeze(['inv:{7}:7:objects', 'inv:{7}:7:history']);
    const args = [1764000000000, '{"l":"Ä-1"}', 12, 0, 0];
    const first = wire.command(eventKeys, [], 'inv:{7}:request:a', args, nowhere);
    const second = wire.command(eventKeys, [], 'inv:{7}:request:b', args, nowhere);
    expect(second.toWritable()).toBe(second.bytes);
    expect(second.wire).toBe(asIoredisWrites('f', 'p:', [...eventKeys, 'inv:{7}:request:b'], args));
    expect(first.wire).toBe(asIoredisWrites('f', 'p:', [...eventKeys, 'inv:{7}:request:a'], args));
    // Two calls, two Buffers of their own.
    expect(second.bytes.buffer === first.bytes.buffer && second.bytes.byteOffset < first.bytes.byteOffset + first.bytes.length).toBe(false);
    // A list that is not frozen may change: its head is made again for each call.
    const open = ['inv:{7}:7:objects'];
    const before = wire.command(open, [], 'r', [1], nowhere).wire;
    open.push('inv:{7}:7:history');
    expect(wire.command(open, [], 'r', [1], nowhere).wire).not.toBe(before);
    expect(wire.command(open, [], 'r', [1], nowhere).wire).toBe(asIoredisWrites('f', 'p:', [...open, 'r'], [1]));
  });

  // A hold whose token the function checks carries the token's keys before the record key
  // (src/inventory/statusContract.ts, TOKEN_KEYS): the same kept list makes a head of its own for them.
  it('writes keys between a kept list and the record key, prefixed, and keeps the head without them apart', () => {
    const wire = new StatusWire('f', 'p:');
    const eventKeys = Object.freeze(['inv:{7}:7:objects', 'inv:{7}:7:history']);
    const args = [1764000000000, '', 12, 0, 0];
    const tokenKeys = ['holdToken:{Ab3}', 'holdToken:{Ab3}:events'];
    for (let round = 0; round < 2; round++) {
      expect(wire.command(eventKeys, tokenKeys, 'r1', args, nowhere).wire).toBe(asIoredisWrites('f', 'p:', [...eventKeys, ...tokenKeys, 'r1'], args));
      expect(wire.command(eventKeys, [], 'r2', args, nowhere).wire).toBe(asIoredisWrites('f', 'p:', [...eventKeys, 'r2'], args));
    }
  });

  // Calls are cut from a shared slab: thousands of calls, some with long UTF-8 requests that
  // do not fit what is left of it, each keep their own bytes.
  it('keeps every call its own bytes across slabs', () => {
    const wire = new StatusWire('f', 'p:');
    const keys = Object.freeze(['k']);
    const made = Array.from({ length: 3000 }, (_, i) => {
      const args = [i, i % 97 === 0 ? '✓'.repeat(5000 + i) : `{"l":"A-${i}"}`, 0];
      return { command: wire.command(keys, [], `r${i}`, args, nowhere), args, i };
    });
    for (const { command, args, i } of made) expect(command.wire).toBe(asIoredisWrites('f', 'p:', ['k', `r${i}`], args));
  });
});
