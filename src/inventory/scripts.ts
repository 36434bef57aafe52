import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

// Loads lua/*.lua once per connection as ioredis commands (EVALSHA with EVAL fallback).
// A file `change-hold-token-expiry.lua` becomes the command `changeHoldTokenExpiry`; the
// number of KEYS is passed per call, so one loader fits every script.

/** The lua/ folder of the project, found from both src/ (tests) and dist/src/ (built). */
function luaDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'lua');
    if (existsSync(join(candidate, 'README.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('lua/ folder not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

function withIncludes(source: string, dir: string): string {
  return source.replace(/^--#include\s+(\S+)\s*$/gm, (_, name: string) => readFileSync(join(dir, 'includes', name), 'utf8'));
}

const commandName = (file: string) => file.replace(/\.lua$/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

export type ScriptCall = (numberOfKeys: number, ...keysAndArgs: (string | number)[]) => Promise<unknown>;

export function defineScripts(redis: Redis): Record<string, ScriptCall> {
  const dir = luaDir();
  const calls: Record<string, ScriptCall> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua'))) {
    const name = commandName(file);
    redis.defineCommand(name, { lua: withIncludes(readFileSync(join(dir, file), 'utf8'), dir) });
    const command = (redis as unknown as Record<string, ScriptCall>)[name]!;
    calls[name] = (...args) => command.apply(redis, args);
  }
  return calls;
}
