import { readFileSync, writeFileSync } from 'node:fs';
import type { BenchReport, Target } from './report.js';
import { escapeXml as escape, linePlot, type PlotSeries } from './svgPlot.js';
import type { Timeline } from './timeline.js';

// The run as a page people look at: one self-contained HTML file beside the JSON report
// (`latest.json` -> `latest.html`), with the targets, a table of every scenario and, per
// scenario, its requests per second and p50/p99 latency second by second and the spread of
// its answers' times, as inline SVG (bench/lib/svgPlot.ts): it opens from disk, fetching
// nothing. With an earlier JSON report (`--compare`), its figures stand beside today's and
// its lines are drawn dashed under them.

/** Figures the HTML table shows, and the correctness checks (each must be 0). */
const CHECK_FIGURES = ['doubleBookings', 'lostBookings', 'strayBookings', 'oversold', 'lostPlaces', 'seasonAndEventBookings'];
const COLORS = { rps: '#2563eb', non2xx: '#dc2626', p50: '#059669', p99: '#d97706' };

export interface Earlier {
  report: BenchReport;
  file: string;
}

/** The HTML file beside a JSON report. */
export const htmlPathOf = (jsonFile: string): string => jsonFile.replace(/\.json$/, '') + '.html';

/** Writes the HTML of `report` beside `jsonFile`, overlaying the report in `compareFile` if given; its path. */
export function writeHtmlReport(report: BenchReport, jsonFile: string, compareFile?: string): string {
  const earlier = compareFile ? { report: JSON.parse(readFileSync(compareFile, 'utf8')) as BenchReport, file: compareFile } : undefined;
  const file = htmlPathOf(jsonFile);
  writeFileSync(file, renderHtmlReport(report, earlier));
  return file;
}

const timelinesOf = (report: BenchReport) => (report.timelines ?? {}) as Record<string, Timeline | undefined>;
const num = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '–' : String(value));

