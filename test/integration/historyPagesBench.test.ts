import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm run bench:history` (bench/historyPages.ts, docs/benchmarks.md) on a small chart: it
// stores the whole history, reads its pages and reports how long requests beside them waited.

describe('bench:history', () => {
  it('stores two changes per seat, reads the pages and reports the longest wait beside them', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/bench/historyPages.js', '2'], { timeout: 120_000 });
    const figures = JSON.parse(stdout.trim()) as { changes: number; pageMs: number[]; longestHealthMs: number };
    expect(figures.changes).toBe(2 * 2 * 40 * 25);
    expect(figures.pageMs).toHaveLength(3);
    expect(figures.longestHealthMs).toBeGreaterThanOrEqual(0);
  }, 150_000);
});
