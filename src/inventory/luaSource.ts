import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Assembles a Lua script from its file and the includes it names (lua/includes/README.md),
// as BullMQ's script loader does: a line `--#include name.lua` in a script or in an include
// names lua/includes/name.lua. Includes are resolved depth first, each emitted once, every
// one after the includes it names, so the order of the lines does not matter; a cycle is
// refused. They all take the place of the script's first include line: what the script
// declares above it (the status function's per-call locals) is in scope for all of them.

const INCLUDE_LINE = /^--#include[ \t]+(\S+)[ \t]*$/gm;

/** The includes a text names, in the order it names them. */
const includesOf = (text: string): string[] => [...text.matchAll(INCLUDE_LINE)].map((match) => match[1]!);

/**
 * A script's source with its includes resolved (see above). `generated`: includes made by
 * the server rather than read from lua/includes (the status call's contract), by name.
 */
export function scriptSource(file: string, dir: string, generated: Record<string, string> = {}): string {
  const script = readFileSync(join(dir, file), 'utf8');
  const emitted = new Set<string>();
  const parts: string[] = [];
  const visit = (name: string, path: string[]) => {
    if (path.includes(name)) throw new Error(`lua/${file}: the includes ${[...path, name].join(' -> ')} form a cycle`);
    if (emitted.has(name)) return;
    let text: string;
    try {
      text = generated[name] ?? readFileSync(join(dir, 'includes', name), 'utf8');
    } catch {
      throw new Error(`lua/${file}: ${path.join(' -> ')} includes ${name}, which is not in lua/includes/`);
    }
    for (const needed of includesOf(text)) visit(needed, [...path, name]);
    emitted.add(name);
    parts.push(text.replace(INCLUDE_LINE, '').trimEnd() + '\n');
  };
  for (const name of includesOf(script)) visit(name, [file]);
  let first = true;
  return script.replace(INCLUDE_LINE, () => {
    if (!first) return '';
    first = false;
    return parts.join('\n');
  });
}
