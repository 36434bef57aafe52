import { describe, expect, it } from 'vitest';
import {
  addChannels,
  addToChannel,
  checkChannels,
  removeChannel,
  removeFromChannel,
  replaceChannels,
  updateChannel,
  type ChannelInput,
} from '../../src/domain/channels.js';
import { ApiError } from '../../src/domain/errors.js';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import type { Channel } from '../../src/domain/event.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';

// Channel list changes: each builds the new list and checks it as a whole (unique keys
// and names, an object in one channel at most, GA areas whole or in places, capacity).

const index = buildObjectIndex(rowsWithoutSections);

function refusal(fn: () => unknown): { status: number; code: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return { status: (e as ApiError).status, code: (e as ApiError).errors[0]!.code };
  }
  throw new Error('expected a refusal');
}

function ids() {
  let next = 0;
  return () => `id${++next}`;
}

const channels = (inputs: ChannelInput[]): Channel[] => replaceChannels([], inputs, index, ids());

describe('replaceChannels', () => {
  it('builds channels with fresh ids, null for what is not given, each label once', () => {
    expect(replaceChannels([], [{ key: 'a', name: 'A', objects: ['A-1', 'A-1', 'A-2'] }, { key: 'b', name: 'B', color: 'red', index: 2, areaPlaces: { GA1: 3 } }], index, ids())).toEqual([
      { id: 'id1', key: 'a', name: 'A', color: null, index: null, objects: ['A-1', 'A-2'], areaPlaces: {} },
      { id: 'id2', key: 'b', name: 'B', color: 'red', index: 2, objects: [], areaPlaces: { GA1: 3 } },
    ]);
  });

  it('keeps the id of a key that stays', () => {
    const existing = channels([{ key: 'a', name: 'A' }]);
    expect(replaceChannels(existing, [{ key: 'b', name: 'B' }, { key: 'a', name: 'Renamed' }], index, () => 'fresh').map((c) => [c.key, c.id])).toEqual([
      ['b', 'fresh'],
      ['a', 'id1'],
    ]);
  });

  it.each<[string, ChannelInput[], string]>([
    ['duplicate keys', [{ key: 'a', name: 'A' }, { key: 'a', name: 'B' }], 'DUPLICATE_CHANNEL_KEY'],
    ['duplicate names', [{ key: 'a', name: 'A' }, { key: 'b', name: 'A' }], 'DUPLICATE_CHANNEL_NAME'],
    ['an object in two channels', [{ key: 'a', name: 'A', objects: ['A-1'] }, { key: 'b', name: 'B', objects: ['A-1'] }], 'OBJECT_ALREADY_IN_CHANNEL'],
    ['an unknown label', [{ key: 'a', name: 'A', objects: ['X'] }], 'OBJECT_NOT_FOUND'],
    ['a GA area whole and in places', [{ key: 'a', name: 'A', objects: ['GA1'] }, { key: 'b', name: 'B', areaPlaces: { GA1: 1 } }], 'GENERAL_ERROR'],
    ['a GA area whole and in places of one channel', [{ key: 'a', name: 'A', objects: ['GA1'], areaPlaces: { GA1: 1 } }], 'GENERAL_ERROR'],
    ['more places than the area has', [{ key: 'a', name: 'A', areaPlaces: { GA1: 60 } }, { key: 'b', name: 'B', areaPlaces: { GA1: 41 } }], 'GENERAL_ERROR'],
    ['places of a seat', [{ key: 'a', name: 'A', areaPlaces: { 'A-1': 1 } }], 'GENERAL_ERROR'],
    ['a bad colour', [{ key: 'a', name: 'A', color: 'reddish' }], 'GENERAL_ERROR'],
    ['the reserved key NO_CHANNEL', [{ key: 'NO_CHANNEL', name: 'A' }], 'GENERAL_ERROR'],
    ['51 channels', Array.from({ length: 51 }, (_, i) => ({ key: `k${i}`, name: `n${i}` })), 'GENERAL_ERROR'],
  ])('refuses %s with 400', (_what, inputs, code) => {
    expect(refusal(() => channels(inputs))).toEqual({ status: 400, code });
  });

  it('allows the places of one area spread over channels up to its capacity', () => {
    const list = channels([{ key: 'a', name: 'A', areaPlaces: { GA1: 60 } }, { key: 'b', name: 'B', areaPlaces: { GA1: 40 } }]);
    expect(list.map((c) => c.areaPlaces)).toEqual([{ GA1: 60 }, { GA1: 40 }]);
  });
});

