import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectDir } from '../../src/util/projectDir.js';

// The rooms of src/ and which way their imports point (README, "Layout"): routes -> services
// -> domain, inventory and metadata; src/http/ is the HTTP machinery and knows no resource;
// src/domain/ is pure logic, with no I/O of its own or of the modules that do it; no module
// imports itself round a circle. Read from the sources' `import ... from '...'` (and `export
// ... from`) lines, type-only imports included: a circle of types is a circle of meaning.

const ROOT = projectDir();

/** The relative modules a TypeScript source imports, as written (`./x.js`, `../y/z.js`). */
function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]/gm)) found.push(m[1]!);
  for (const m of source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) found.push(m[1]!);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found.filter((spec) => spec.startsWith('.'));
}

/** Every .ts file under `dir` (declaration files aside), as paths relative to the project. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

type Graph = Map<string, string[]>;

/** src/'s modules and what each imports, by project-relative path (`src/http/route.ts`). */
function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sources('src')) {
    const targets = importsOf(readFileSync(join(ROOT, file), 'utf8')).map((spec) =>
      relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts'),
    );
    graph.set(file, targets);
  }
  return graph;
}

/**
 * Each circle of the graph as one path round it (`a -> b -> a`), one per strongly connected
 * group of modules, with the group's other modules after it (`; also c`).
 */
function circles(graph: Graph): string[] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = new Set<string>();
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.add(w);
    } while (w !== v);
    if (group.size === 1 && !graph.get(v)!.includes(v)) return;
    const path = pathRound(graph, v, group);
    const others = [...group].filter((file) => !path.includes(file)).sort();
    found.push(others.length > 0 ? `${path}; also ${others.join(', ')}` : path);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

/** A shortest way from `start` back to itself through `group` (a strongly connected group), named file by file. */
function pathRound(graph: Graph, start: string, group: Set<string>): string {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const path = [start];
        for (let at: string | undefined = v; at !== undefined && at !== start; at = cameFrom.get(at)) path.splice(1, 0, at);
        return [...path, start].join(' -> ');
      }
      if (group.has(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return start;
}

/** `file -> target` for each import of a file under `from` that reaches into one of `into`, but for `allowed` files. */
function reaching(graph: Graph, from: string, into: string[], allowed: string[] = []): string[] {
  return [...graph].flatMap(([file, targets]) =>
    file.startsWith(from) && !allowed.includes(file) ? targets.filter((t) => into.some((room) => t.startsWith(room))).map((t) => `${file} -> ${t}`) : [],
  );
}

describe('how the import graph is read', () => {
  it('finds imports of each form, type-only and re-exports included, and only relative ones', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      'import {',
      '  c,',
      '  type D,',
      "} from './cd.js';",
      "export { e } from './e.js';",
      "import './sideEffect.js';",
      "const f = await import('./lazy.js');",
      "import { Redis } from 'ioredis';",
    ].join('\n');
    expect(importsOf(source)).toEqual(['./a.js', '../b/b.js', './cd.js', './e.js', './sideEffect.js', './lazy.js']);
  });

  it('names every module of a circle, and no module outside one', () => {
    const graph: Graph = new Map([
      ['a', ['b']],
      ['b', ['c', 'd']],
      ['c', ['a']],
      ['d', []],
      ['e', ['e']],
      ['f', ['g']],
      ['g', ['f', 'h']],
      ['h', ['g']],
    ]);
    expect(circles(graph)).toEqual(['a -> b -> c -> a', 'e -> e', 'f -> g -> f; also h']);
    expect(circles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });
});

describe("src/'s imports", () => {
  const graph = importGraph();

  it('are read from every module', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('src/http/server.ts')).toContain('src/http/route.ts');
    // Every import names a module that is there (a wrong resolution would hide edges).
    const missing = [...graph].flatMap(([file, targets]) => targets.filter((t) => !graph.has(t)).map((t) => `${file} -> ${t}`));
    expect(missing).toEqual([]);
  });

  it('go round no circle', () => {
    expect(circles(graph), 'import circles (each shown once, file by file)').toEqual([]);
  });

  it('from src/http/ reach no route, service or metadata module', () => {
    expect(reaching(graph, 'src/http/', ['src/routes/', 'src/services/', 'src/metadata/'])).toEqual([]);
  });

  it('from src/domain/ reach no module that does I/O', () => {
    expect(reaching(graph, 'src/domain/', ['src/inventory/', 'src/metadata/', 'src/services/', 'src/routes/', 'src/http/', 'src/jobs/'])).toEqual([]);
  });
});
