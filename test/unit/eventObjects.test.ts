import { describe, expect, it } from 'vitest';
import { describeEventObject } from '../../src/domain/eventObjectInfo.js';
import { bookableObjects, categoryOf, eventCategories, saleConfigFields } from '../../src/domain/eventObjectRules.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { areaState, FIELD_SEPARATOR, heldByTicketType, objectState, recordIsFree } from '../../src/domain/objectStates.js';
import type { EventDoc } from '../../src/domain/event.js';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';

// What an event makes of its chart: categories, bookable objects, the sale-config fields
// the scripts read, records as the scripts write them, and the object info clients see.

const sample = buildObjectIndex(rowsWithoutSections);
type Settings = Pick<EventDoc, 'objectCategories' | 'categories' | 'tableBookingConfig' | 'channels' | 'forSaleConfig'>;
const plain: Settings = { objectCategories: {}, categories: [], tableBookingConfig: { mode: 'INHERIT' }, channels: [], forSaleConfig: null };
const channel = (key: string, objects: string[]) => ({ id: key, key, name: key, color: '#000', index: 0, objects, areaPlaces: {} });

describe('event objects', () => {
  it('adds event categories to the chart ones and applies object overrides', () => {
    const event: Settings = {
      ...plain,
      categories: [{ key: 'vip', label: 'VIP', color: '#ff0000', accessible: false }],
      objectCategories: { 'A-1': 'vip', 'A-2': 10 },
    };
    expect(eventCategories(event, sample).map((c) => c.key)).toEqual([9, 10, 'string11', 'vip']);
    expect(categoryOf(event, sample, sample.byLabel.get('A-1')!)?.label).toBe('VIP');
    expect(categoryOf(event, sample, sample.byLabel.get('A-2')!)?.label).toBe('Cat2');
    expect(categoryOf(event, sample, sample.byLabel.get('A-3')!)?.label).toBe('Cat1');
  });

  it('lists tables or their seats as the table booking mode says', () => {
    const index = buildObjectIndex(withTables);
    const labels = (mode: Settings['tableBookingConfig']['mode']) => bookableObjects({ tableBookingConfig: { mode } }, index).map((o) => o.label);
    expect(labels('ALL_BY_TABLE')).toEqual(['T1', 'T2']);
    expect(labels('ALL_BY_SEAT').every((l) => l.includes('-'))).toBe(true);
    expect(labels('INHERIT')).toContain('T2');
    expect(labels('INHERIT')).not.toContain('T1');
  });

  it('writes no sale-config fields for an event without channels or for-sale config', () => {
    expect(saleConfigFields(plain, sample).size).toBe(0);
  });

  it('writes channels and places not for sale', () => {
    const notForSale: Settings = {
      ...plain,
      channels: [channel('ch1', ['A-1', 'GA1'])],
      forSaleConfig: { forSale: false, objects: ['A-2'], areaPlaces: { GA1: 7 }, categories: ['cat2'] },
    };
    const fields = saleConfigFields(notForSale, sample);
    expect(fields.get('c:A-1')).toBe('ch1');
    expect(fields.get('c:GA1')).toBe('ch1');
    expect(fields.get('n:A-2')).toBe('1');
    expect(fields.get('n:GA1')).toBe('7');
    // Category labels match case-insensitively: every Cat2 seat is off sale.
    const cat2 = sample.objects.filter((o) => o.category?.label === 'Cat2').map((o) => o.label);
    expect(cat2.length).toBeGreaterThan(0);
    for (const label of cat2) expect(fields.get(`n:${label}`)).toBe(String(sample.byLabel.get(label)!.objectType === 'generalAdmission' ? sample.byLabel.get(label)!.capacity : 1));
    expect(fields.has('n:A-1')).toBe(false);

    const onlyListed: Settings = { ...plain, forSaleConfig: { forSale: true, objects: ['A-1'], areaPlaces: { GA1: 30 }, categories: [] } };
    const only = saleConfigFields(onlyListed, sample);
    expect(only.has('n:A-1')).toBe(false);
    expect(only.get('n:A-2')).toBe('1');
    expect(only.get('n:GA1')).toBe('70');
  });
});

