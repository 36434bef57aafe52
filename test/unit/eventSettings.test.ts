import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import {
  checkEventDate,
  checkObjectCategories,
  eventLevelCategories,
  eventUpdate,
  newEventSettings,
  tableBookingFrom,
} from '../../src/domain/eventSettings.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { checkPlaces, generalAdmissionArea, knownAreaPlaces, knownLabels } from '../../src/domain/objectLabels.js';
import type { EventDoc } from '../../src/domain/event.js';
import { rowsWithoutSections, withTables } from '../fixtures/drawings.js';
import { eventDoc } from '../support/eventDocs.js';

// Event settings as create and update take them: dates, table booking, event-level
// categories, object categories, and the object label checks they share with channels
// and the for-sale config.

function refused(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const error = e as ApiError;
    return { status: error.status, code: error.errors[0]!.code, message: error.message };
  }
  throw new Error('expected a refusal');
}

const rows = buildObjectIndex(rowsWithoutSections);
const tables = buildObjectIndex(withTables);
const today = new Date('2025-06-15T12:00:00Z');

const event = (fields: Partial<EventDoc> = {}): EventDoc => eventDoc({ createdOn: new Date(), ...fields });

describe('checkEventDate', () => {
  it.each(['2014-01-01', '2024-02-29', '2035-06-15', '2025-06-15'])('accepts %s', (date) => {
    expect(checkEventDate(date, today)).toBe(date);
  });

  it.each([
    ['2013-12-31', /between 2014-01-01 and 2035-06-15/],
    ['2035-06-16', /between/],
    ['2023-02-29', /calendar date/],
    ['2024-13-01', /calendar date/],
    ['2024-1-01', /calendar date/],
    ['20240101', /calendar date/],
    ['', /calendar date/],
    ['2024-01-01T00:00:00Z', /calendar date/],
  ])('refuses %s with 400 GENERAL_ERROR', (date, message) => {
    const error = refused(() => checkEventDate(date, today));
    expect(error).toMatchObject({ status: 400, code: 'GENERAL_ERROR' });
    expect(error.message).toMatch(message);
  });
});

