import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { Figures } from './measure.js';

// The bench's output: a table on stdout and bench/results/latest.json with every figure,
// the machine and the commit; `--compare FILE` prints ratios against an earlier file.

export interface Target {
  what: string;
  value: number;
  limit: string;
  met: boolean;
}

export interface BenchReport {
  date: string;
  commit: string;
  mode: 'full' | 'quick' | 'smoke';
  settings: Record<string, number>;
  machine: Record<string, string | number>;
  scenarios: Record<string, Figures>;
  [section: string]: unknown;
}

function run(command: string, args: string[], pattern: RegExp, cwd?: string): string {
  try {
    return pattern.exec(execFileSync(command, args, { cwd }).toString())?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

export function machine(): Record<string, string | number> {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    redis: run('redis-server', ['--version'], /v=(\S+)/),
  };
}

/** The commit checked out in `dir` (this one unless said). */
export const gitCommit = (dir?: string) => run('git', ['rev-parse', 'HEAD'], /(\S+)/, dir);

/** Every scenario's rps as a share of the ceiling's, and each process's CPU per request. */
export function addRatios(scenarios: Record<string, Figures>): void {
  for (const figures of Object.values(scenarios)) addCpuPerRequest(figures);
  const ceiling = scenarios.ceiling?.rps;
  if (!ceiling) return;
  // Three significant digits: a slow scenario (a 100,000-seat report) runs at a few
  // thousandths of the ceiling, which three decimals would round to 0.
  for (const figures of Object.values(scenarios)) figures.ratioToCeiling = Number((figures.rps / ceiling).toPrecision(3));
}

/**
 * CPU µs per request of the server (and of its main threads alone), redis-server and the load generator: each one's share
 * of a core over the scenario, divided by the requests per second. What a request costs
 * whatever the machine's speed at that moment (docs/benchmarks.md).
 */
function addCpuPerRequest(figures: Figures): void {
  if (!figures.rps) return;
  // To a tenth of a µs, so a ratio between two small figures (`/health`'s 6 to 8 µs) is not the rounding's.
  const perRequest = (pct: unknown) => (typeof pct === 'number' ? Math.round((pct * 100_000) / figures.rps) / 10 : undefined);
  figures.serverUsPerRequest = perRequest(figures.serverCpuPct);
  figures.serverMainThreadUsPerRequest = perRequest(figures.serverMainThreadCpuPct);
  figures.redisUsPerRequest = perRequest(figures.redisCpuPct);
  figures.generatorUsPerRequest = perRequest(figures.generatorCpuPct);
  if (figures.jobsCpuPct !== undefined) figures.jobsUsPerRequest = perRequest(figures.jobsCpuPct);
  if (figures.mongoCpuPct !== undefined) figures.mongoUsPerRequest = perRequest(figures.mongoCpuPct);
  // A scenario that books seats (book2, hotEvent): Redis's µs per booked seat, and the seats
  // one Redis core would book in a second at that cost (bench/scenarios/hotEvent.ts).
  if (figures.seatsBooked && figures.redisUsPerRequest !== undefined && figures.requests > 0) {
    const perSeat = (figures.redisUsPerRequest * figures.requests) / figures.seatsBooked;
    figures.redisUsPerBookedSeat = Math.round(perSeat * 100) / 100;
    figures.seatsPerRedisCoreSecond = Math.round(1e6 / perSeat);
  }
}

/** A scenario's correctness checks: each must be 0 (printed beside its figures). */
export const CHECKS = ['doubleBookings', 'lostBookings', 'oversold', 'lostPlaces', 'strayBookings', 'seasonAndEventBookings'];

export function printTable(report: BenchReport): void {
  console.log('\nscenario          rps     p50 ms  p99 ms  non2xx  errors  ratio  CPU µs/request: server (main thread) redis generator  checks');
  for (const [name, f] of Object.entries(report.scenarios)) {
    const checks = CHECKS.filter((c) => f[c] !== undefined).map((c) => `${c}=${f[c]}`).join(' ');
    const cpu = [f.serverUsPerRequest, f.serverMainThreadUsPerRequest, f.redisUsPerRequest, f.generatorUsPerRequest].map((us) => String(us ?? '-').padStart(7)).join('');
    console.log(
      `${name.padEnd(16)}${String(f.rps).padStart(7)}${String(f.p50Ms).padStart(9)}${String(f.p99Ms).padStart(8)}${String(f.non2xx).padStart(8)}${String(f.errors).padStart(8)}${String(f.ratioToCeiling ?? '').padStart(7)}                 ${cpu}  ${checks}`,
    );
  }
}

export function printTargets(targets: Target[]): void {
  console.log('\ntargets');
  for (const t of targets) console.log(`  ${t.met ? 'met   ' : 'MISSED'} ${t.what}: ${t.value} (${t.limit})`);
}

export function writeReport(report: BenchReport, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  // Arrays of numbers (the timelines' seconds) on one line each, so the file stays readable.
  const json = JSON.stringify(report, null, 2).replace(/\[[\d\s.,eE+\-nul]*\]/g, (array) => array.replace(/\s+/g, ''));
  writeFileSync(file, json + '\n');
  console.log(`\nwritten: ${file}`);
}

/** Each scenario's ratio to its run's ceiling, now and in `file`. */
export function printComparison(report: BenchReport, file: string): void {
  const previous = JSON.parse(readFileSync(file, 'utf8')) as BenchReport;
  console.log(`\ncompared with ${file} (${previous.commit}, ${previous.mode}): ratio to ceiling now / then, rps now / then`);
  for (const [name, f] of Object.entries(report.scenarios)) {
    const before = previous.scenarios[name];
    if (!before) continue;
    const rpsRatio = before.rps ? Math.round((f.rps / before.rps) * 100) / 100 : '-';
    // Older files have no per-request figures: worked out from their CPU shares.
    addCpuPerRequest(before);
    const cpu = `server CPU µs/request ${f.serverUsPerRequest ?? '-'} / ${before.serverUsPerRequest ?? '-'}, redis ${f.redisUsPerRequest ?? '-'} / ${before.redisUsPerRequest ?? '-'}`;
    console.log(`  ${name.padEnd(16)} ${f.ratioToCeiling} / ${before.ratioToCeiling}   ×${rpsRatio}   ${cpu}`);
  }
}
