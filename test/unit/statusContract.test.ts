import { describe, expect, it } from 'vitest';
import { EVENT_KEY_NAMES } from '../../src/inventory/eventKeys.js';
import { statusLibrary } from '../../src/inventory/scripts.js';
import { KEPT_FOR_MS } from '../../src/inventory/holdTokenKeys.js';
import { BATCH_REQUEST_HEAD, PLAIN_ARGS, STATUS_ARGS, statusArgs, statusContractLua, TOKEN_KEYS } from '../../src/inventory/statusContract.js';

// The status call's contract (src/inventory/statusContract.ts): the server and the Lua take
// the keys' and arguments' positions from the same lists.

/** name -> value of the `local NAME = n` lines of a Lua text. */
const constants = (lua: string) => Object.fromEntries([...lua.matchAll(/^local (\w+) = (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));

describe("the status call's contract", () => {
  it('gives the Lua each key and argument at the position the server puts it', () => {
    const lua = constants(statusContractLua());
    expect(lua.KEYS_PER_EVENT).toBe(EVENT_KEY_NAMES.length);
    expect(lua.EVENT_KEY_OBJECTS).toBe(EVENT_KEY_NAMES.indexOf('objects') + 1);
    expect(lua.EVENT_KEY_EXTRA_DATA).toBe(EVENT_KEY_NAMES.indexOf('extraData') + 1);
    expect(lua.EVENT_KEY_HISTORY).toBe(EVENT_KEY_NAMES.indexOf('history') + 1);
    expect(lua.ARG_NOW).toBe(STATUS_ARGS.indexOf('now') + 1);
    expect(lua.ARG_SENT_BEFORE).toBe(STATUS_ARGS.indexOf('sentBefore') + 1);
    // A plain call's arguments follow the general ones, its objects after them.
    expect(lua.ARG_OP).toBe(STATUS_ARGS.length + PLAIN_ARGS.indexOf('op') + 1);
    expect(lua.ARG_AREAS).toBe(STATUS_ARGS.length + PLAIN_ARGS.indexOf('areas') + 1);
    expect(lua.ARG_OBJECTS).toBe(STATUS_ARGS.length + PLAIN_ARGS.length + 1);
    // A hold's token keys, counted back from the record key (last); how long a token's events set is kept.
    expect(lua.TOKEN_KEY_FROM_END_TOKEN).toBe(TOKEN_KEYS.length - TOKEN_KEYS.indexOf('token'));
    expect(lua.TOKEN_KEY_FROM_END_TOKEN_EVENTS).toBe(TOKEN_KEYS.length - TOKEN_KEYS.indexOf('tokenEvents'));
    expect(lua.TOKEN_EVENTS_KEPT_MS).toBe(KEPT_FOR_MS);
    // A batch: the count first, then each request's head (its own keys' count, its arguments' count) and arguments.
    expect([lua.BATCH_ARG_COUNT, lua.BATCH_FIRST_REQUEST]).toEqual([1, 2]);
    expect([lua.BATCH_HEAD_MORE_KEYS, lua.BATCH_HEAD_ARG_COUNT, lua.BATCH_HEAD_LENGTH]).toEqual([BATCH_REQUEST_HEAD.indexOf('moreKeys'), BATCH_REQUEST_HEAD.indexOf('argCount'), BATCH_REQUEST_HEAD.length]);
    expect(Object.keys(lua)).toHaveLength(1 + EVENT_KEY_NAMES.length + STATUS_ARGS.length + PLAIN_ARGS.length + 1 + TOKEN_KEYS.length + 1 + 2 + BATCH_REQUEST_HEAD.length + 1);
    expect(statusArgs({ sentBefore: 0, keepMs: 4, deadline: 3, request: '{}', now: 1, recordId: 'c1' })).toEqual([1, '{}', 3, 4, 0, 'c1']);
    // Into a plain call's list, whose first places are kept for them.
    const plain = [0, 0, 0, 0, 0, 0, 'book', 'booked', 'A-1'];
    expect(statusArgs({ sentBefore: 1, keepMs: 4, deadline: 3, request: '', now: 1, recordId: 'c1' }, plain)).toBe(plain);
    expect(plain).toEqual([1, '', 3, 4, 1, 'c1', 'book', 'booked', 'A-1']);
  });

  it('is the only way the status function reads its arguments and an event\'s keys, and it uses every position', () => {
    const source = statusLibrary().source;
    expect(source).not.toMatch(/ARGV\[\d/);
    expect(source).not.toMatch(/args\[\d/);
    expect(source).not.toMatch(/KEYS\[base \+ \d/);
    for (const name of Object.keys(constants(statusContractLua()))) {
      // Declared once, read at least once.
      expect(source.split(name).length - 1, name).toBeGreaterThanOrEqual(2);
    }
  });
});
