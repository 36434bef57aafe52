import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileLimit } from '../../src/util/openFileLimit.js';

describe('openFileLimit', () => {
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'limits-')), 'limits');
    writeFileSync(path, text);
    return path;
  };
  const header = 'Limit                     Soft Limit           Hard Limit           Units     \n';

  it('reads the soft limit of open files from a limits file', () => {
    expect(openFileLimit(file(`${header}Max processes             95532                95532                processes \nMax open files            20000                1048576              files     \n`))).toBe(20_000);
  });

  it('is undefined when unlimited, absent, or the file cannot be read', () => {
    expect(openFileLimit(file(`${header}Max open files            unlimited            unlimited            files     \n`))).toBeUndefined();
    expect(openFileLimit(file(header))).toBeUndefined();
    expect(openFileLimit('/no/such/file')).toBeUndefined();
  });
});
