import { describe, expect, it } from 'vitest';
import { changeOf, changesMessage, objectAfter, parseSince, snapshotMessage } from '../../src/domain/statusStreamView.js';
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
    expect(changeOf(entry({ status: 'reservedByToken', holdToken: 't', orderId: 'o' }))).toEqual({ objectLabel: 'A-1', status: 'reservedByToken', quantity: 1, holdToken: 't', orderId: 'o' });
    expect(changeOf(entry({ status: 'booked', holdToken: 't' }))).toEqual({ objectLabel: 'A-1', status: 'booked', quantity: 1 });
  });

  it('leaves free objects out of the view, and GA areas only once they are empty', () => {
    expect(objectAfter({ objectLabel: 'A-1', status: 'free', quantity: 1 })).toBeUndefined();
    expect(objectAfter({ objectLabel: 'A-1', status: 'resale', quantity: 1 })).toEqual({ status: 'resale' });
    expect(objectAfter({ objectLabel: 'GA', status: 'free', quantity: 2, booked: 2, held: 0 })).toEqual({ status: 'free', booked: 2, held: 0 });
    expect(objectAfter({ objectLabel: 'GA', status: 'free', quantity: 2, booked: 0, held: 0 })).toBeUndefined();
  });

  it('shows public-key clients neither hold tokens nor order ids', () => {
    const objects = new Map([['A-1', { status: 'reservedByToken', holdToken: 't', orderId: 'o' }]]);
    expect(JSON.parse(snapshotMessage(3, objects, 'public', false))).toEqual({ type: 'snapshot', seq: 3, objects: { 'A-1': { status: 'reservedByToken' } } });
    expect(JSON.parse(snapshotMessage(3, objects, 'secret', true))).toEqual({ type: 'snapshot', seq: 3, reset: true, objects: { 'A-1': { status: 'reservedByToken', holdToken: 't', orderId: 'o' } } });
    const changes = [{ objectLabel: 'A-1', status: 'booked', quantity: 1, orderId: 'o' }];
    expect(JSON.parse(changesMessage(4, changes, 'public'))).toEqual({ type: 'changes', seq: 4, changes: [{ objectLabel: 'A-1', status: 'booked', quantity: 1 }] });
  });

  it('reads since as a whole number, undefined when absent, null when malformed', () => {
    expect(parseSince(undefined)).toBeUndefined();
    expect(parseSince('0')).toBe(0);
    expect(parseSince('123')).toBe(123);
    for (const bad of ['', '-1', '1.5', 'abc', '1e3', '9'.repeat(16)]) expect(parseSince(bad)).toBeNull();
  });
});
