import { describe, expect, it } from 'vitest';
import { applyChange, changesMessage, conflatedMessage, changesOf, parseSince, SeasonLens, snapshotMessage, ViewOverlay, type FollowedEntry, type StreamChange, type StreamObject } from '../../src/domain/statusStreamView.js';
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

  it("shows an event of a season its season's seats unless it took or overrides them, deciding each entry on the batch so far", () => {
    const EVENT = 5;
    const SEASON = 1;
    const OTHER_EVENT = 6;
    const forSale = { topId: SEASON, propagated: true, own: new Map<string, number>(), season: new Map<string, number>() };
    const lens = new SeasonLens(EVENT, new Set([SEASON]), (label) => label === 'GA', new Set(['B-1']), new Set(), forSale);
    const view = new Map<string, StreamObject>([['A-1', { status: 'booked' }]]);
    const overlay = new ViewOverlay(view);
    const followed = (seq: number, unit: number, fields: Partial<StatusChangeRecord>, kind: FollowedEntry['kind'] = null): FollowedEntry => ({ seq, unit, kind, entry: entry(fields) });
    const batch = [
      followed(1, SEASON, { label: 'A-2', status: 'booked' }),
      followed(2, SEASON, { label: 'B-1', status: 'booked' }), // overridden here
      followed(3, OTHER_EVENT, { label: 'A-3', status: 'booked' }),
      followed(4, SEASON, { label: 'GA', status: 'booked', quantity: 2 }),
      followed(5, EVENT, { label: 'A-1', status: 'free' }),
      followed(6, SEASON, { label: 'A-1', status: 'booked' }), // the event gave it back in this batch
      followed(7, SEASON, { label: 'A-2', status: 'free' }),
      followed(8, EVENT, { label: 'B-1', status: 'booked' }, 's'), // uses the season's status again
    ];
    const shown = batch.map((f) => {
      const changes = lens.changesOf(f, overlay);
      for (const change of changes) applyChange(overlay, change);
      return changes.map((c) => ('status' in c ? `${c.objectLabel} ${c.status}` : c.objectLabel));
    });
    expect(shown).toEqual([['A-2 booked'], [], [], [], ['A-1 free'], ['A-1 booked'], ['A-2 free'], ['B-1 booked']]);
    expect(view.get('A-1')).toEqual({ status: 'booked' }); // the overlay left the view alone
    expect([...lens.fromSeason].sort()).toEqual(['A-1', 'B-1']);
    expect(lens.overrides.size).toBe(0);
  });

  it("shows the season's status again when the event gives an object back that the season took meanwhile (an expired hold)", () => {
    const EVENT = 5;
    const SEASON = 1;
    const PARTIAL = 2;
    const forSale = { topId: SEASON, propagated: true, own: new Map<string, number>(), season: new Map<string, number>() };
    const lens = new SeasonLens(EVENT, new Set([SEASON, PARTIAL]), () => false, new Set(), new Set(), forSale);
    const view = new Map<string, StreamObject>([['A-5', { status: 'reservedByToken' }]]);
    const at = (seq: number, unit: number, fields: Partial<StatusChangeRecord>): FollowedEntry => ({ seq, unit, kind: null, entry: entry(fields) });
    const step = (followed: FollowedEntry) => {
      const changes = lens.changesOf(followed, view);
      for (const change of changes) applyChange(view, change);
      return changes.map((c) => ('status' in c ? `${c.objectLabel} ${c.status}` : c.objectLabel));
    };
    // The event's hold on A-5 expired; the season books it before the expiry job gives it back.
    expect(step(at(1, SEASON, { label: 'A-5', status: 'booked', orderId: 's' }))).toEqual([]);
    expect(step(at(2, EVENT, { label: 'A-5', status: 'free', origin: { type: 'HOLD_EXPIRED' } }))).toEqual(['A-5 booked']);
    expect(view.get('A-5')).toEqual({ status: 'booked', orderId: 's' });
    // A partial season's expired hold given back while the season holds the seat: still booked.
    expect(step(at(3, PARTIAL, { label: 'A-5', status: 'reservedByToken', holdToken: 't' }))).toEqual(['A-5 booked']);
    expect(step(at(4, PARTIAL, { label: 'A-5', status: 'free' }))).toEqual(['A-5 booked']);
    expect(step(at(5, SEASON, { label: 'A-5', status: 'free' }))).toEqual(['A-5 free']);
    expect(view.has('A-5')).toBe(false);
  });

  it("shows an event of a season its own places off sale, and its season's for the objects it does not list while the season propagates them", () => {
    const EVENT = 5;
    const SEASON = 1;
    const forSale = { topId: SEASON, propagated: true, own: new Map([['A-1', 1]]), season: new Map<string, number>() };
    const lens = new SeasonLens(EVENT, new Set([SEASON]), () => false, new Set(), new Set(), forSale);
    const view = new Map<string, StreamObject>();
    const forSaleEntry = (seq: number, unit: number, notForSale: [string, number][]): FollowedEntry => ({ seq, unit, kind: null, entry: { eventId: unit, id: seq, date: new Date(0), notForSale } });
    expect(lens.changesOf(forSaleEntry(1, SEASON, [['A-1', 1], ['A-2', 1]]), view)).toEqual([{ objectLabel: 'A-2', notForSale: 1 }]);
    expect(lens.changesOf(forSaleEntry(2, EVENT, [['A-1', 0]]), view)).toEqual([{ objectLabel: 'A-1', notForSale: 1 }]); // the season's now
    expect(lens.changesOf(forSaleEntry(3, SEASON, [['A-1', 0], ['A-2', 0]]), view)).toEqual([
      { objectLabel: 'A-1', notForSale: 0 },
      { objectLabel: 'A-2', notForSale: 0 },
    ]);
    expect(lens.changesOf(forSaleEntry(4, 6, [['A-3', 1]]), view)).toEqual([]); // another event's
    const unpropagated = new SeasonLens(EVENT, new Set([SEASON]), () => false, new Set(), new Set(), { ...forSale, propagated: false, own: new Map() });
    expect(unpropagated.changesOf(forSaleEntry(5, SEASON, [['A-4', 1]]), view)).toEqual([]);
  });

  it('shows public-key clients neither hold tokens nor order ids', () => {
    const objects = new Map([['A-1', { status: 'reservedByToken', holdToken: 't', orderId: 'o' }]]);
    expect(JSON.parse(snapshotMessage(3, objects, 'public', false))).toEqual({ type: 'snapshot', seq: 3, objects: { 'A-1': { status: 'reservedByToken' } } });
    expect(JSON.parse(snapshotMessage(3, objects, 'secret', true))).toEqual({ type: 'snapshot', seq: 3, reset: true, objects: { 'A-1': { status: 'reservedByToken', holdToken: 't', orderId: 'o' } } });
    const changes = [{ objectLabel: 'A-1', status: 'booked', quantity: 1, orderId: 'o' }];
    expect(JSON.parse(changesMessage(3, 4, changes, 'public'))).toEqual({ type: 'changes', from: 3, seq: 4, changes: [{ objectLabel: 'A-1', status: 'booked', quantity: 1 }] });
    expect(JSON.parse(changesMessage(4, 5, [{ objectLabel: 'A-2', notForSale: 1 }], 'public'))).toEqual({ type: 'changes', from: 4, seq: 5, changes: [{ objectLabel: 'A-2', notForSale: 1 }] });
    const states: [string, StreamObject | undefined][] = [['A-1', { status: 'reservedByToken', holdToken: 't', orderId: 'o' }], ['A-2', undefined]];
    expect(JSON.parse(conflatedMessage(2, 9, states, 'public'))).toEqual({
      type: 'changes',
      conflated: true,
      from: 2,
      seq: 9,
      changes: [{ objectLabel: 'A-1', status: 'reservedByToken' }, { objectLabel: 'A-2', status: 'free' }],
    });
  });

  it('reads since as a whole number, undefined when absent, null when malformed', () => {
    expect(parseSince(undefined)).toBeUndefined();
    expect(parseSince('0')).toBe(0);
    expect(parseSince('123')).toBe(123);
    for (const bad of ['', '-1', '1.5', 'abc', '1e3', '9'.repeat(16)]) expect(parseSince(bad)).toBeNull();
  });
});
