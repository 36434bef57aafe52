import { setTimeout as sleep } from 'node:timers/promises';

/** Asks `done` every `pollMs` until it says yes or `maxMs` passed; whether it said yes. */
export async function waitUntil(done: () => Promise<boolean>, maxMs: number, pollMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= until) return false;
    await sleep(pollMs);
  }
}