export function renderHtmlReport(report: BenchReport, earlier?: Earlier): string {
  const names = Object.keys(report.scenarios);
  const target = report.target as { url: string; runId: string } | undefined;
  const body = [
    `<h1>Bench report${target ? `: ${escape(target.url)}` : ''}</h1>`,
    `<p class="meta">${describeRun(report)}${target ? `; against <b>${escape(target.url)}</b> (run ${escape(target.runId)}), a server the bench did not start: client-side figures only` : ''}</p>`,
    earlier ? `<p class="meta">Dashed lines and the “then” columns: <b>${escape(earlier.file)}</b>, ${describeRun(earlier.report)}.</p>` : '',
    targetsTable((report.targets ?? []) as Target[], earlier ? ((earlier.report.targets ?? []) as Target[]) : undefined),
    skippedList(report.skipped as Record<string, string> | undefined),
    scenarioTable(report, earlier?.report),
    ...names.map((name) => scenarioSection(name, report, earlier?.report)),
  ];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Bench report ${escape(report.date)}</title>
<style>${STYLE}</style>
</head>
<body>
${body.filter(Boolean).join('\n')}
</body>
</html>
`;
}

function describeRun(report: BenchReport): string {
  const settings = report.settings ?? {};
  const machine = report.machine ?? {};
  return escape(
    `${report.date}, ${report.mode} run, commit ${String(report.commit).slice(0, 12)}, ${settings.connections ?? '?'} connections, ${settings.durationSeconds ?? '?'} s per scenario; ` +
      `load generator on ${machine.cores ?? '?'} cores (${machine.cpu ?? '?'}), Node ${machine.node ?? '?'}`,
  );
}

function targetsTable(targets: Target[], then?: Target[]): string {
  if (targets.length === 0) return '';
  const before = new Map((then ?? []).map((t) => [t.what, t]));
  const rows = targets.map((t) => {
    const old = before.get(t.what);
    return `<tr class="${t.met ? 'met' : 'missed'}"><td>${t.met ? 'met' : 'MISSED'}</td><td>${escape(t.what)}</td><td class="n">${t.value}</td><td>${escape(t.limit)}</td>${then ? `<td class="n">${old ? old.value : '–'}</td>` : ''}</tr>`;
  });
  return `<h2>Targets</h2>
<table><tr><th></th><th>target</th><th>value</th><th>limit</th>${then ? '<th>then</th>' : ''}</tr>
${rows.join('\n')}
</table>`;
}

function skippedList(skipped: Record<string, string> | undefined): string {
  if (!skipped || Object.keys(skipped).length === 0) return '';
  return `<h2>Not run</h2><ul>${Object.entries(skipped)
    .map(([name, why]) => `<li><b>${escape(name)}</b>: ${escape(why)}</li>`)
    .join('')}</ul>`;
}

function scenarioTable(report: BenchReport, then?: BenchReport): string {
  const heads = ['scenario', 'rps', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'rps / ceiling', 'server µs/req', 'Redis µs/req', 'checks'];
  if (then) heads.push('rps then', 'p99 ms then');
  const rows = Object.entries(report.scenarios).map(([name, f]) => {
    const checks = CHECK_FIGURES.filter((c) => f[c] !== undefined);
    const wrong = checks.filter((c) => f[c] !== 0);
    const checkCell = checks.length === 0 ? '' : wrong.length === 0 ? 'all 0' : wrong.map((c) => `${c} ${f[c]}`).join(', ');
    const old = then?.scenarios[name];
    const numbers = [f.rps, f.p50Ms, f.p99Ms, f.non2xx, f.errors, f.ratioToCeiling, f.serverUsPerRequest, f.redisUsPerRequest].map((n) => `<td class="n">${num(n)}</td>`);
    numbers.push(`<td class="${wrong.length > 0 ? 'bad' : ''}">${escape(checkCell)}</td>`);
    if (then) numbers.push(`<td class="n">${num(old?.rps)}</td>`, `<td class="n">${num(old?.p99Ms)}</td>`);
    return `<tr><td><a href="#${anchor(name)}">${escape(name)}</a></td>${numbers.join('')}</tr>`;
  });
  return `<h2>Scenarios</h2>
<table><tr>${heads.map((h) => `<th>${h}</th>`).join('')}</tr>
${rows.join('\n')}
</table>`;
}

const anchor = (name: string) => `scenario-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** [second, value] points of a per-second series (x: the second's middle is not needed, its start is). */
const bySecond = (values: (number | null)[]): [number, number | null][] => values.map((v, i) => [i + 1, v]);

function scenarioSection(name: string, report: BenchReport, then?: BenchReport): string {
  const f = report.scenarios[name]!;
  const now = timelinesOf(report)[name];
  const old = then ? timelinesOf(then)[name] : undefined;
  const figures = `${num(f.rps)} rps, p50 ${num(f.p50Ms)} ms, p99 ${num(f.p99Ms)} ms, ${num(f.requests)} requests, ${num(f.non2xx)} non-2xx, ${num(f.errors)} errors`;
  const header = `<section id="${anchor(name)}" class="scenario" data-scenario="${escape(name)}"><h2>${escape(name)}</h2><p class="meta">${escape(figures)}</p>`;
  if (!now && !old) return `${header}<p class="meta">No per-second timeline in this report.</p></section>`;
  const series = (label: string, color: string, pick: (t: Timeline) => (number | null)[]): PlotSeries[] => [
    ...(now ? [{ name: label, color, points: bySecond(pick(now)) }] : []),
    ...(old ? [{ name: `${label} then`, color, points: bySecond(pick(old)), earlier: true }] : []),
  ];
  const refused = [now, old].some((t) => t?.non2xx.some((n) => n > 0));
  const plots = [
    linePlot({ title: 'Requests per second', xLabel: 'second', wholeX: true, yLabel: 'answers / s', series: [...series('rps', COLORS.rps, (t) => t.rps), ...(refused ? series('non-2xx', COLORS.non2xx, (t) => t.non2xx) : [])] }),
    linePlot({ title: 'Latency of 2xx answers, per second', xLabel: 'second', wholeX: true, yLabel: 'ms', series: [...series('p50', COLORS.p50, (t) => t.p50Ms), ...series('p99', COLORS.p99, (t) => t.p99Ms)] }),
    linePlot({ title: 'Latency distribution (2xx answers)', xLabel: 'ms (log scale)', yLabel: '% of answers', logX: true, series: distribution(now, old) }),
  ];
  return `${header}<div class="plots">${plots.join('')}</div></section>`;
}

/** Each run's share of answers per bucket of the latency histogram, in %. */
function distribution(now?: Timeline, old?: Timeline): PlotSeries[] {
  const shares = (t: Timeline): [number, number][] => {
    const total = t.latencyHistogram.reduce((n, [, count]) => n + count, 0);
    return t.latencyHistogram.map(([ms, count]) => [ms, Math.round((count / total) * 10000) / 100]);
  };
  return [
    ...(now ? [{ name: 'share', color: COLORS.rps, points: shares(now) }] : []),
    ...(old ? [{ name: 'share then', color: COLORS.rps, points: shares(old), earlier: true }] : []),
  ];
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #111827; max-width: 1700px; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin: 28px 0 6px; }
.meta { color: #4b5563; margin: 4px 0; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 3px 8px; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.missed td:first-child, td.bad { color: #b91c1c; font-weight: 600; }
tr.met td:first-child { color: #047857; }
.plots { display: flex; flex-wrap: wrap; gap: 12px; }
.plots svg { border: 1px solid #e5e7eb; background: #fff; }
.plot-title { font-size: 13px; font-weight: 600; }
.tick, .legend, .axis-label { font-size: 11px; fill: #374151; }
.plot-empty { font-size: 13px; fill: #9ca3af; }
.grid { stroke: #eef0f3; } .axis { stroke: #6b7280; }
.line { stroke-width: 1.8; } .earlier { stroke-dasharray: 5 3; opacity: 0.55; }
`;
