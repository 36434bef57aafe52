import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { htmlPathOf, writeHtmlReport } from '../../bench/lib/htmlReport.js';
import type { BenchReport } from '../../bench/lib/report.js';
import type { Timeline } from '../../bench/lib/timeline.js';

// The bench's HTML report (bench/lib/htmlReport.ts), from report JSON files written here: no
// load runs. The file lands beside the JSON, holds a section with plots for every scenario and
// the targets, fetches nothing, and overlays an earlier report given with --compare.

const dir = mkdtempSync(join(tmpdir(), 'bench-html-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const timeline = (rps: number, p99: number): Timeline => ({
  rps: [rps, rps + 10, rps - 5],
  non2xx: [0, 0, 0],
  p50Ms: [1.2, 1.3, 1.1],
  p99Ms: [p99, p99 + 1, null],
  latencyHistogram: [
    [1, 10],
    [1.26, 40],
    [p99, 5],
  ],
});

function report(commit: string, names: string[], extra: Partial<BenchReport> = {}): BenchReport {
  const scenarios = Object.fromEntries(names.map((name, i) => [name, { rps: 1000 + i, p50Ms: 1.2, p99Ms: 4.5, non2xx: 0, errors: 0, requests: 3000, doubleBookings: 0, lostBookings: 0 }]));
  return {
    date: '2026-11-26T10:00:00.000Z',
    commit,
    mode: 'quick',
    settings: { connections: 100, durationSeconds: 4 },
    machine: { cores: 2, cpu: 'test cpu', node: 'v20' },
    scenarios,
    timelines: Object.fromEntries(names.map((name, i) => [name, timeline(1000 + i, 4 + i)])),
    targets: [
      { what: 'book2 p99 ms at 100 connections', value: 4.5, limit: '≤ 10', met: true },
      { what: 'double, lost or stray bookings, all scenarios', value: 1, limit: '= 0', met: false },
    ],
    ...extra,
  };
}

/** Writes a report as `npm run bench` does and its HTML beside it; the HTML. */
function written(name: string, r: BenchReport, compare?: string): { html: string; file: string } {
  const json = join(dir, `${name}.json`);
  writeFileSync(json, JSON.stringify(r));
  const file = writeHtmlReport(r, json, compare);
  return { file, html: readFileSync(file, 'utf8') };
}

const sectionOf = (html: string, name: string) => {
  const start = html.indexOf(`data-scenario="${name}"`);
  return start < 0 ? '' : html.slice(start, html.indexOf('</section>', start));
};

describe('the HTML report', () => {
  const names = ['book2', 'hotSeats', 'gaSellOut', 'seasonEventBook'];

  it('is written beside the JSON, with every scenario of the report plotted, and the targets', () => {
    const { file, html } = written('latest', report('aaaa1111', names));
    expect(file).toBe(join(dir, 'latest.html'));
    expect(htmlPathOf(join(dir, 'latest.json'))).toBe(file);
    expect(existsSync(file)).toBe(true);
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    for (const name of names) {
      const section = sectionOf(html, name);
      expect(section, name).not.toBe('');
      // Requests per second and p50/p99 over time, and the latency distribution.
      expect(section.match(/<svg /g)?.length, name).toBe(3);
      expect(section, name).toContain('Requests per second');
      expect(section, name).toContain('Latency distribution');
      expect(section, name).toContain('<polyline');
    }
    expect(html).toContain('book2 p99 ms at 100 connections');
    expect(html).toMatch(/<tr class="missed"><td>MISSED<\/td><td>double, lost or stray bookings/);
    // Self-contained: no script, stylesheet, image or font to fetch.
    expect(html).not.toMatch(/<script|<link|<img|src=|url\(|@import/i);
    expect(html).not.toContain(' then');
    expect(html).not.toContain('class="line earlier"');
  });

  it('overlays an earlier report given with --compare: its lines dashed in each scenario it has, its figures beside', () => {
    const earlierFile = join(dir, 'earlier.json');
    writeFileSync(earlierFile, JSON.stringify(report('bbbb2222', ['book2', 'hotSeats'])));
    const { html } = written('compared', report('aaaa1111', names), earlierFile);
    expect(html).toContain(earlierFile);
    expect(html).toContain('bbbb2222');
    for (const name of ['book2', 'hotSeats']) {
      const section = sectionOf(html, name);
      expect(section.match(/class="line earlier"/g)!.length, name).toBeGreaterThanOrEqual(4);
      expect(section, name).toContain('rps then');
    }
    // A scenario the earlier run did not have is drawn alone.
    expect(sectionOf(html, 'gaSellOut')).not.toContain('class="line earlier"');
    expect(html).toContain('<th>rps then</th>');
  });

  it('shows a scenario without a timeline (an earlier JSON of runs before timelines) by its figures, and the scenarios not run', () => {
    const r = report('cccc3333', ['book2']);
    delete r.timelines;
    const { html } = written('old', { ...r, skipped: { ceiling: 'runs on this machine, not the target' } });
    expect(sectionOf(html, 'book2')).toContain('No per-second timeline');
    expect(html).toContain('<b>ceiling</b>: runs on this machine, not the target');
  });
});