describe('changes of one channel', () => {
  const base = () => channels([{ key: 'a', name: 'A', objects: ['A-1', 'A-2'], areaPlaces: { GA1: 5 } }, { key: 'b', name: 'B', objects: ['A-3'] }]);

  it('adds channels after the existing ones, refusing a key or name already there', () => {
    expect(addChannels(base(), [{ key: 'c', name: 'C' }], index, () => 'new').map((c) => c.key)).toEqual(['a', 'b', 'c']);
    expect(refusal(() => addChannels(base(), [{ key: 'a', name: 'Other' }], index, () => 'new')).code).toBe('DUPLICATE_CHANNEL_KEY');
    expect(refusal(() => addChannels(base(), [{ key: 'c', name: 'B' }], index, () => 'new')).code).toBe('DUPLICATE_CHANNEL_NAME');
  });

  it('updates the fields given; objects and places replace the lists', () => {
    const [a] = updateChannel(base(), 'a', { name: 'New', objects: ['B-1'], areaPlaces: null, color: 'blue' }, index);
    expect(a).toEqual({ id: 'id1', key: 'a', name: 'New', color: 'blue', index: null, objects: ['B-1'], areaPlaces: {} });
    expect(updateChannel(base(), 'a', {}, index)).toEqual(base());
    expect(refusal(() => updateChannel(base(), 'a', { objects: ['A-3'] }, index)).code).toBe('OBJECT_ALREADY_IN_CHANNEL');
    expect(refusal(() => updateChannel(base(), 'zzz', { name: 'Z' }, index))).toEqual({ status: 404, code: 'CHANNEL_NOT_FOUND' });
  });

  it('removes a channel', () => {
    expect(removeChannel(base(), 'a').map((c) => c.key)).toEqual(['b']);
    expect(refusal(() => removeChannel(base(), 'zzz'))).toEqual({ status: 404, code: 'CHANNEL_NOT_FOUND' });
  });

  it('assigns objects by moving them out of other channels, and adds places', () => {
    const [a, b] = addToChannel(base(), 'a', { objects: ['A-3', 'B-1', 'A-1'], areaPlaces: { GA1: 10, GA2: 1 } }, index);
    expect(a).toMatchObject({ objects: ['A-1', 'A-2', 'A-3', 'B-1'], areaPlaces: { GA1: 15, GA2: 1 } });
    expect(b!.objects).toEqual([]);
    expect(refusal(() => addToChannel(base(), 'a', { areaPlaces: { GA1: 96 } }, index)).code).toBe('GENERAL_ERROR');
    expect(refusal(() => addToChannel(base(), 'a', { objects: ['GA1'] }, index)).code).toBe('GENERAL_ERROR');
    expect(refusal(() => addToChannel(base(), 'zzz', { objects: ['B-2'] }, index)).code).toBe('CHANNEL_NOT_FOUND');
  });

  it('unassigns objects and places, ignoring what the channel does not have', () => {
    const [a, b] = removeFromChannel(base(), 'a', { objects: ['A-1', 'A-3'], areaPlaces: { GA1: 2, GA2: 1 } }, index);
    expect(a).toMatchObject({ objects: ['A-2'], areaPlaces: { GA1: 3 } });
    expect(b!.objects).toEqual(['A-3']);
    expect(removeFromChannel(base(), 'a', { areaPlaces: { GA1: 5 } }, index)[0]!.areaPlaces).toEqual({});
    expect(refusal(() => removeFromChannel(base(), 'a', { objects: ['nope'] }, index)).code).toBe('OBJECT_NOT_FOUND');
  });

  it('tolerates a channel naming an area the republished chart lost (nothing to overbook)', () => {
    const stale: Channel[] = [{ id: 'x', key: 'x', name: 'X', color: null, index: null, objects: ['gone'], areaPlaces: { goneGA: 5 } }];
    expect(checkChannels(stale, index)).toBe(stale);
  });
});
