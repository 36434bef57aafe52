import { describe, expect, it } from 'vitest';
import { notBookableReason } from '../../src/domain/eventObjectRules.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';
import { batchLabels, compareChanges, decodeBatch, decodeBatchEntries, decodeHistoryEntry, decodeStatusChange, ENTRY_SEPARATOR, FOR_SALE_ENTRY, entryNumber, historyOrder, statusChangeItem } from '../../src/domain/statusChangeHistory.js';
import { withTables } from '../fixtures/drawings.js';

// The history's formats (docs/history.md): what lua/includes/history.lua appends, what is
// stored, what the routes answer, and how a list is sorted.

const entry = (...fields: (string | number)[]) => fields.join(FIELD_SEPARATOR);

describe('status change history', () => {
  it('decodes a stream entry into the stored change, numbered by its entry id', () => {
    const c = entry(1_700_000_000_123, 'A-1', 'booked', 1, 'order-1', 'tok', 'API_CALL', '10.0.0.7', '{"a":1}');
    expect(decodeHistoryEntry(42, 17, c)).toEqual({
      eventId: 42,
      id: 17,
      label: 'A-1',
      status: 'booked',
      quantity: 1,
      date: new Date(1_700_000_000_123),
      orderId: 'order-1',
      holdToken: 'tok',
      origin: { type: 'API_CALL', ip: '10.0.0.7' },
      extraData: '{"a":1}',
    });
  });

  it('reads empty fields as none: no order, no token, no ip, no extra data', () => {
    const record = decodeStatusChange(1, 1, entry(5, 'GA1', 'free', 3, '', '', 'HOLD_EXPIRED', '', ''));
    expect(record).toMatchObject({ orderId: null, holdToken: null, origin: { type: 'HOLD_EXPIRED' }, extraData: null, quantity: 3 });
    expect(record.origin).not.toHaveProperty('ip');
  });

  it('reads the labels of a batch of entries without decoding them, and decodes a batch numbered from its first', () => {
    const batch = [entry(5, 'Section A-1-7', 'booked', 1, '', '', 'API_CALL', '', '{"a":1}'), entry(6, 'GA', 'free', 3, '', '', 'API_CALL', '', ''), entry(7, 'Section A-1-7', 'free', 1, '', '', '', '', '')].join(ENTRY_SEPARATOR);
    expect(batchLabels(batch)).toEqual(['Section A-1-7', 'GA']);
    expect(decodeBatch(4, 10, batch).map((c) => [c.id, c.label, c.status, c.quantity])).toEqual([[10, 'Section A-1-7', 'booked', 1], [11, 'GA', 'free', 3], [12, 'Section A-1-7', 'free', 1]]);
  });

  it('decodes a for-sale entry (empty label, the marker, label and places per object), which lists of status changes skip', () => {
    const forSale = entry(9, '', FOR_SALE_ENTRY, 'A-1', 1, 'GA', 0);
    expect(decodeHistoryEntry(4, 12, forSale)).toEqual({ eventId: 4, id: 12, date: new Date(9), notForSale: [['A-1', 1], ['GA', 0]] });
    const batch = [entry(5, 'A-1', 'booked', 1, '', '', '', '', ''), forSale, entry(10, 'A-2', 'booked', 1, '', '', '', '', '')].join(ENTRY_SEPARATOR);
    expect(batchLabels(batch)).toEqual(['A-1', 'A-2']);
    expect(decodeBatch(4, 11, batch).map((c) => [c.id, c.label])).toEqual([[11, 'A-1'], [13, 'A-2']]);
    expect(decodeBatchEntries(4, 11, batch).map((c) => c.id)).toEqual([11, 12, 13]);
    // A status change of an object whose label happens to be empty is still a status change.
    expect(decodeHistoryEntry(4, 1, entry(5, '', 'booked', 1, '', '', '', '', ''))).toMatchObject({ label: '', status: 'booked' });
  });

  it('refuses entry ids the script does not write', () => {
    expect(entryNumber('0-9')).toBe(9);
    expect(() => entryNumber('1700000000000-0')).toThrow();
  });

  it('answers an item with every field, null where the change had none', () => {
    const record = decodeStatusChange(3, 2, entry(0, 'A-1', 'reservedByToken', 1, '', 'tok', 'API_CALL', '::1', ''));
    expect(statusChangeItem(record, null)).toEqual({
      id: 2,
      eventId: 3,
      status: 'reservedByToken',
      quantity: 1,
      objectLabel: 'A-1',
      date: '1970-01-01T00:00:00.000Z',
      orderId: null,
      extraData: null,
      holdToken: 'tok',
      origin: { type: 'API_CALL', ip: '::1' },
      isPresentOnChart: true,
      displayedLabel: 'A-1',
    });
    const gone = statusChangeItem({ ...record, extraData: '{"x":[1]}' }, 'RENAMED_OR_DELETED');
    expect(gone).toMatchObject({ isPresentOnChart: false, notPresentOnChartReason: 'RENAMED_OR_DELETED', extraData: { x: [1] } });
  });

  it('sorts by date newest first unless told; a field without a direction ascends', () => {
    expect(historyOrder(undefined)).toEqual({ field: 'date', ascending: false });
    expect(historyOrder('')).toEqual({ field: 'date', ascending: false });
    expect(historyOrder('objectLabel')).toEqual({ field: 'label', ascending: true });
    expect(historyOrder('status:desc')).toEqual({ field: 'status', ascending: false });
    expect(historyOrder('date:asc')).toEqual({ field: 'date', ascending: true });
    for (const bad of ['label', 'date:up', 'status:asc:x', ':asc']) expect(() => historyOrder(bad), bad).toThrow(/sort must be/);
  });

  it('compares changes by the order field: by date, ties in the order applied (ids) or its reverse; otherwise newest first', () => {
    const change = (id: number, label: string, time: number) => decodeStatusChange(1, id, entry(time, label, 'booked', 1, '', '', '', '', ''));
    const changes = [change(1, 'B', 5), change(2, 'A', 5), change(3, 'B', 4), change(4, 'A', 6)];
    const ids = (order: Parameters<typeof compareChanges>[0]) => [...changes].sort(compareChanges(order)).map((c) => c.id);
    expect(ids({ field: 'label', ascending: true })).toEqual([4, 2, 3, 1]);
    expect(ids({ field: 'label', ascending: false })).toEqual([3, 1, 4, 2]);
    expect(ids({ field: 'date', ascending: true })).toEqual([3, 1, 2, 4]);
    expect(ids({ field: 'date', ascending: false })).toEqual([4, 2, 1, 3]);
  });

  it('says why a label is no longer bookable on the chart', () => {
    const index = buildObjectIndex(withTables);
    const [seat] = index.objects.filter((o) => o.table >= 0 && index.objects[o.table]!.label === 'T1');
    expect(notBookableReason({ tableBookingConfig: { mode: 'INHERIT' } }, index, 'gone')).toBe('RENAMED_OR_DELETED');
    expect(notBookableReason({ tableBookingConfig: { mode: 'ALL_BY_SEAT' } }, index, 'T1')).toBe('SWITCHED_TO_BOOK_BY_SEAT');
    expect(notBookableReason({ tableBookingConfig: { mode: 'ALL_BY_SEAT' } }, index, seat!.label)).toBeNull();
    expect(notBookableReason({ tableBookingConfig: { mode: 'ALL_BY_TABLE' } }, index, seat!.label)).toBe('SWITCHED_TO_BOOK_WHOLE_TABLE');
    expect(notBookableReason({ tableBookingConfig: { mode: 'ALL_BY_TABLE' } }, index, 'T1')).toBeNull();
  });
});
