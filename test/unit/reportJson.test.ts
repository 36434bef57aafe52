import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { groupedJson } from '../../src/services/reportJson.js';
import { SLICE_SIZE } from '../../src/util/slices.js';

// Detailed reports' bodies (src/services/reportJson.ts): the groups always shown first, then
// the others as their first object turns up; within a group, the objects in the order given.

const pace = { pause: async () => undefined, compressionWidth: () => 1 };
/** The body's groups in order, each with its objects' ids in order. */
const written = (body: Buffer): [string, number[]][] =>
  Object.entries(JSON.parse(gunzipSync(body).toString()) as Record<string, { id: number }[]>).map(([group, items]) => [group, items.map((i) => i.id)]);

describe('groupedJson', () => {
  // More objects than a slice, in groups that interleave.
  const objects = Array.from({ length: SLICE_SIZE * 2 + 7 }, (_, id) => ({ id, group: ['b', 'c', 'a'][id % 3 === 0 ? 0 : id % 7 === 0 ? 2 : 1]! }));
  const entry = (o: { id: number; group: string }) => ({ group: o.group, json: () => JSON.stringify({ id: o.id }) });
  const ids = (group: string) => objects.filter((o) => o.group === group).map((o) => o.id);

  it('writes the groups always shown first, empty or not, then the others as they turn up, each in the objects\' order', async () => {
    const body = await groupedJson(objects, entry, ['a', 'none'], pace);
    expect(written(body)).toEqual([
      ['a', ids('a')],
      ['none', []],
      ['b', ids('b')],
      ['c', ids('c')],
    ]);
  });

  it('writes one group alone with `only`, [] when no object is in it', async () => {
    expect(written(await groupedJson(objects, entry, ['a'], pace, 'c'))).toEqual([['c', ids('c')]]);
    expect(written(await groupedJson(objects, entry, ['a'], pace, 'absent'))).toEqual([['absent', []]]);
  });

  it('writes groups of many blocks each, compressed apart as their objects turn up, into one gzip member', async () => {
    // Three interleaved groups of some 2.7 MB each: each group's part fills several blocks
    // before the groups are placed in order, and the trailer's CRC is combined from the parts'.
    const many = Array.from({ length: 30_000 }, (_, id) => ({ id, group: ['x', 'y', 'z'][id % 3]!, pad: 'p'.repeat(200 + (id % 97)) }));
    const body = await groupedJson(many, (o) => ({ group: o.group, json: () => JSON.stringify({ id: o.id, pad: o.pad }) }), ['z'], pace);
    const expected = JSON.stringify(Object.fromEntries(['z', 'x', 'y'].map((g) => [g, many.filter((o) => o.group === g).map((o) => ({ id: o.id, pad: o.pad }))])));
    expect(expected.length).toBeGreaterThan(7 << 20);
    expect(gunzipSync(body).toString()).toBe(expected);
    // The stock gunzip checks the CRC and length in the trailer too.
    expect(execFileSync('gzip', ['-dc'], { input: body, maxBuffer: 64 << 20 }).toString()).toBe(expected);
  });
});
