import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/serverFlags.js';

// The server's V8 flags are written in four places that cannot import them: they must say
// the same (src/serverFlags.ts says why they are what they are).

const flags = SERVER_NODE_FLAGS.join(' ');
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

describe('the server V8 flags', () => {
  it('npm start and npm run dev pass them', () => {
    expect(scripts.start).toBe(`node ${flags} dist/src/main.js`);
    expect(scripts.dev).toBe(`npm run build && node ${flags} dist/src/dev.js`);
  });

  it('the Docker image passes them', () => {
    expect(readFileSync('Dockerfile', 'utf8')).toContain(`CMD ${JSON.stringify(['node', ...SERVER_NODE_FLAGS, 'dist/src/main.js'])}`.replace(/,/g, ', '));
  });

  it('the bench starts the server, its reference and the jobs process (--jobs-apart) with them, unless a run is told other flags to measure', () => {
    const bench = readFileSync('bench/run.ts', 'utf8');
    expect(bench).toContain("const serverNodeFlags = option('--node-flags')?.split(' ').filter(Boolean) ?? SERVER_NODE_FLAGS;");
    expect(bench.match(/\.\.\.serverNodeFlags,/g)).toHaveLength(3);
    // The jobs process: the flags first, then a profile's when --profile asks for one.
    expect(bench).toMatch(/args: \[\.\.\.serverNodeFlags, (\.\.\.\(profileDir \? \[[^\]]*\] : \[\]\), )?'dist\/src\/worker\.js'\]/);
  });
});
