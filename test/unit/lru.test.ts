import { describe, expect, it } from 'vitest';
import { Lru } from '../../src/util/lru.js';

describe('Lru', () => {
  it('keeps at most its capacity, forgetting the oldest first', () => {
    const lru = new Lru<number, string>(3);
    for (let i = 0; i < 5; i++) lru.set(i, `v${i}`);
    expect(lru.size).toBe(3);
    expect([0, 1, 2, 3, 4].map((i) => lru.get(i))).toEqual([undefined, undefined, 'v2', 'v3', 'v4']);
  });

  it('forgets the least recently used: a use makes an entry the newest', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
  });

  it('in a bigger cache too: an entry used after others came in outlives them', () => {
    const lru = new Lru<number, number>(16);
    for (let i = 0; i < 16; i++) lru.set(i, i);
    expect(lru.get(0)).toBe(0);
    for (let i = 16; i < 31; i++) lru.set(i, i);
    // 15 newcomers took the places of 1..15; 0, used after them, stayed.
    expect(lru.get(0)).toBe(0);
    expect([1, 8, 15].map((i) => lru.get(i))).toEqual([undefined, undefined, undefined]);
    expect(lru.size).toBe(16);
  });

  it('an entry used over and over stays, however many others come and go', () => {
    const lru = new Lru<string, number>(8);
    lru.set('hot', 1);
    for (let i = 0; i < 1000; i++) {
      expect(lru.get('hot')).toBe(1);
      lru.set(`cold${i}`, i);
    }
    expect(lru.size).toBe(8);
  });

  it('the newest entry asked for again stays the newest, and a deleted newest one is moved when it comes back', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('b')).toBe(2);
    expect(lru.get('b')).toBe(2);
    lru.set('c', 3);
    expect(lru.get('a')).toBeUndefined();
    expect(lru.get('b')).toBe(2);
    // b is the newest; deleted and set again it is still the newest, c the oldest.
    lru.delete('b');
    lru.set('b', 4);
    lru.set('d', 5);
    expect(lru.get('c')).toBeUndefined();
    expect([lru.get('b'), lru.get('d')]).toEqual([4, 5]);
    // c gone, b asked for before d: d is the newest, so e pushes b out.
    expect(lru.get('b')).toBe(4);
    expect(lru.get('d')).toBe(5);
    lru.set('e', 6);
    expect(lru.get('b')).toBeUndefined();
  });

  it('set replaces a value; delete and clear forget', () => {
    const lru = new Lru<string, number>(4);
    lru.set('a', 1);
    lru.set('a', 2);
    expect(lru.get('a')).toBe(2);
    expect(lru.size).toBe(1);
    lru.set('b', 3);
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
    lru.clear();
    expect(lru.size).toBe(0);
  });
});
