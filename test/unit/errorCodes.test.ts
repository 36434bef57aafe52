import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, SCRIPT_REFUSALS, SCRIPT_SIGNALS } from '../../src/domain/errorCodes.js';

// The error registry (src/domain/errorCodes.ts) is the one list of codes: TypeScript refuses a
// code it lacks wherever an error is made; these tests hold the Lua side and the docs to it.

const filesUnder = (dir: string, ending: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), ending) : entry.name.endsWith(ending) ? [join(dir, entry.name)] : [],
  );
const textOf = (files: string[]) => files.map((file) => readFileSync(file, 'utf8')).join('\n');

describe('error registry', () => {
  it('has a message for every code the status script can refuse with, and knows every other code it answers', () => {
    const lua = textOf(filesUnder('lua', '.lua'));
    const failed = new Set([...lua.matchAll(/fail\('([A-Z_]+)'/g)].map((m) => m[1]!));
    expect(failed.size).toBeGreaterThan(10);
    const known = new Set<string>([...Object.keys(SCRIPT_REFUSALS), ...SCRIPT_SIGNALS]);
    expect([...failed].filter((code) => !known.has(code))).toEqual([]);
    expect(failed.has('OBJECT_TAKEN_IN_SEASON')).toBe(true);
    // No entry the script can no longer answer.
    expect([...known].filter((code) => !failed.has(code))).toEqual([]);
  });

  it('words a refusal from its labels and detail', () => {
    expect(SCRIPT_REFUSALS.OBJECT_NOT_FREE('A-1, A-2', 'booked')).toBe('Objects are not free: A-1, A-2 (status booked)');
    expect(SCRIPT_REFUSALS.OBJECT_TAKEN_IN_SEASON('A-1', 'booked')).toBe('Objects are taken in another unit of the season: A-1 (status booked)');
    // A status guard's refusal is seats.io's sentence, naming no object (lua/includes/statusGuard.lua gives the detail).
    expect(SCRIPT_REFUSALS.ILLEGAL_STATUS_CHANGE('A-1', 'allowed\u001ffree\u001flolzor')).toBe('Cannot change from [free] to [lolzor]: free is not in the list of allowed previous statuses');
    expect(SCRIPT_REFUSALS.ILLEGAL_STATUS_CHANGE('A-1', 'rejected\u001ffree\u001flolzor')).toBe('Cannot change from [free] to [lolzor]: free is in the list of rejected previous statuses');
  });

  it('has no code twice between the routes and the script, and every registered code is used', () => {
    const routeCodes = Object.keys(ERROR_CODES);
    expect(routeCodes.filter((code) => code in SCRIPT_REFUSALS)).toEqual([]);
    const source = textOf(filesUnder('src', '.ts').filter((file) => !file.endsWith('errorCodes.ts')));
    expect(routeCodes.filter((code) => !source.includes(`'${code}'`))).toEqual([]);
    for (const { status } of Object.values(ERROR_CODES)) expect(status >= 400 && status < 600).toBe(true);
  });

  it('documents only registered codes in docs/api.md', () => {
    const documented = new Set([...readFileSync('docs/api.md', 'utf8').matchAll(/`([A-Z]+(?:_[A-Z]+)+)`/g)].map((m) => m[1]!));
    const registered = new Set<string>([...Object.keys(ERROR_CODES), ...Object.keys(SCRIPT_REFUSALS)]);
    // Chart validation names (VALIDATE_...) are settings, not error codes.
    const codeLike = [...documented].filter((code) => !code.startsWith('VALIDATE_') && /(_NOT_|_FOUND|_ERROR|INVALID_|_EXCEEDED|_REQUIRED|ALREADY_|TOO_MANY_|DUPLICATE_)/.test(code));
    expect(codeLike.length).toBeGreaterThan(10);
    expect(codeLike.filter((code) => !registered.has(code))).toEqual([]);
  });
});
