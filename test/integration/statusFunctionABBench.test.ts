import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm run bench:ab` (bench/statusFunctionAB.ts, docs/benchmarks.md) against this very checkout:
// both sides book and release through the same code, so they send the same commands.

interface KindFigures {
  fcallUs: { other: number; this: number };
  fcallRatio: number;
  fcallRatioByRound: number[];
  redisCpuRatioByRound: number[];
  commandsPerCall: { other: Record<string, number>; this: Record<string, number> };
}

describe('bench:ab', () => {
  it('books, releases and books in an event of a season on both sides in alternating rounds and reports each call the same way', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/bench/statusFunctionAB.js', '.', '200', '2'], { timeout: 120_000 });
    const figures = JSON.parse(stdout.trim()) as { rounds: number; book: KindFigures; release: KindFigures; seasonEvent: KindFigures };
    expect(figures.rounds).toBe(2);
    for (const kind of [figures.book, figures.release, figures.seasonEvent]) {
      expect(kind.fcallRatioByRound).toHaveLength(2);
      expect(kind.redisCpuRatioByRound).toHaveLength(2);
      expect(kind.fcallUs.this).toBeGreaterThan(0);
      // The record hash's PEXPIRE goes with the calls sent before its window's first reply: how many depends on timing.
      const { pexpire: _ours, ...ours } = kind.commandsPerCall.this;
      const { pexpire: _theirs, ...theirs } = kind.commandsPerCall.other;
      expect(ours).toEqual(theirs);
      expect(kind.commandsPerCall.this.fcall).toBe(1);
    }
    // A booking writes its seats and the record; a release deletes its seats' records.
    expect(figures.book.commandsPerCall.this.hset).toBe(2);
    expect(figures.release.commandsPerCall.this.hdel).toBe(1);
    // A booking in an event of a season counts each seat in the season and adds it to the
    // season's feed besides the event's history: every call was applied, the direct way.
    expect(figures.seasonEvent.commandsPerCall.this.hincrby).toBe(2);
    expect(figures.seasonEvent.commandsPerCall.this.xadd).toBe(3);
  }, 150_000);
});
