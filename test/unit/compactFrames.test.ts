import { describe, expect, it } from 'vitest';
import { CHANGES, CONFLATED, FrameDecoder, frameRange, FrameWriter, SNAPSHOT, StatusTable } from '../../src/domain/compactFrames.js';
import { compactChanges, compactConflated, compactSnapshot, codeStatuses, type StreamChange, type StreamObject } from '../../src/domain/statusStreamView.js';

// The status stream's compact format (docs/status-stream.md, "Compact format"): what the
// server writes, the decoder every client uses reads back, byte for byte.

const LAYOUT = ['A-1', 'A-2', 'GA1', ...Array.from({ length: 200 }, (_, i) => `B-${i + 1}`)];
const positions = (label: string) => {
  const i = LAYOUT.indexOf(label);
  return i < 0 ? undefined : i;
};

describe('compact frames', () => {
  it('round-trip every kind of entry, with the status table they carry', () => {
    const table = new StatusTable();
    const changes: StreamChange[] = [
      { objectLabel: 'A-1', status: 'booked', quantity: 1, orderId: 'o-1' },
      { objectLabel: 'A-2', status: 'reservedByToken', quantity: 1, holdToken: 'tok' },
      { objectLabel: 'GA1', status: 'free', quantity: 3, booked: 5, held: 0 },
      { objectLabel: 'B-200', status: 'sold-at-door', quantity: 1 },
      { objectLabel: 'B-1', notForSale: 1 },
      { objectLabel: 'B-2', notForSale: 0 },
      { objectLabel: 'not-in-layout', status: 'booked', quantity: 1 },
    ];
    codeStatuses(changes, table);
    const frame = compactChanges(10, 16, changes, 'secret', positions, table, table.takeAdded());
    expect(frameRange(frame)).toEqual({ kind: CHANGES, from: 10, to: 16 });
    const decoder = new FrameDecoder();
    const decoded = decoder.decode(frame);
    expect(decoded).toEqual({
      kind: CHANGES,
      from: 10,
      to: 16,
      entries: [
        { position: 0, status: 'booked', orderId: 'o-1' },
        { position: 1, status: 'reservedByToken', holdToken: 'tok' },
        { position: 2, status: 'free', booked: 5, held: 0, quantity: 3 },
        { position: 202, status: 'sold-at-door' },
        { position: 3, notForSale: 1 },
        { position: 4, notForSale: 0 },
      ],
    });
    // The public audience's frame has neither hold tokens nor order ids.
    const publicFrame = new FrameDecoder().decode(compactChanges(10, 16, changes.slice(0, 2), 'public', positions, table, 'all'));
    expect(publicFrame.entries).toEqual([{ position: 0, status: 'booked' }, { position: 1, status: 'reservedByToken' }]);
  });

  it('carry a snapshot whole, with its layout version, and conflated states with free objects', () => {
    const table = new StatusTable();
    const view = new Map<string, StreamObject>([
      ['A-1', { status: 'booked', orderId: 'o' }],
      ['GA1', { status: 'free', booked: 2, held: 1, notForSale: 4 }],
      ['B-3', { status: 'free', notForSale: 1 }],
    ]);
    const decoder = new FrameDecoder();
    expect(decoder.decode(compactSnapshot(7, view, 'public', false, positions, table, 'abcdef0123456789'))).toEqual({
      kind: SNAPSHOT,
      from: 0,
      to: 7,
      layoutVersion: 'abcdef0123456789',
      entries: [
        { position: 0, status: 'booked' },
        { position: 2, status: 'free', booked: 2, held: 1, notForSale: 4 },
        { position: 5, status: 'free', notForSale: 1 },
      ],
    });
    const conflated = compactConflated(7, 12, [['A-1', undefined], ['B-4', { status: 'resale' }]], 'public', positions, table);
    expect(new FrameDecoder().decode(conflated)).toEqual({ kind: CONFLATED, from: 7, to: 12, entries: [{ position: 0, status: 'free' }, { position: 6, status: 'resale' }] });
  });

  it('write seq numbers up to 2^53, positions past a byte, and status codes past 61', () => {
    const table = new StatusTable();
    for (let i = 0; i < 70; i++) table.codeOf(`custom-${i}`);
    const big = 2 ** 53 - 1;
    const frame = new FrameWriter(CHANGES, big - 1, big, table, 'all');
    frame.entry(1_000_000, table.codeOf('custom-69'), {});
    frame.entry(5, table.codeOf('custom-10'), { quantity: 2 });
    const decoded = new FrameDecoder().decode(frame.done());
    expect(decoded.from).toBe(big - 1);
    expect(decoded.to).toBe(big);
    expect(decoded.entries).toEqual([{ position: 1_000_000, status: 'custom-69' }, { position: 5, status: 'custom-10', quantity: 2 }]);
  });

  it('cost a status byte and the position for a seat: 2 bytes below position 128, 3 below 16,384, 4 below 2,097,152', () => {
    const table = new StatusTable();
    const size = (position: number) => {
      const frame = new FrameWriter(CHANGES, 0, 1, table, []);
      const header = frame.done().length;
      frame.entry(position, 1, {});
      return frame.done().length - header;
    };
    expect([size(127), size(16_383), size(100_000)]).toEqual([2, 3, 4]);
  });

  it('refuse a frame of an unknown kind, a truncated one, or one naming a status no table gave', () => {
    expect(() => new FrameDecoder().decode(new Uint8Array([9, 0, 0, 0]))).toThrow(/unknown kind/);
    expect(() => new FrameDecoder().decode(new Uint8Array([CHANGES, 0x80]))).toThrow(/truncated/);
    expect(() => new FrameDecoder().decode(new Uint8Array([CHANGES, 0, 1, 0, 40, 0]))).toThrow(/status code 40/);
  });
});
