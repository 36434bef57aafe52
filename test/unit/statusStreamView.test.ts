import { describe, expect, it } from 'vitest';
import { applyChange, changesMessage, changesOf, parseSince, snapshotMessage, type StreamChange, type StreamObject } from '../../src/domain/statusStreamView.js';
import type { StatusChangeRecord } from '../../src/domain/statusChangeHistory.js';

const entry = (fields: Partial<StatusChangeRecord>): StatusChangeRecord => ({
  eventId: 1,
  id: 1,
  label: 'A-1',
  status: 'booked',
  quantity: 1,
  date: new Date(0),
  orderId: null,
  holdToken: null,
  origin: { type: 'API_CALL' },
  extraData: null,
  ...fields,
});

describe('status stream view', () => {
  it('keeps a hold token only on holds, and order ids whatever the status', () => {
    expect(changesOf(entry({ status: 'reservedByToken', holdToken: 't', orderId: 'o' }))).toEqual([{ objectLabel: 'A-1', status: 'reservedByToken', quantity: 1, holdToken: 't', orderId: 'o' }]);
    expect(changesOf(entry({ status: 'booked', holdToken: 't' }))).toEqual([{ objectLabel: 'A-1', status: 'booked', quantity: 1 }]);
  });

  it('makes a for-sale entry one change per object, with its places not for sale now', () => {
    expect(changesOf({ eventId: 1, id: 4, date: new Date(0), notForSale: [['A-1', 1], ['GA', 0]] })).toEqual([
      { objectLabel: 'A-1', notForSale: 1 },
      { objectLabel: 'GA', notForSale: 0 },
    ]);
  });

  const after = (start: [string, StreamObject][], ...changes: StreamChange[]) => {
    const view = new Map(start);
    for (const change of changes) applyChange(view, change);
    return Object.fromEntries(view);
  };

  it('leaves free objects out of the view, and GA areas only once they are empty', () => {
    expect(after([['A-1', { status: 'booked' }]], { objectLabel: 'A-1', status: 'free', quantity: 1 })).toEqual({});
    expect(after([], { objectLabel: 'A-1', status: 'resale', quantity: 1 })).toEqual({ 'A-1': { status: 'resale' } });
    expect(after([], { objectLabel: 'GA', status: 'free', quantity: 2, booked: 2, held: 0 })).toEqual({ GA: { status: 'free', booked: 2, held: 0 } });
    expect(after([['GA', { status: 'free', booked: 2, held: 0 }]], { objectLabel: 'GA', status: 'free', quantity: 2, booked: 0, held: 0 })).toEqual({});
  });

  it('keeps an object not for sale in the view whatever its status, and its places off sale across status changes', () => {
    expect(after([], { objectLabel: 'A-1', notForSale: 1 })).toEqual({ 'A-1': { status: 'free', notForSale: 1 } });
    expect(after([], { objectLabel: 'A-1', notForSale: 1 }, { objectLabel: 'A-1', status: 'booked', quantity: 1, orderId: 'o' }, { objectLabel: 'A-1', status: 'free', quantity: 1 })).toEqual({
      'A-1': { status: 'free', notForSale: 1 },
    });
    expect(after([['A-1', { status: 'booked', notForSale: 1 }]], { objectLabel: 'A-1', notForSale: 0 })).toEqual({ 'A-1': { status: 'booked' } });
    expect(after([['A-1', { status: 'free', notForSale: 1 }]], { objectLabel: 'A-1', notForSale: 0 })).toEqual({});
    expect(after([['GA', { status: 'free', booked: 1, held: 0, notForSale: 3 }]], { objectLabel: 'GA', status: 'free', quantity: 1, booked: 0, held: 0 })).toEqual({
      GA: { status: 'free', booked: 0, held: 0, notForSale: 3 },
    });
  });

  it('shows public-key clients neither hold tokens nor order ids', () => {
    const objects = new Map([['A-1', { status: 'reservedByToken', holdToken: 't', orderId: 'o' }]]);
    expect(JSON.parse(snapshotMessage(3, objects, 'public', false))).toEqual({ type: 'snapshot', seq: 3, objects: { 'A-1': { status: 'reservedByToken' } } });
    expect(JSON.parse(snapshotMessage(3, objects, 'secret', true))).toEqual({ type: 'snapshot', seq: 3, reset: true, objects: { 'A-1': { status: 'reservedByToken', holdToken: 't', orderId: 'o' } } });
    const changes = [{ objectLabel: 'A-1', status: 'booked', quantity: 1, orderId: 'o' }];
    expect(JSON.parse(changesMessage(4, changes, 'public'))).toEqual({ type: 'changes', seq: 4, changes: [{ objectLabel: 'A-1', status: 'booked', quantity: 1 }] });
    expect(JSON.parse(changesMessage(5, [{ objectLabel: 'A-2', notForSale: 1 }], 'public'))).toEqual({ type: 'changes', seq: 5, changes: [{ objectLabel: 'A-2', notForSale: 1 }] });
  });

  it('reads since as a whole number, undefined when absent, null when malformed', () => {
    expect(parseSince(undefined)).toBeUndefined();
    expect(parseSince('0')).toBe(0);
    expect(parseSince('123')).toBe(123);
    for (const bad of ['', '-1', '1.5', 'abc', '1e3', '9'.repeat(16)]) expect(parseSince(bad)).toBeNull();
  });
});
