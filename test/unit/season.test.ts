import { describe, expect, it } from 'vitest';
import type { EventDoc, SeasonLink } from '../../src/domain/event.js';
import { FIELD_SEPARATOR } from '../../src/domain/objectStates.js';
import type { ObjectSnapshot } from '../../src/domain/eventObjectInfo.js';
import { areaState, objectState } from '../../src/domain/objectStates.js';
import { eventsOf, familyOf, heldBackByEvents, scopeOf, seasonFields, seasonView } from '../../src/domain/season.js';
import { eventDoc } from '../support/eventDocs.js';

// The season domain without servers (docs/seasons.md): which units a unit of a season is
// checked against, the record fields, and what events hold back from their season.

const unit = (id: number, key: string, season: SeasonLink, isInThePast = false): EventDoc => eventDoc({ _id: id, key, season, isInThePast });

const top = unit(1, 'season', { role: 'top', forSalePropagated: true });
const e2 = unit(2, 'e2', { role: 'event', topId: 1 });
const e3 = unit(3, 'e3', { role: 'event', topId: 1 });
const e4 = unit(4, 'e4', { role: 'event', topId: 1 }, true);
const p5 = unit(5, 'p5', { role: 'partial', topId: 1, eventIds: [3, 2] });
const p6 = unit(6, 'p6', { role: 'partial', topId: 1, eventIds: [] });
const p7 = unit(7, 'p7', { role: 'partial', topId: 1, eventIds: [3] });
const family = familyOf([p7, e3, p6, top, e4, p5, e2]);
const ids = (units: EventDoc[]) => units.map((u) => u._id);

describe('scopeOf', () => {
  it('an event is checked against its season and its partial seasons, in full', () => {
    const scope = scopeOf(e3, family);
    expect(ids(scope.sum)).toEqual([1, 5, 7]);
    expect(scope.groups).toEqual([]);
    expect(scope.role).toBe('event');
  });

  it('a partial season: the season in full, and each of its live events with its other partial seasons', () => {
    const scope = scopeOf(p5, family);
    expect(ids(scope.sum)).toEqual([1]);
    expect(scope.groups.map(ids)).toEqual([[2], [3, 7]]);
  });

  it('the season: each live event with its partial seasons, and partial seasons without live events alone; past events not at all', () => {
    const scope = scopeOf(top, family);
    expect(scope.sum).toEqual([]);
    expect(scope.groups.map(ids)).toEqual([[2, 5], [3, 5, 7], [6]]);
    expect(scope.propagated).toBe(true);
  });
});

describe('seasonFields and eventsOf', () => {
  it('flags and keys per role', () => {
    expect(seasonFields(top, family)).toEqual({
      isSeason: true,
      isTopLevelSeason: true,
      isPartialSeason: false,
      isEventInSeason: false,
      partialSeasonKeys: ['p5', 'p6', 'p7'],
      forSalePropagated: true,
    });
    expect(seasonFields(p5, family)).toMatchObject({ isSeason: true, isPartialSeason: true, topLevelSeasonKey: 'season' });
    expect(seasonFields(p5, family).partialSeasonKeys).toBeUndefined();
    expect(seasonFields(e3, family)).toMatchObject({ isSeason: false, isEventInSeason: true, topLevelSeasonKey: 'season', partialSeasonKeysForEvent: ['p5', 'p7'] });
    const standalone = unit(9, 'alone', { role: 'event', topId: 1 });
    delete standalone.season;
    expect(seasonFields(standalone, null)).toEqual({ isSeason: false, isTopLevelSeason: false, isPartialSeason: false, isEventInSeason: false });
  });

  it("a season lists its events in creation order, a partial season in its own order", () => {
    expect(ids(eventsOf(top, family))).toEqual([2, 3, 4]);
    expect(ids(eventsOf(p5, family))).toEqual([3, 2]);
    expect(eventsOf(e2, family)).toEqual([]);
  });
});

describe('heldBackByEvents', () => {
  it('the most places any one event keeps off sale or assigns to a channel of its own, per object', () => {
    const fields = new Map<EventDoc, Map<string, string>>([
      [e2, new Map([['n:A-1', '1'], ['n:GA', '30'], ['c:A-2', 'own']])],
      [e3, new Map([['n:GA', '10'], ['a:GA', ['ch1', '20', 'ch2', '25'].join(FIELD_SEPARATOR)], ['c:Booth', 'x']])],
    ]);
    const heldBack = heldBackByEvents([e2, e3], (e) => fields.get(e)!, (label) => (label === 'GA' ? 100 : 1));
    expect(Object.fromEntries(heldBack)).toEqual({ 'A-1': 1, GA: 45, 'A-2': 1, Booth: 1 });
  });
});

describe('seasonView', () => {
  const seat = (record: string | null): ObjectSnapshot => ({ state: objectState(record, () => 0, 0) });
  const area = (record: string | null): ObjectSnapshot => ({ state: areaState(record) });
  const isArea = (label: string) => label === 'GA';
  const none = new Set<string>();

  it("in an event: a seat free there shows the season's status unless overridden; an area loses what the season took", () => {
    const own = new Map([['A-1', seat(null)], ['A-2', seat(null)], ['GA', area('5')]]);
    const season = new Map([['A-1', seat('booked')], ['A-2', seat('booked')], ['GA', area('30')]]);
    seasonView('event', own, { sum: [season], groups: [], overridden: new Set(['A-2']), heldBack: none, isArea });
    expect(own.get('A-1')!.state.status).toBe('booked');
    expect(own.get('A-2')).toMatchObject({ state: { status: 'free' }, seasonStatusOverridden: true });
    expect(own.get('GA')!.seasonTakenPlaces).toBe(30);
  });

  it('on a season: a seat taken in an event or kept back is unavailable; an area loses the fullest event', () => {
    const own = new Map([['A-1', seat(null)], ['A-2', seat(null)], ['A-3', seat(null)], ['GA', area(null)]]);
    const e1 = new Map([['A-1', seat('booked')], ['GA', area('40\u001f5')]]);
    const e2 = new Map([['GA', area('20')]]);
    seasonView('top', own, { sum: [], groups: [[e1], [e2]], overridden: none, heldBack: new Set(['A-2']), isArea });
    expect(own.get('A-1')).toMatchObject({ state: { status: 'free' }, unavailable: 'booked' });
    expect(own.get('A-2')!.unavailable).toBe('not_for_sale');
    expect(own.get('A-3')!.unavailable).toBeUndefined();
    expect(own.get('GA')!.seasonTakenPlaces).toBe(45);
  });
});
