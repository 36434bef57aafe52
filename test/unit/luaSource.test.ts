import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptSource } from '../../src/inventory/luaSource.js';
import { statusLibrary } from '../../src/inventory/scripts.js';
import { SEASON_FEED_LENGTH } from '../../src/inventory/eventKeys.js';

// The include loader (src/inventory/luaSource.ts) and the rule that keeps one status call's
// state from reaching the next (lua/includes/callState.lua).

let dir: string;
function files(all: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), 'lua-source-'));
  mkdirSync(join(dir, 'includes'));
  for (const [name, text] of Object.entries(all)) writeFileSync(join(dir, name), text);
  return dir;
}
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The lines of an assembled source that are not blank. */
const lines = (source: string) => source.split('\n').filter((line) => line.trim() !== '');

describe('the Lua include loader', () => {
  it('puts every include once, after the includes it names, where the script names its first', () => {
    files({
      'main.lua': 'local header\n--#include c.lua\n--#include a.lua\nreturn 1\n',
      'includes/a.lua': '--#include b.lua\nlocal a\n',
      'includes/b.lua': '--#include c.lua\nlocal b\n',
      'includes/c.lua': 'local c\n',
    });
    expect(lines(scriptSource('main.lua', dir))).toEqual(['local header', 'local c', 'local b', 'local a', 'return 1']);
  });

  it('gives the same source whatever order the script names its includes in', () => {
    const includes = { 'includes/a.lua': '--#include b.lua\nlocal a\n', 'includes/b.lua': 'local b\n' };
    files({ 'one.lua': '--#include a.lua\n--#include b.lua\n', 'two.lua': '--#include b.lua\n--#include a.lua\n', ...includes });
    expect(scriptSource('one.lua', dir)).toBe(scriptSource('two.lua', dir));
  });

  it('refuses a cycle and an include that is not there, naming the path', () => {
    files({
      'cycle.lua': '--#include a.lua\n',
      'missing.lua': '--#include a2.lua\n',
      'includes/a.lua': '--#include b.lua\n',
      'includes/b.lua': '--#include a.lua\n',
      'includes/a2.lua': '--#include nothere.lua\n',
    });
    expect(() => scriptSource('cycle.lua', dir)).toThrow('cycle.lua -> a.lua -> b.lua -> a.lua form a cycle');
    expect(() => scriptSource('missing.lua', dir)).toThrow('missing.lua -> a2.lua includes nothere.lua');
  });
});

describe("the status function's includes", () => {
  it('keep no per-call table at chunk level: only constants (UPPER_CASE) and call (includes/callState.lua)', () => {
    const offenders: string[] = [];
    for (const file of readdirSync('lua/includes').filter((f) => f.endsWith('.lua'))) {
      for (const line of readFileSync(join('lua/includes', file), 'utf8').split('\n')) {
        // A chunk-level local that is not a function and not a constant: state that would
        // outlive the call in a Redis function's chunk.
        const match = /^local\s+([\w, ]+?)\s*(=|$)/.exec(line);
        if (!match || line.startsWith('local function')) continue;
        for (const name of match[1]!.split(',').map((n) => n.trim())) {
          if (!/^[A-Z][A-Z0-9_]*$/.test(name) && name !== 'call') offenders.push(`${file}: ${name}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("keep a season's feed as long as the TypeScript side says", () => {
    const constants = readFileSync('lua/includes/constants.lua', 'utf8');
    expect(Number(/local SEASON_FEED_LENGTH = '(\d+)'/.exec(constants)?.[1])).toBe(SEASON_FEED_LENGTH);
  });

  it('assemble the status function with each include once', () => {
    const source = statusLibrary('lua').source;
    const defined = [...source.matchAll(/^local function (\w+)/gm)].map((m) => m[1]!);
    expect(new Set(defined).size).toBe(defined.length);
    expect(source).not.toContain('--#include');
    // The contract's constants are declared once, however many includes name the contract.
    expect(source.match(/^local KEYS_PER_EVENT = /gm)).toHaveLength(1);
  });
});
