import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm run bench:fanout` (bench/statusFanOut.ts, docs/benchmarks.md) on a few subscribers:
// it runs to the end with real WebSockets and reports a CPU cost per send for both ways.

describe('bench:fanout', () => {
  it('sends every message to every subscriber both ways and reports the CPU per send', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/bench/statusFanOut.js', '20', '10', '2'], { timeout: 60_000 });
    const figures = JSON.parse(stdout.trim()) as Record<string, number>;
    expect(figures.subscribers).toBe(20);
    expect(figures.textUsPerSend).toBeGreaterThan(0);
    expect(figures.bytesUsPerSend).toBeGreaterThan(0);
    expect(figures.bytesToText).toBeCloseTo(figures.bytesUsPerSend! / figures.textUsPerSend!, 1);
  }, 90_000);
});
