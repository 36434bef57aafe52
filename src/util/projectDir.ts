import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's folder (the one with package.json), found from where this module runs: src/
 * under the tests, dist/src/ when built. For the files the code loads at run time (lua/, the
 * box-office page).
 */
export function projectDir(): string {
  const here = fileURLToPath(import.meta.url);
  let dir = dirname(here);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('the project folder (package.json) not found above ' + here);
    dir = parent;
  }
}
