import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The tests import the server's modules from the build (dist/), as `npm start` runs them: Node
// loads compiled JavaScript about three times faster than vitest transforms the TypeScript, and
// most test files load the whole server (vitest.config.ts, `alias`). `npm test` builds first
// (its pretest); a test run started some other way (`npx vitest run FILE`) after an edit
// builds here, before any file runs, so no test ever runs against an older build. The build is
// synchronous on purpose: the projects' set-ups share this process, so a second one waits.

const ROOTS = ['src', 'bench'];

/** The TypeScript files under `dir` whose compiled file in dist/ is missing or older. */
function stale(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...stale(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
      const built = join('dist', path.replace(/\.ts$/, '.js'));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(path).mtimeMs) found.push(path);
    }
  }
  return found;
}

export default function setup(): void {
  const behind = ROOTS.flatMap(stale);
  if (behind.length === 0) return;
  console.log(`dist/ is older than ${behind.length} source file(s) (${behind.slice(0, 3).join(', ')}${behind.length > 3 ? ', ...' : ''}): building`);
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