describe('tableBookingFrom', () => {
  it('is undefined when no table booking field is given', () => {
    expect(tableBookingFrom({}, tables)).toBeUndefined();
  });

  it('takes each mode; tables only with CUSTOM; null goes back to INHERIT', () => {
    for (const mode of ['INHERIT', 'ALL_BY_SEAT', 'ALL_BY_TABLE'] as const) {
      expect(tableBookingFrom({ tableBookingConfig: { mode } }, tables)).toEqual({ mode });
      expect(tableBookingFrom({ tableBookingConfig: { mode, tables: {} } }, tables)).toEqual({ mode });
      expect(refused(() => tableBookingFrom({ tableBookingConfig: { mode, tables: { T1: 'BY_SEAT' } } }, tables)).code).toBe('GENERAL_ERROR');
    }
    expect(tableBookingFrom({ tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_TABLE' } } }, tables)).toEqual({ mode: 'CUSTOM', tables: { T1: 'BY_TABLE' } });
    expect(tableBookingFrom({ tableBookingConfig: { mode: 'CUSTOM' } }, tables)).toEqual({ mode: 'CUSTOM', tables: {} });
    expect(tableBookingFrom({ tableBookingConfig: null }, tables)).toEqual({ mode: 'INHERIT' });
  });

  it('maps the deprecated fields and refuses combining any two', () => {
    // Tables it does not name are booked by seat, even T2 which the chart books as a whole.
    expect(tableBookingFrom({ tableBookingModes: { T1: 'BY_TABLE' } }, tables)).toEqual({ mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } });
    expect(tableBookingFrom({ tableBookingModes: {} }, tables)).toEqual({ mode: 'CUSTOM', tables: { T1: 'BY_SEAT', T2: 'BY_SEAT' } });
    expect(tableBookingFrom({ bookWholeTables: true }, tables)).toEqual({ mode: 'ALL_BY_TABLE' });
    expect(tableBookingFrom({ bookWholeTables: false }, tables)).toEqual({ mode: 'ALL_BY_SEAT' });
    for (const input of [
      { tableBookingModes: { T1: 'BY_TABLE' as const }, bookWholeTables: true },
      { tableBookingModes: { T1: 'BY_TABLE' as const }, tableBookingConfig: { mode: 'INHERIT' as const } },
      { bookWholeTables: true, tableBookingConfig: { mode: 'INHERIT' as const } },
    ]) {
      expect(refused(() => tableBookingFrom(input, tables)).code).toBe('GENERAL_ERROR');
    }
  });

  it('refuses labels that are not tables of the chart', () => {
    expect(refused(() => tableBookingFrom({ tableBookingModes: { T9: 'BY_TABLE' } }, tables)).code).toBe('OBJECT_NOT_FOUND');
    expect(refused(() => tableBookingFrom({ tableBookingModes: { 'T1-1': 'BY_TABLE' } }, tables)).code).toBe('GENERAL_ERROR');
  });
});

describe('event-level and object categories', () => {
  it('checks event-level categories as chart categories are checked', () => {
    expect(eventLevelCategories([{ key: 'e', label: 'E', color: 'red' }])).toEqual([{ key: 'e', label: 'E', color: 'red', accessible: false }]);
    expect(refused(() => eventLevelCategories([{ key: 1, label: 'a' }, { key: '1', label: 'b' }])).code).toBe('DUPLICATE_CATEGORY_KEY');
    expect(refused(() => eventLevelCategories([{ key: 1, label: 'a', color: 'nope' }])).code).toBe('GENERAL_ERROR');
    expect(refused(() => eventLevelCategories([{ key: 1 }])).code).toBe('GENERAL_ERROR');
  });

  it('lets object categories name chart or event-level categories, by key of either type', () => {
    const own = eventLevelCategories([{ key: 'vip', label: 'VIP' }]);
    expect(checkObjectCategories({ 'A-1': 9, 'A-2': '10', GA1: 'vip' }, rows, own)).toEqual({ 'A-1': 9, 'A-2': '10', GA1: 'vip' });
    expect(refused(() => checkObjectCategories({ 'A-1': 'vip' }, rows, [])).code).toBe('CATEGORY_NOT_FOUND');
    expect(refused(() => checkObjectCategories({ 'Q-1': 9 }, rows, [])).code).toBe('OBJECT_NOT_FOUND');
  });
});

describe('newEventSettings', () => {
  it('gives every default for an empty input', () => {
    expect(newEventSettings({}, rows, today)).toEqual({
      name: null,
      date: null,
      tableBookingConfig: { mode: 'INHERIT' },
      objectCategories: {},
      categories: [],
    });
  });

  it('checks object categories against the event-level categories of the same input', () => {
    const settings = newEventSettings({ categories: [{ key: 'x', label: 'X' }], objectCategories: { 'B-1': 'x' } }, rows, today);
    expect(settings.objectCategories).toEqual({ 'B-1': 'x' });
  });
});

describe('eventUpdate', () => {
  it('changes only what is given, and nothing for an empty input', () => {
    expect(eventUpdate(event(), {}, rows, today)).toEqual({});
    expect(eventUpdate(event({ key: 'same' }), { eventKey: 'same' }, rows, today)).toEqual({});
    expect(eventUpdate(event(), { eventKey: 'other', name: 'N', date: '2020-01-01' }, rows, today)).toEqual({ key: 'other', name: 'N', date: '2020-01-01' });
    expect(eventUpdate(event({ name: 'N', date: '2020-01-01' }), { name: null, date: null }, rows, today)).toEqual({ name: null, date: null });
  });

  it('clears overrides with null or empty values', () => {
    const current = event({ objectCategories: { 'A-1': 9 }, categories: eventLevelCategories([{ key: 'e', label: 'E' }]) });
    expect(eventUpdate(current, { objectCategories: {} }, rows, today)).toEqual({ objectCategories: {} });
    expect(eventUpdate(current, { objectCategories: null, categories: null }, rows, today)).toEqual({ objectCategories: {}, categories: [] });
  });

  it('refuses removing an event-level category that object categories still name', () => {
    const current = event({ objectCategories: { 'A-1': 'e' }, categories: eventLevelCategories([{ key: 'e', label: 'E' }]) });
    expect(refused(() => eventUpdate(current, { categories: [] }, rows, today)).code).toBe('CATEGORY_NOT_FOUND');
    expect(eventUpdate(current, { categories: [], objectCategories: {} }, rows, today)).toEqual({ categories: [], objectCategories: {} });
  });

  it('refuses moving the event to another chart, and takes its own chart key as no change', () => {
    expect(eventUpdate(event(), { chartKey: 'chart' }, rows, today)).toEqual({});
    expect(refused(() => eventUpdate(event(), { chartKey: 'other', name: 'N' }, rows, today)).code).toBe('GENERAL_ERROR');
  });

  it('moves an event into the past, never back', () => {
    expect(eventUpdate(event(), { isInThePast: true }, rows, today)).toEqual({ isInThePast: true });
    expect(eventUpdate(event(), { isInThePast: false }, rows, today)).toEqual({});
  });
});

describe('object labels', () => {
  it('keeps each known label once, in order, and refuses unknown ones', () => {
    expect(knownLabels(rows, ['A-2', 'A-1', 'A-2', 'GA1'])).toEqual(['A-2', 'A-1', 'GA1']);
    expect(refused(() => knownLabels(rows, ['A-1', 'A-9'])).code).toBe('OBJECT_NOT_FOUND');
  });

  it('takes area places only for GA areas, from 1 to the capacity', () => {
    expect(knownAreaPlaces(rows, { GA1: 1, GA2: 100 })).toEqual({ GA1: 1, GA2: 100 });
    expect(generalAdmissionArea(rows, 'GA1').capacity).toBe(100);
    expect(refused(() => knownAreaPlaces(rows, { 'A-1': 1 })).code).toBe('GENERAL_ERROR');
    for (const places of [0, -1, 101, 1.5]) expect(refused(() => checkPlaces(generalAdmissionArea(rows, 'GA1'), places)).code).toBe('GENERAL_ERROR');
  });
});
