import { readFileSync } from 'node:fs';

// The process's limit on open files (its soft RLIMIT_NOFILE), which bounds how many sockets it
// can hold: every status stream subscriber and HTTP connection is one. Node has no call for it;
// Linux shows it in /proc/self/limits. Undefined elsewhere, or when unlimited.

export function openFileLimit(limits = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limits, 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
}