describe('records and object info', () => {
  const SEP = FIELD_SEPARATOR;
  it('reads a hold as free once its token expired, back to resale if it was resale', () => {
    const record = ['reservedByToken', 'tok', '', '', 'resale'].join(SEP);
    expect(objectState(record, () => 2_000, 1_000)).toMatchObject({ status: 'reservedByToken', holdToken: 'tok' });
    expect(objectState(record, () => 1_000, 1_000)).toMatchObject({ status: 'resale', holdToken: null });
    expect(objectState(null, () => 0, 0).status).toBe('free');
    expect(objectState(['booked', '', 'o1', 'adult'].join(SEP), () => 0, 0)).toEqual({
      status: 'booked',
      holdToken: null,
      orderId: 'o1',
      ticketType: 'adult',
      resaleListingId: null,
    });
  });

  it('says whether a record is free exactly as objectState does, reading only its status unless it is a hold', () => {
    const records = [
      'booked',
      ['booked', '', 'o1', 'adult'].join(SEP),
      'resale',
      'myStatus',
      ['free', '', '', '', '', 'listing'].join(SEP),
      ['reservedByToken', 'tok'].join(SEP),
      ['reservedByToken', 'tok', '', '', 'resale'].join(SEP),
    ];
    for (const expiry of [500, 2_000]) {
      for (const record of records) {
        expect(recordIsFree(record, () => expiry, 1_000), `${record} at expiry ${expiry}`).toBe(objectState(record, () => expiry, 1_000).status === 'free');
      }
    }
    expect(recordIsFree(['reservedByToken', 'tok'].join(SEP), () => 500, 1_000)).toBe(true);
  });

  it('describes an object with the fields of the seats.io sample', () => {
    const a1 = sample.byLabel.get('A-1')!;
    const info = describeEventObject(plain, sample, a1, { state: objectState('myStatus', () => 0, 0) });
    expect(info).toMatchObject({
      label: 'A-1',
      status: 'myStatus',
      categoryKey: '9',
      categoryLabel: 'Cat1',
      forSale: true,
      objectType: 'seat',
      rightNeighbour: 'A-2',
      isAvailable: false,
      availabilityReason: 'myStatus',
      distanceToFocalPoint: 98.67842540608864,
      seasonStatusOverriddenQuantity: 0,
    });
    expect(info).not.toHaveProperty('leftNeighbour');
    expect(info).not.toHaveProperty('holdToken');
  });

  it('counts a GA area: 5 booked and 3 held of 100', () => {
    const ga = sample.byLabel.get('GA1')!;
    const holds = new Map([['tok', heldByTicketType(['', '', '1', 'vip', 'adult', '2'].join(SEP))]]);
    const info = describeEventObject(plain, sample, ga, { state: areaState(['5', '3', 'booked'].join(SEP), holds) });
    // Held places make the area reservedByToken (seats.io's reports say so), still available.
    expect(info).toMatchObject({ capacity: 100, numBooked: 5, numHeld: 3, numFree: 92, numNotForSale: 0, status: 'reservedByToken', isAvailable: true });
    expect(info.holds).toEqual({ tok: { NO_TICKET_TYPE: 1, adult: 2 } });
    const bookedOnly = describeEventObject(plain, sample, ga, { state: areaState(['5', '0', 'booked'].join(SEP)) });
    expect(bookedOnly).toMatchObject({ status: 'free', numBooked: 5, numFree: 95, isAvailable: true });
    expect(describeEventObject(plain, sample, ga, { state: areaState(null) })).toMatchObject({ status: 'free', numFree: 100 });
    const full = describeEventObject(plain, sample, ga, { state: areaState(['100', '0', 'booked'].join(SEP)) });
    expect(full).toMatchObject({ status: 'booked', numFree: 0, isAvailable: false });
  });
});
