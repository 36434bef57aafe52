import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { MAX_OBJECTS_PER_REQUEST, operationFor, planChange, planObjects, type ObjectInput } from '../../src/domain/statusChangeRequest.js';
import type { TableBookingConfig } from '../../src/domain/event.js';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';

// Requests checked against the chart before any I/O: each refusal has its own code.

const sample = buildObjectIndex(rowsWithoutSections);
const tables = buildObjectIndex(withTables);
const inherit = { tableBookingConfig: { mode: 'INHERIT' } as TableBookingConfig };

function refusal(run: () => unknown): { status: number; code: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { status: (error as ApiError).status, code: (error as ApiError).errors[0]!.code };
  }
  throw new Error('expected a refusal');
}

describe('planObjects', () => {
  it('resolves labels and the object format', () => {
    const planned = planObjects(inherit, sample, ['A-1', { objectId: 'A-2', ticketType: 'adult', extraData: { a: 1 } }]);
    expect(planned.map((p) => [p.label, p.quantity, p.ticketType, p.extraData])).toEqual([
      ['A-1', 0, undefined, undefined],
      ['A-2', 0, 'adult', '{"a":1}'],
    ]);
  });

  it('adds up the places of a GA area named several times or with a quantity', () => {
    const planned = planObjects(inherit, sample, ['GA1', 'GA1', { objectId: 'GA1', quantity: 3 }]);
    expect(planned).toHaveLength(1);
    expect(planned[0]!.quantity).toBe(5);
  });

  it('finds repeats alike in short lists and in long ones (past 16 objects), keeping the order of first mention', () => {
    const seats = ['A', 'B', 'C'].flatMap((row) => Array.from({ length: 8 }, (_, i) => `${row}-${i + 1}`)).slice(0, 20);
    for (const n of [3, 16, 17, 20]) {
      const labels = seats.slice(0, n);
      const planned = planObjects(inherit, sample, [...labels.slice(0, -1), 'GA1', labels.at(-1)!, 'GA1']);
      expect(planned.map((p) => [p.label, p.quantity])).toEqual([...labels.slice(0, -1).map((l) => [l, 0]), ['GA1', 2], [labels.at(-1), 0]]);
      expect(refusal(() => planObjects(inherit, sample, [...labels, labels[0]!])).code).toBe('DUPLICATE_OBJECT');
    }
  });

  const cases: [string, ObjectInput[], string][] = [
    ['an unknown label', ['Z-99'], 'OBJECT_NOT_FOUND'],
    ['no objects', [], 'NO_OBJECTS'],
    ['a quantity on a seat', [{ objectId: 'A-1', quantity: 1 }], 'QUANTITY_NOT_ALLOWED'],
    ['a zero quantity', [{ objectId: 'GA1', quantity: 0 }], 'INVALID_QUANTITY'],
    ['a negative quantity', [{ objectId: 'GA1', quantity: -2 }], 'INVALID_QUANTITY'],
    ['a fractional quantity', [{ objectId: 'GA1', quantity: 1.5 }], 'INVALID_QUANTITY'],
    ['more places than the area has', [{ objectId: 'GA1', quantity: 101 }], 'INVALID_QUANTITY'],
    ['a seat named twice', ['A-1', 'A-1'], 'DUPLICATE_OBJECT'],
    ['extra data that is a string', [{ objectId: 'A-1', extraData: 'x' }], 'INVALID_EXTRA_DATA'],
    ['extra data that is an array', [{ objectId: 'A-1', extraData: [1] }], 'INVALID_EXTRA_DATA'],
    ['extra data that is too large', [{ objectId: 'A-1', extraData: { a: 'x'.repeat(20_000) } }], 'INVALID_EXTRA_DATA'],
    ['too many objects', Array.from({ length: MAX_OBJECTS_PER_REQUEST + 1 }, () => 'GA1'), 'TOO_MANY_OBJECTS'],
  ];
  it.each(cases)('refuses %s', (_, inputs, code) => {
    expect(refusal(() => planObjects(inherit, sample, inputs))).toEqual({ status: 400, code });
  });

  it('books tables as the event says: whole tables or their seats', () => {
    // T1 is booked by seat on the chart, T2 as a whole.
    expect(planObjects(inherit, tables, ['T1-1', 'T2']).map((p) => p.label)).toEqual(['T1-1', 'T2']);
    expect(refusal(() => planObjects(inherit, tables, ['T1'])).code).toBe('OBJECT_NOT_BOOKABLE');
    expect(refusal(() => planObjects(inherit, tables, ['T2-1'])).code).toBe('OBJECT_NOT_BOOKABLE');
    const byTable = { tableBookingConfig: { mode: 'ALL_BY_TABLE' } as TableBookingConfig };
    expect(planObjects(byTable, tables, ['T1', 'T2']).map((p) => p.label)).toEqual(['T1', 'T2']);
    expect(refusal(() => planObjects(byTable, tables, ['T1-1'])).code).toBe('OBJECT_NOT_BOOKABLE');
    const bySeat = { tableBookingConfig: { mode: 'ALL_BY_SEAT' } as TableBookingConfig };
    expect(refusal(() => planObjects(bySeat, tables, ['T2'])).code).toBe('OBJECT_NOT_BOOKABLE');
    const custom = { tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } } as TableBookingConfig };
    expect(planObjects(custom, tables, ['T1', 'T2-1']).map((p) => p.label)).toEqual(['T1', 'T2-1']);
  });
});

describe('planChange and operationFor', () => {
  it('maps the SDK statuses onto operations', () => {
    expect(operationFor('CHANGE_STATUS_TO', 'booked')).toEqual({ op: 'book', status: 'booked' });
    expect(operationFor('CHANGE_STATUS_TO', 'reservedByToken')).toEqual({ op: 'hold', status: 'reservedByToken' });
    expect(operationFor('CHANGE_STATUS_TO', 'resale')).toEqual({ op: 'status', status: 'resale' });
    expect(operationFor('RELEASE', undefined)).toEqual({ op: 'release', status: 'free' });
  });

  it('refuses empty or over-long statuses', () => {
    expect(refusal(() => operationFor('CHANGE_STATUS_TO', undefined)).code).toBe('INVALID_STATUS');
    expect(refusal(() => operationFor('CHANGE_STATUS_TO', '  ')).code).toBe('INVALID_STATUS');
    expect(refusal(() => operationFor('CHANGE_STATUS_TO', 'x'.repeat(101))).code).toBe('INVALID_STATUS');
  });

  it('refuses channelKeys with ignoreChannels, and holds without a token', () => {
    expect(refusal(() => planChange(inherit, sample, 'book', 'booked', ['A-1'], { channelKeys: ['a'], ignoreChannels: true })).code).toBe(
      'CHANNEL_KEYS_WITH_IGNORE_CHANNELS',
    );
    expect(refusal(() => planChange(inherit, sample, 'hold', 'reservedByToken', ['A-1'], {})).code).toBe('HOLD_TOKEN_REQUIRED');
  });
});
