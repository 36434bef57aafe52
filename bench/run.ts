import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startChildServer, type ChildServer } from '../src/embedded/childServer.js';
import { freePort } from '../src/embedded/freePort.js';
import { startRedisCluster, type RedisClusterNodes } from '../src/embedded/redisCluster.js';
import { startRedisServer } from '../src/embedded/redisServer.js';
import { SERVER_NODE_FLAGS } from '../src/serverFlags.js';
import { buildObjectIndex } from '../src/domain/objectIndex.js';
import { generatedDrawing, SEATS_100K, SEATS_10K, SEATS_10K_WITH_GA, type GeneratedDrawingOptions } from './drawings.js';
import { Admin } from './lib/admin.js';
import { allocationMeter } from './lib/allocation.js';
import { cpuMeter, cpuSecondsOf, mongoPidsOf, processMemory } from './lib/processes.js';
import { devHistoryOf } from './lib/devHistory.js';
import { serverHeap } from './lib/serverGauges.js';
import type { CommandStats } from './lib/commandStats.js';
import { drainCaughtUp, drainFigures, drainGauges, pendingStreamsOf } from './lib/drain.js';
import { FinalState } from './lib/finalState.js';
import { settle } from './lib/settle.js';
import { basicAuth, measure, type Figures, type LoadSettings } from './lib/measure.js';
import { writeHtmlReport } from './lib/htmlReport.js';
import { ApiState } from './lib/apiState.js';
import { sendOnlyTo } from './lib/loadOrigin.js';
import { checkTarget, cleanUpRun, createRunCompany, forgetRun, newRunId, recordedRuns, recordRun, targetOrigin, TargetError } from './lib/target.js';
import { startTimeline, stopTimeline, type Timeline } from './lib/timeline.js';
import { addRatios, gitCommit, machine, printComparison, printTable, printTargets, writeReport, type BenchReport, type Target } from './lib/report.js';
import { bookTwo, ceiling } from './scenarios/bookTwo.js';
import { statusStream, statusStreamIdle, statusStreamJson } from './scenarios/statusStream.js';
import { chartUpload } from './scenarios/chartUpload.js';
import { chartLoad } from './scenarios/chartLoad.js';
import type { BenchContext, Scale, SeededChart } from './scenarios/context.js';
import { eventsAndMemory } from './scenarios/eventsAndMemory.js';
import { gaSellOut } from './scenarios/gaSellOut.js';
import { holdThenBook } from './scenarios/holdThenBook.js';
import { hotSeats } from './scenarios/hotSeats.js';
import { hotEvent } from './scenarios/hotEvent.js';
import { releaseChurn } from './scenarios/releaseChurn.js';
import { seasonBook, seasonEventBook, seasonsOf } from './scenarios/seasons.js';
import { WARMED, warmUp } from './scenarios/warmUp.js';
import { bestAvailable4, bestAvailable4Cold, bestAvailableChartOf } from './scenarios/bestAvailable.js';
import { book2WhileReporting, halfBookedEvent, reportSummary100k } from './scenarios/reports.js';
import { AGAINST_REFERENCE, addReferenceRatios, referenceBook2, referenceHealth, referenceReleaseChurn, referenceSeasonEventBook } from './scenarios/reference.js';
import { argumentError, type ArgumentSpec } from './lib/cliArguments.js';
import { callBatchFigures, callRequests } from './lib/callBatches.js';
import { AGAINST_BOOK2, OWN_REFERENCES, alternatingRound, describeSpread, roundOrder, summarizeAlternating, type WithOwnReference, type AgainstBook2, type AlternatingRound, type AlternatingSummary, type RoundScenario, type Spread } from './lib/alternating.js';

/** `npm run bench -- --help`; each option is explained below. */
const USAGE = `npm run bench [-- --quick | --smoke] [-- --compare FILE] [-- --only a,b] [-- --profile DIR] [-- --subscribers N]
  [-- --connections N] [-- --rate N] [-- --output FILE] [-- --workers N] [-- --jobs-apart] [-- --cluster] [-- --allocation | --survivors]
  [-- --node-flags "FLAGS"] [-- --server-log FILE] [-- --alternate N] [-- --server-dir DIR] [-- --no-settle] [-- --keep-history] [-- --no-warm-up] [-- --replica-acks N]
npm run bench -- --target URL --system-secret S [-- --quick | --smoke] [-- --only a,b] [-- --connections N] [-- --rate N] [-- --output FILE] [-- --compare FILE] [-- --no-warm-up]
npm run bench -- --target URL --cleanup [RUN_ID]
(docs/benchmarks.md)`;
const ARGUMENTS: ArgumentSpec = {
  flags: ['--quick', '--smoke', '--jobs-apart', '--cluster', '--allocation', '--survivors', '--no-settle', '--keep-history', '--no-warm-up'],
  valued: ['--compare', '--only', '--profile', '--subscribers', '--connections', '--rate', '--output', '--workers', '--node-flags', '--server-log', '--alternate', '--server-dir', '--replica-acks', '--target', '--system-secret'],
  optionallyValued: ['--cleanup'],
};
// Starts the server on its embedded defaults (npm run dev's launcher, with a temp data dir)
// in a child process and a no-op uWS ceiling in another, seeds charts of 10,000 and
// 100,000 seats, and drives the on-sale scenarios with autocannon at the same connections
// and duration as the ceiling. Every rps is reported as a ratio to the ceiling of the same
// run; figures go to stdout and bench/results/latest.json. A lean reference server on the
// same stack and the same Redis (bench/reference/server.ts) is driven like book2 and /health
// in every run; book2, holdThenBook, releaseChurn, seasonEventBook and health are reported as
// multiples of it too (docs/performance.md, "The lean reference").
// `--cluster`: book2 and seasonBook (or the --only list) on one Redis, then again on a
// 3-master Redis Cluster started on this machine (docs/operations.md, "Redis Cluster"), side by side.
// `--replica-acks N`: book2 (or the --only list) on one Redis, then again on one Redis with a
// replica and REDIS_REPLICA_ACKS=N (docs/operations.md, "High availability"), side by side.
// `--target URL`: the scenarios that need no access to the server's processes or Redis, against a
// server the bench did not start, in a company of the run's own; client-side figures only, the
// final state read through the API (bench/lib/target.ts; docs/benchmarks.md, "Against your own
// deployment"). `--cleanup [RUN_ID]` removes what the runs recorded for that target made there.
// Every run also writes an HTML report beside the JSON (bench/lib/htmlReport.ts).

const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}
const wrongArgument = argumentError(args, ARGUMENTS);
if (wrongArgument !== undefined) {
  console.error(`${wrongArgument}; npm run bench -- --help lists the options`);
  process.exit(1);
}
const SCALES: Record<Scale['mode'], Scale & { durationSeconds: number; connections: number; rate?: number }> = {
  full: { mode: 'full', durationSeconds: 15, connections: 100, bookEvents: 16, checkoutEvents: 4, eventsCreated: 50, hotSeatConnections: 1000, hotSeatRequests: 30_000, streamSubscribers: 5000, indexInOwnProcess: true },
  quick: { mode: 'quick', durationSeconds: 4, connections: 100, bookEvents: 6, checkoutEvents: 2, eventsCreated: 10, hotSeatConnections: 1000, hotSeatRequests: 10_000, streamSubscribers: 5000, indexInOwnProcess: true },
  // What the test suite runs (test/integration/bench.test.ts): every scenario and check, briefly
  // and at a bounded rate, so that it checks without taking the cores the other test files need.
  smoke: { mode: 'smoke', durationSeconds: 1, connections: 10, rate: 2_000, bookEvents: 2, checkoutEvents: 1, eventsCreated: 20, hotSeatConnections: 100, hotSeatRequests: 1000, streamSubscribers: 20, indexInOwnProcess: false },
};
const { durationSeconds, connections, rate, ...scale } = SCALES[args.includes('--smoke') ? 'smoke' : args.includes('--quick') ? 'quick' : 'full'];
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const compareFile = option('--compare');
// `--cluster` compares the scenarios the issue of Redis Cluster names, unless --only says others.
const only = option('--only')?.split(',') ?? (args.includes('--cluster') ? ['book2', 'seasonBook'] : args.includes('--replica-acks') ? ['book2'] : undefined);
// `--profile DIR`: the server writes a V8 CPU profile there when it stops, the reference in DIR/reference,
// the background jobs of `--jobs-apart` in DIR/jobs.
const profileDir = option('--profile');
// `--allocation`: the server's bytes allocated per request of each scenario (bench/lib/allocation.ts),
// with each scenario's profile beside the output file (`<scenario>.heapprofile`);
// the profiler costs CPU, so such a run's CPU figures are not comparable with others'.
// `--survivors`: the same, counting only what outlived the young generation's collections
// (scavenges): promoted to the old generation, whether still held or freed later by a major
// collection. A scavenge costs what it copies, and what is promoted costs a major collection
// later, so this, more than the bytes allocated, is what GC costs per request
// (docs/performance.md, "What outlives a scavenge").
const survivors = args.includes('--survivors');
const allocation = args.includes('--allocation') || survivors;
const output = option('--output') ?? 'bench/results/latest.json';
// `--workers N`: the server as N processes on one port (WORKERS=N, docs/operations.md, "One process per core").
const workers = Number(option('--workers') ?? 1);
const clusterMode = args.includes('--cluster');
const replicaAcksOption = option('--replica-acks');
const replicaAcks = replicaAcksOption === undefined ? undefined : Number(replicaAcksOption);
if (replicaAcks !== undefined && !(Number.isInteger(replicaAcks) && replicaAcks >= 1)) throw new Error(`--replica-acks takes a number of replicas, 1 or more, got ${replicaAcksOption}`);
// `--jobs-apart`: the server with BACKGROUND_JOBS=off and the background jobs (history drain,
// hold expiry) in a process of their own (`npm run worker`, docs/operations.md), whose CPU
// per request each scenario reports as `jobsUsPerRequest` beside the server's.
const jobsApart = args.includes('--jobs-apart');
// `--server-log FILE`: what the server printed during the run (its warnings, or what V8 flags such
// as --trace-gc given through --node-flags print), written to FILE when it stops.
const serverLog = option('--server-log');
// `--rate N`: every timed scenario at N requests per second over all its connections rather than
// as fast as answers come (the smoke run's default is 2,000; `--rate 0` lifts it): a load
// tester's fixed offered load, at which latency is compared between deployments.
const rateOption = option('--rate');
const offeredRate = rateOption === undefined ? rate : Number(rateOption);
if (offeredRate !== undefined && !(Number.isInteger(offeredRate) && offeredRate >= 0)) throw new Error(`--rate takes requests per second, 0 or more, got ${rateOption}`);
const settings: LoadSettings = { connections: Number(option('--connections') ?? connections), durationSeconds, ...(offeredRate ? { rate: offeredRate } : {}) };
// `--alternate N`: after the scenarios, N rounds of the reference, book2 and those of holdThenBook,
// releaseChurn and seasonEventBook the run ran, one right after the other, the order reversed each
// round; each round's ratios and their median and spread
// (bench/lib/alternating.ts, docs/benchmarks.md, "Alternating rounds").
const alternate = Number(option('--alternate') ?? 0);
if (!Number.isInteger(alternate) || alternate < 0) throw new Error(`--alternate takes a number of rounds, got ${option('--alternate')}`);
// `--subscribers N`: the statusStream scenario's WebSocket subscribers (5,000 unless said).
if (option('--subscribers')) scale.streamSubscribers = Number(option('--subscribers'));
// `--node-flags "FLAGS"`: the server's V8 flags for this run instead of src/serverFlags.ts's, to
// measure a change of them against the flags as they are (docs/performance.md, "Where a
// booking's bytes go").
const serverNodeFlags = option('--node-flags')?.split(' ').filter(Boolean) ?? SERVER_NODE_FLAGS;
// `--server-dir DIR`: the server of another checkout, built there (`DIR/dist/src/dev.js`, run in
// DIR with DIR's node_modules), measured by this bench and against this run's references: an
// earlier version's figures by today's scenarios and checks, in the same hour as the head's
// (docs/benchmarks.md, "An earlier version by today's bench"). The final-state checks read
// Redis in today's layout, so the version must keep it (object records, hold tokens).
const serverDir = option('--server-dir');
// `--no-settle`: each scenario right after the one before, Redis rewriting its append-only file
// when it decides (bench/lib/settle.ts; docs/benchmarks.md, "Order, settling and warm-up"): to
// measure what settling changes, or to compare with runs made that way.
const settles = !args.includes('--no-settle');
// `--keep-history`: settling leaves the history the development MongoDB stored in place rather
// than emptying it (bench/lib/devHistory.ts; docs/benchmarks.md, "Order, settling and warm-up").
const clearsHistory = settles && !args.includes('--keep-history');
// `--no-warm-up`: the scenarios compared with the references timed from cold; otherwise each
// first runs this long untimed (bench/scenarios/warmUp.ts; docs/benchmarks.md, "Order, settling and warm-up").
const warmUpSeconds = args.includes('--no-warm-up') ? 0 : Math.min(2, durationSeconds);

type Scenario = (ctx: BenchContext) => Promise<Figures>;

/**
 * In the order they run. The ceiling and the references first; then, right after them, the
 * scenarios compared with them (book2, /health, releaseChurn, holdThenBook, seasonEventBook
 * against the references; bestAvailable4 against book2): this machine's speed drifts within
 * a run, by up to half in ten minutes, so a ratio is only as good as the time between its two
 * figures is short (docs/benchmarks.md, "Order, settling and warm-up"). The rest after them: the status stream's
 * 5,000 subscribers and the reports also leave memory and collector work behind.
 */
const SCENARIOS: Record<string, Scenario> = {
  ceiling,
  referenceBook2,
  referenceHealth,
  book2: bookTwo,
  health: (ctx) => measure(ctx.settings, { url: `${ctx.serverUrl}/health` }),
  // The reference's own floors right before the server's scenarios judged against them too.
  referenceReleaseChurn,
  releaseChurn,
  holdThenBook,
  referenceSeasonEventBook,
  seasonEventBook,
  bestAvailable4Cold,
  bestAvailable4,
  chartLoad,
  statusStream,
  statusStreamJson,
  statusStreamIdle,
  hotSeats,
  hotEvent,
  gaSellOut,
  seasonBook,
  reportSummary100k,
  book2WhileReporting,
  // For scale: one script call, one MongoDB query per request.
  holdTokenCreate: (ctx) => measure(ctx.settings, { url: `${ctx.serverUrl}/hold-tokens`, method: 'POST', headers: ctx.workspaceHeaders, body: '{}' }),
  workspaceList: (ctx) => measure(ctx.settings, { url: `${ctx.serverUrl}/workspaces`, headers: ctx.admin.headers }),
};

async function startServers(dataDir: string, cluster: RedisClusterNodes | undefined, acks = 0): Promise<{ server: ChildServer; ceilingServer: ChildServer; inspectPort?: number }> {
  const serverPort = await freePort();
  const inspectPort = allocation ? await freePort() : undefined;
  const ceilingPort = await freePort();
  const server = await startChildServer({
    name: 'server (npm run dev)',
    command: process.execPath,
    // Started as `npm run dev` starts it, with the server's V8 flags.
    args: [
      ...serverNodeFlags,
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(inspectPort ? [`--inspect=127.0.0.1:${inspectPort}`] : []),
      'dist/src/dev.js',
    ],
    env: {
      PORT: String(serverPort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: cluster?.addresses.join(',') ?? '',
      REDIS_REPLICA_ACKS: String(acks),
      MONGODB_URL: '',
      WORKERS: String(workers),
      BACKGROUND_JOBS: jobsApart ? 'off' : 'in-process',
      // The bench uploads its own charts.
      DEV_SAMPLE: 'off',
    },
    readyLine: /Ctrl\+C/,
    url: `http://127.0.0.1:${serverPort}`,
    timeoutMs: 60_000,
    cwd: serverDir,
  });
  const ceilingServer = await startChildServer({
    name: 'ceiling',
    command: process.execPath,
    args: ['dist/bench/ceiling.js', String(ceilingPort)],
    readyLine: /ceiling ready/,
    url: `http://127.0.0.1:${ceilingPort}`,
  });
  return { server, ceilingServer, inspectPort };
}

/** `npm run worker` on the server's Redis and MongoDB (`--jobs-apart`), with the server's V8 flags. */
function startJobs(server: ChildServer): Promise<ChildServer> {
  const url = (name: string) => new RegExp(`${name}\\s+(\\S+:\\/\\/\\S+)`).exec(server.output())![1]!;
  return startChildServer({
    name: 'background jobs (npm run worker)',
    command: process.execPath,
    args: [...serverNodeFlags, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'jobs')}`] : []), 'dist/src/worker.js'],
    env: { REDIS_URL: url('Redis'), MONGODB_URL: url('MongoDB'), LOG_LEVEL: 'info' },
    readyLine: /background jobs running/,
    url: '',
  });
}

/** Scenarios that run whatever --only says: the ones the others are divided by. */
const ALWAYS = new Set(['ceiling', 'referenceBook2', 'referenceHealth']);
const REFERENCE_SCENARIOS = new Set(['referenceBook2', 'referenceHealth', ...Object.values(OWN_REFERENCES)]);
/** Scenarios `--only` runs with another it names: bestAvailable4's cold run before it, the reference's own floor before releaseChurn and seasonEventBook. */
const RUNS_WITH: Record<string, string> = { bestAvailable4Cold: 'bestAvailable4', ...Object.fromEntries(Object.entries(OWN_REFERENCES).map(([name, floor]) => [floor, name])) };

/** The lean reference on the server's Redis (one Redis only: on a cluster run there is none). */
function startReference(redisUrl: string): Promise<ChildServer> {
  return freePort().then((port) =>
    startChildServer({
      name: 'reference',
      command: process.execPath,
      // The server's V8 flags, so both pay the same young-generation size; with --profile, its
      // own CPU profile beside the server's (`<DIR>/reference/`), to compare the two paths.
      args: [...serverNodeFlags, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'reference')}`] : []), 'dist/bench/reference/server.js', String(port), redisUrl],
      readyLine: /reference ready/,
      url: `http://127.0.0.1:${port}`,
    }),
  );
}

/**
 * What Redis spent per call of the status script the priority lane runs (FCALL; EVALSHA before
 * it was a function), in µs; and the commands Redis ran per request, all of them (the drain's
 * and the background jobs' too) and the most frequent by name.
 */
function commandCosts(before: CommandStats, after: CommandStats, requests: number) {
  const ran = (name: string) => (after.get(name)?.calls ?? 0) - (before.get(name)?.calls ?? 0);
  const command = after.has('fcall') ? 'fcall' : 'evalsha';
  const calls = ran(command);
  const usec = (after.get(command)?.usec ?? 0) - (before.get(command)?.usec ?? 0);
  const script = calls > 0 ? { scriptCalls: calls, scriptUsecPerCall: Math.round((usec / calls) * 10) / 10 } : {};
  if (requests === 0) return { figures: script, top: '' };
  const perRequest = (n: number) => Math.round((n / requests) * 100) / 100;
  // `info` is the bench's own reading.
  const byName = [...after.keys()].filter((name) => name !== 'info').map((name) => [name, ran(name)] as const).filter(([, n]) => n > 0);
  const all = byName.reduce((sum, [, n]) => sum + n, 0);
  const top = byName.sort((a, b) => b[1] - a[1]).filter(([, n]) => perRequest(n) > 0).slice(0, 12).map(([name, n]) => `${name} ${perRequest(n)}`).join(', ');
  return { figures: { ...script, redisCommandsPerRequest: perRequest(all) }, top };
}

/** Whether the run runs the scenario: all, or those --only names (with those it runs with, and those the others are divided by). */
const selected = (name: string) => !only || ALWAYS.has(name) || only.includes(RUNS_WITH[name] ?? name);

/** The three charts every run books on; the 100,000-seat one may be uploaded already (chartUpload). */
async function seedCharts(admin: Admin, seats100kKey: string): Promise<BenchContext['charts']> {
  return {
    seats100k: await seed(admin, SEATS_100K, seats100kKey),
    seats10k: await seed(admin, SEATS_10K),
    seats10kWithGa: await seed(admin, SEATS_10K_WITH_GA),
  };
}

/** What the selected scenarios share, made before the timed scenarios so none pays for it. */
async function prepare(ctx: BenchContext): Promise<void> {
  if (!only || only.some((name) => name.startsWith('season'))) await seasonsOf(ctx);
  if (!only || only.includes('bestAvailable4')) await bestAvailableChartOf(ctx);
  if (!only || only.some((name) => name === 'reportSummary100k' || name === 'book2WhileReporting')) await halfBookedEvent(ctx);
}

async function seed(admin: Admin, options: GeneratedDrawingOptions, chartKey?: string): Promise<SeededChart> {
  const drawing = generatedDrawing(options);
  const key = chartKey ?? (await admin.uploadChart(drawing));
  const labels = buildObjectIndex(drawing)
    .objects.filter((o) => o.objectType === 'seat')
    .map((o) => o.label);
  return { key, labels };
}

function targetsOf(report: BenchReport, memory: Record<string, number>): Target[] {
  const s = report.scenarios;
  const targets: Target[] = [];
  if (s.book2) {
    if (s.ceiling) targets.push({ what: 'book2 rps / ceiling', value: s.book2.ratioToCeiling ?? 0, limit: '≥ 0.6', met: (s.book2.ratioToCeiling ?? 0) >= 0.6 });
    targets.push({ what: 'book2 p99 ms at 100 connections', value: s.book2.p99Ms, limit: '≤ 10', met: s.book2.p99Ms <= 10 });
  }
  if (s.book2?.allocatedBytesPerRequest !== undefined) {
    const kb = Math.round(s.book2.allocatedBytesPerRequest / 102.4) / 10;
    targets.push({ what: 'book2 KB allocated per request (--allocation)', value: kb, limit: '≤ 6', met: kb <= 6 });
  }
  if (s.book2?.serverUsToReference !== undefined) {
    // The priority lane's aim: a booking within 1.6 times the lean reference's server CPU and
    // 2 times its Redis CPU, per process (docs/performance.md, "Current figures").
    targets.push({ what: 'book2 server CPU µs per request / reference', value: s.book2.serverUsToReference, limit: '≤ 1.6', met: s.book2.serverUsToReference <= 1.6 });
    targets.push({ what: 'book2 Redis CPU µs per request / reference', value: s.book2.redisUsToReference!, limit: '≤ 2', met: (s.book2.redisUsToReference ?? Infinity) <= 2 });
  }
  const alternating = report.alternating as AlternatingSummary | undefined;
  if (alternating) {
    // The same aims judged by the alternating rounds, which the machine's drift moves less.
    const n = alternating.rounds.length;
    const { serverToReference: server, redisToReference: redis, p99ToReference: p99 } = alternating;
    targets.push({ what: `book2 server CPU / reference, median of ${n} alternating rounds`, value: server.median, limit: '≤ 1.6', met: server.median <= 1.6 });
    targets.push({ what: `book2 Redis CPU / reference, median of ${n} alternating rounds`, value: redis.median, limit: '≤ 2', met: redis.median <= 2 });
    targets.push({ what: `book2 p99 / reference, median of ${n} alternating rounds`, value: p99.median, limit: '≤ 1.5', met: p99.median <= 1.5 });
    // A scenario "improves by book2's factor" when its cost against book2's is no higher than
    // at the issue's start (AGAINST_BOOK2).
    for (const [name, r] of Object.entries(alternating.toBook2) as [AgainstBook2, { server: Spread; redis: Spread }][]) {
      const start = AGAINST_BOOK2[name];
      targets.push({ what: `${name} server CPU / book2, median of ${n} alternating rounds`, value: r.server.median, limit: `≤ ${start.server}`, met: r.server.median <= start.server });
      targets.push({ what: `${name} Redis CPU / book2, median of ${n} alternating rounds`, value: r.redis.median, limit: `≤ ${start.redis}`, met: r.redis.median <= start.redis });
    }
    // releaseChurn and seasonEventBook against the reference's own floor of each, by book2's
    // bounds to its reference: each path as far from its own floor as book2 may be from its
    // (the fixed ratios to book2 above ask a release to cost less than a booking, which the
    // reference's own churn does not: docs/performance.md, "Each path against its own floor").
    for (const [name, own] of Object.entries(alternating.ownReference)) {
      const floor = OWN_REFERENCES[name as WithOwnReference];
      targets.push({ what: `${name} server CPU / ${floor}, median of ${n} alternating rounds`, value: own.ours.server.median, limit: '≤ 1.6', met: own.ours.server.median <= 1.6 });
      targets.push({ what: `${name} Redis CPU / ${floor}, median of ${n} alternating rounds`, value: own.ours.redis.median, limit: '≤ 2', met: own.ours.redis.median <= 2 });
    }
    // The ratios compare requests that succeed: a refused booking costs something else.
    targets.push({ what: `answers other than 2xx in ${n} alternating rounds`, value: alternating.non2xx, limit: '= 0', met: alternating.non2xx === 0 });
  }
  if (s.book2 && s.seasonEventBook) {
    // A booking in an event of a 100-event season against one in a standalone event (docs/seasons.md, "Cost").
    const ratio = Math.round((s.seasonEventBook.rps / s.book2.rps) * 1000) / 1000;
    targets.push({ what: 'seasonEventBook rps / book2 rps', value: ratio, limit: '≥ 0.8', met: ratio >= 0.8 });
  }
  if (s.bestAvailable4) {
    // 4 seats per request on 50,000 seats until 80 % sold, against book2 at the same
    // connections in the same run (docs/best-available.md, "Cost").
    if (s.book2) {
      // CPU figures only when the bench started the server (not with --target).
      if (s.book2.serverUsPerRequest !== undefined) {
        const cpu = Math.round((s.bestAvailable4.serverUsPerRequest! / s.book2.serverUsPerRequest) * 100) / 100;
        targets.push({ what: 'bestAvailable4 server CPU µs per request / book2', value: cpu, limit: '≤ 2', met: cpu <= 2 });
      }
      const p99 = Math.round((s.bestAvailable4.p99Ms / s.book2.p99Ms) * 100) / 100;
      targets.push({ what: 'bestAvailable4 p99 / book2 p99, same connections', value: p99, limit: '≤ 2', met: p99 <= 2 });
    }
    const failed = [s.bestAvailable4, s.bestAvailable4Cold].reduce((n, f) => n + (f ? f.non2xx + (f.wrongCounts ?? 0) : 0), 0);
    targets.push({ what: 'bestAvailable4 and its cold run: requests refused or short (enough seats remain)', value: failed, limit: '= 0', met: failed === 0 });
  }
  if (s.reportSummary100k) {
    // Reports of a 100,000-seat event with 50,000 seats booked (docs/reports.md, "Big events").
    targets.push({ what: 'reportSummary100k summary p99 ms', value: s.reportSummary100k.p99Ms, limit: '≤ 150', met: s.reportSummary100k.p99Ms <= 150 });
    const detailed = s.reportSummary100k.detailedP99Ms ?? Infinity;
    targets.push({ what: 'reportSummary100k detailed report p99 ms', value: detailed, limit: '≤ 1000', met: detailed <= 1000 });
  }
  for (const [name, keep] of [['statusStream', 0.75], ['statusStreamJson', 0.85]] as const) {
    // Subscribers on one event while book2 runs on it (docs/status-stream.md, "Cost").
    const f = s[name];
    if (!f) continue;
    const format = f.format === 1 ? 'compact' : 'JSON';
    // Against book2 alone just before the subscribers came (the scenario's own run).
    const kept = f.ratioToBook2Alone ?? 0;
    targets.push({ what: `${name} book2 rps / book2 alone (${f.subscribers} ${format} subscribers)`, value: kept, limit: `≥ ${keep}`, met: kept >= keep });
    // Their CPU: the server's during the load less what as many bookings cost alone, per subscriber and second.
    if (f.serverCpuSecondsWithSubscribers !== undefined && f.book2AloneServerUsPerRequest !== undefined) {
      const subscribersCpu = f.serverCpuSecondsWithSubscribers - (f.requests * f.book2AloneServerUsPerRequest) / 1e6;
      f.serverCpuUsPerSubscriberSecond = Math.round((subscribersCpu / (f.subscribers! * f.loadSeconds!)) * 1e6 * 100) / 100;
    }
    if (name === 'statusStream') {
      targets.push({ what: `statusStream delivery p99 ms (${f.subscribers} subscribers)`, value: f.deliveryP99Ms!, limit: '≤ 250', met: f.deliveryP99Ms! >= 0 && f.deliveryP99Ms! <= 250 });
      targets.push({ what: 'statusStream bytes per change per subscriber (compact)', value: f.bytesPerChange!, limit: '≤ 4', met: f.bytesPerChange! >= 0 && f.bytesPerChange! <= 4 });
    }
    const wrong = (f.subscribersBehind ?? 0) + (f.streamGaps ?? 0) + (f.viewMismatches ?? 0) + (f.subscribersClosed ?? 0) + (f.tcpTimeouts ?? 0);
    targets.push({ what: `${name} subscribers behind, gaps, closed, sampled views wrong, TCP timeouts`, value: wrong, limit: '= 0', met: wrong === 0 });
  }
  if (s.statusStreamIdle) {
    const f = s.statusStreamIdle;
    // Judged only on a server that served nothing before them: after other scenarios, the
    // allocator hands the subscribers what those freed and the server may still give memory
    // back (RSS even falls), so the growth measured is a floor, not what they take.
    const names = Object.keys(s);
    const loadedBefore = names.slice(0, names.indexOf('statusStreamIdle')).filter((n) => n !== 'ceiling' && !n.startsWith('reference')).length;
    if (loadedBefore > 0) f.afterScenarios = loadedBefore;
    else targets.push({ what: `statusStreamIdle server bytes per subscriber (${f.subscribers} idle)`, value: f.serverBytesPerSubscriber!, limit: '≤ 2048', met: f.serverBytesPerSubscriber! >= 0 && f.serverBytesPerSubscriber! <= 2048 });
  }
  if (s.chartLoad) {
    // A seat map opened again (304) against /health, both in the scenario (bench/scenarios/chartLoad.ts).
    targets.push({ what: 'chartLoad 304 rps / /health rps', value: s.chartLoad.notModifiedToHealth!, limit: '≥ 0.8', met: s.chartLoad.notModifiedToHealth! >= 0.8 });
  }
  if (s.book2WhileReporting) {
    const kept = s.book2WhileReporting.ratioToBook2Alone ?? 0;
    targets.push({ what: 'book2 rps kept while 10 connections read reports', value: kept, limit: '≥ 0.9', met: kept >= 0.9 });
  }
  const doubles = Object.values(s).reduce(
    (n, f) => n + (f.doubleBookings ?? 0) + (f.lostBookings ?? 0) + (f.strayBookings ?? 0) + (f.seasonAndEventBookings ?? 0),
    (report.alternating as AlternatingSummary | undefined)?.wrongBookings ?? 0,
  );
  const oversold = Object.values(s).reduce((n, f) => n + (f.oversold ?? 0) + (f.lostPlaces ?? 0), 0);
  targets.push({ what: 'double, lost or stray bookings, all scenarios', value: doubles, limit: '= 0', met: doubles === 0 });
  targets.push({ what: 'GA places oversold or lost, all scenarios', value: oversold, limit: '= 0', met: oversold === 0 });
  if (s.hotSeats) targets.push({ what: 'hot seats: successes (100 seats)', value: s.hotSeats.successes!, limit: '= 100, the rest 400', met: s.hotSeats.successes === 100 && s.hotSeats.otherAnswers === 0 });
  if (memory.freeSeatBytes !== undefined) {
    targets.push({ what: 'Redis bytes per free seat', value: memory.freeSeatBytes, limit: '= 0', met: memory.freeSeatBytes <= 0.01 });
    targets.push({ what: 'Redis bytes per booked seat', value: memory.bookedSeatBytes!, limit: '≤ 100', met: memory.bookedSeatBytes! <= 100 });
    targets.push({ what: 'event creation on 100,000 seats, p99 ms', value: memory.eventCreateMsP99!, limit: '≤ 50', met: memory.eventCreateMsP99! <= 50 });
  }
  return targets;
}

/** bestAvailable4 beside book2 of the same run, and how its p99 grows as its events sell. */
function printBestAvailable(report: BenchReport): void {
  const best = report.scenarios.bestAvailable4;
  if (!best) return;
  const tenths = Object.entries(best)
    .filter(([name]) => name.startsWith('p99MsSold'))
    .map(([name, value]) => `${name.slice('p99MsSold'.length).replace('to', '-')} %: ${value}`);
  const book2 = report.scenarios.book2;
  const beside = book2 ? `; book2 ${book2.rps} rps, p99 ${book2.p99Ms} ms (bestAvailable4 / book2 rps: ${Math.round((best.rps / book2.rps) * 100) / 100})` : '';
  console.log(`\nbestAvailable4: ${best.rps} rps, p99 ${best.p99Ms} ms${beside}\n  p99 ms by share sold: ${tenths.join(', ')}`);
  const cold = report.scenarios.bestAvailable4Cold;
  if (cold) console.log(`  before it, cold (the process's first best-available requests, on an event of their own): ${cold.rps} rps, p99 ${cold.p99Ms} ms, server ${cold.serverUsPerRequest} µs per request against ${best.serverUsPerRequest}`);
}

/** The scenarios measured against the lean reference, as multiples of it. */
function printAgainstReference(report: BenchReport): void {
  const s = report.scenarios;
  const rows = [
    ...Object.entries(AGAINST_REFERENCE).map(([name, reference]) => [name, reference, 'ToReference'] as const),
    ...Object.entries(OWN_REFERENCES).map(([name, reference]) => [name, reference, 'ToOwnReference'] as const),
  ].filter(([name, reference]) => s[name] && s[reference]);
  if (rows.length === 0) return;
  console.log('\nagainst the lean reference of this run (ours / reference): rps, p99, server CPU µs/request, Redis CPU µs/request');
  for (const [name, reference, suffix] of rows) {
    const f = s[name]!;
    const r = s[reference]!;
    const label = suffix === 'ToReference' ? name : `${name} / ${reference}`;
    console.log(
      `  ${label.padEnd(16)} ${f[`rps${suffix}`] ?? '-'} (${f.rps} / ${r.rps}), ${f[`p99${suffix}`] ?? '-'} (${f.p99Ms} / ${r.p99Ms} ms), ` +
        `${f[`serverUs${suffix}`] ?? '-'} (${f.serverUsPerRequest ?? '-'} / ${r.serverUsPerRequest ?? '-'}), ${f[`redisUs${suffix}`] ?? '-'} (${f.redisUsPerRequest ?? '-'} / ${r.redisUsPerRequest ?? '-'})`,
    );
  }
}

/** The alternating rounds' ratios (--alternate). */
function printAlternating(summary: AlternatingSummary | undefined): void {
  if (!summary) return;
  console.log(
    `\nin ${summary.rounds.length} alternating rounds, median (lowest–highest): book2 / reference server CPU ${describeSpread(summary.serverToReference)}, ` +
      `Redis CPU ${describeSpread(summary.redisToReference)}, p99 ${describeSpread(summary.p99ToReference)}; ` +
      Object.entries(summary.toBook2)
        .map(([name, r]) => `${name} / book2 server CPU ${describeSpread(r.server)}, Redis CPU ${describeSpread(r.redis)}; `)
        .join('') +
      Object.entries(summary.ownReference)
        .map(
          ([name, o]) =>
            `${OWN_REFERENCES[name as WithOwnReference]} / referenceBook2 server CPU ${describeSpread(o.server)}, Redis CPU ${describeSpread(o.redis)}; ` +
            `${name} / ${OWN_REFERENCES[name as WithOwnReference]} server CPU ${describeSpread(o.ours.server)}, Redis CPU ${describeSpread(o.ours.redis)}; `,
        )
        .join('') +
      `double, lost or stray bookings ${summary.wrongBookings}, answers other than 2xx ${summary.non2xx}`,
  );
}

/** One run of the selected scenarios: on the private Redis of `npm run dev`, or on a cluster of `masters`. */
async function runBench(masters: number | undefined, acks = 0): Promise<BenchReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'seatsio-bench-'));
  const cluster = masters ? await startRedisCluster({ dir: join(dataDir, 'cluster'), masters, appendOnly: true }) : undefined;
  const { server, ceilingServer, inspectPort } = await startServers(dataDir, cluster, acks);
  const adminKey = /Company admin key\s+(\S+)/.exec(server.output())![1]!;
  const workspaceKey = /Default workspace secret key\s+(\S+)/.exec(server.output())![1]!;
  const admin = new Admin(server.url, adminKey);
  const redisUrl = cluster ? undefined : /Redis\s+(redis:\/\/\S+)/.exec(server.output())![1]!;
  // With --replica-acks: the replicas REDIS_REPLICA_ACKS waits for, synced before anything is seeded.
  const replicas = [];
  for (let i = 0; i < acks; i++) replicas.push(await startRedisServer({ dir: join(dataDir, `replica-${i}`), appendOnly: true, appendFsync: 'everysec', replicaOf: Number(new URL(redisUrl!).port) }));
  const state = cluster ? new FinalState(cluster.servers.map((s) => s.url), true) : new FinalState([redisUrl!]);
  // Redis rewrites its append-only file between scenarios, not during one (bench/lib/settle.ts).
  if (settles) await state.rewriteAppendOnlyFilesOnlyWhenAsked();
  const reference = redisUrl ? await startReference(redisUrl) : undefined;
  const jobs = jobsApart ? await startJobs(server) : undefined;
  const redisPids = await state.processIds();
  // The server's in-memory MongoDB shares the machine: its CPU is reported beside the others',
  // and its stored history is emptied as the scenarios settle (bench/lib/devHistory.ts).
  const mongoPids = mongoPidsOf(server.pid);
  const history = clearsHistory ? await devHistoryOf(server.output()) : undefined;
  /**
   * A timed scenario's start, in the run and in the rounds: settled first (bench/lib/settle.ts),
   * then its CPU meter and the Redis forks made while it runs (`redisForksDuring`), with the
   * history batches settling cleared before it (`historyBatchesClearedBefore`). A reference
   * scenario's "server" is the reference process; the server's has the jobs process beside it, if any.
   */
  const startScenario = async (name: string) => {
    const settled = settles ? await settle(pendingStreamsOf(server.url), state, history) : undefined;
    const forksBefore = await state.forks();
    const cpu = REFERENCE_SCENARIOS.has(name) ? cpuMeter(reference!.pid, redisPids, { mongoPids }) : cpuMeter(server.pid, redisPids, { jobsPid: jobs?.pid, mongoPids });
    const cleared = history ? { historyBatchesClearedBefore: settled!.historyBatchesCleared } : {};
    return { cpu, forksDuring: async () => (await state.forks()) - forksBefore, cleared };
  };
  const scenarios: Record<string, Figures> = {};
  const timelines: Record<string, Timeline> = {};
  const sections: Record<string, unknown> = {};
  let memory: Record<string, number> = {};
  try {
    console.log(`bench (${scale.mode}): ${settings.durationSeconds} s per timed scenario, ${settings.connections} connections${settings.rate ? `, ${settings.rate} requests per second` : ''}`);
    const upload = await chartUpload(admin, scale.indexInOwnProcess);
    sections.charts = upload.figures;
    const charts = await seedCharts(admin, upload.chartKey);
    const ctx: BenchContext = {
      scale,
      settings,
      secondsPerScenario: warmUpSeconds + settings.durationSeconds * (1 + alternate),
      serverUrl: server.url,
      ceilingUrl: ceilingServer.url,
      referenceUrl: reference?.url,
      admin,
      workspaceHeaders: { authorization: basicAuth(workspaceKey), 'content-type': 'application/json' },
      state,
      charts,
      serverCpuSeconds: () => cpuSecondsOf(server.pid),
      serverMemory: () => processMemory(server.pid),
      newEvents: (chart, count) => admin.createEvents(chart.key, count),
    };
    if (!only || only.includes('eventsAndMemory')) {
      memory = { ...(await eventsAndMemory(ctx, state)) };
      sections.eventsAndMemory = memory;
      console.log('events and memory:', JSON.stringify(memory));
    }
    await prepare(ctx);
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (!selected(name)) continue;
      if (REFERENCE_SCENARIOS.has(name) && !reference) continue;
      if (warmUpSeconds > 0 && WARMED.has(name)) await warmUp(name, scenario, ctx, warmUpSeconds);
      const { cpu, forksDuring, cleared } = await startScenario(name);
      const commandsBefore = await state.commandStats();
      const drainBefore = await drainGauges(server.url);
      const batchesBefore = await callRequests(server.url);
      const started = Date.now();
      const allocated = inspectPort && !REFERENCE_SCENARIOS.has(name) && name !== 'ceiling' ? await allocationMeter(inspectPort, join(dirname(output), `${name}.heapprofile`), !survivors) : undefined;
      let figures: Figures;
      // Its answers second by second, for the HTML report (bench/lib/timeline.ts).
      startTimeline();
      try {
        figures = await scenario(ctx);
      } catch (error) {
        // What the server said (its warnings) tells why, once it is stopped below.
        console.error(`${name} failed; the server's last output:\n${server.output().slice(-4000)}`);
        throw error;
      } finally {
        const timeline = stopTimeline();
        if (timeline) timelines[name] = timeline;
      }
      const drain = drainFigures(drainBefore, await drainGauges(server.url), Date.now() - started);
      const batches = callBatchFigures(batchesBefore, await callRequests(server.url));
      const allocationFigure = allocated && figures.requests > 0 ? { [survivors ? 'survivingBytesPerRequest' : 'allocatedBytesPerRequest']: Math.round((await allocated()) / figures.requests) } : {};
      // The server's RSS after each scenario, and its peak so far: where a run's peak came from;
      // and its V8 heap and Buffers then, so what RSS kept can be told apart from native memory.
      const { rssBytes, peakRssBytes } = processMemory(server.pid);
      const heap = await serverHeap(server.url);
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      const memoryFigures = { serverRssMbAfter: mb(rssBytes), serverPeakRssMbSoFar: mb(peakRssBytes), serverHeapTotalMbAfter: mb(heap.heapTotalBytes), serverExternalMbAfter: mb(heap.externalBytes) };
      const commands = commandCosts(commandsBefore, await state.commandStats(), figures.requests);
      scenarios[name] = { ...figures, ...cpu(), ...commands.figures, ...drain, ...batches, ...allocationFigure, ...memoryFigures, redisForksDuring: await forksDuring(), ...cleared };
      console.log(`${name}: ${figures.rps} rps, p99 ${figures.p99Ms} ms, ${figures.non2xx} non-2xx, CPU ${JSON.stringify(cpu())}, history ${JSON.stringify(drain)}${batches.statusCalls ? `, requests per status call ${batches.requestsPerStatusCall} (p50 ${batches.requestsPerStatusCallP50}, p99 ${batches.requestsPerStatusCallP99})` : ''}${commands.top ? `, Redis commands per request ${scenarios[name]!.redisCommandsPerRequest} (${commands.top})` : ''}${allocated ? (survivors ? `, ${scenarios[name]!.survivingBytesPerRequest} bytes per request outlived the young generation` : `, ${scenarios[name]!.allocatedBytesPerRequest} bytes allocated per request`) : ''}`);
    }
    if (alternate > 0 && reference) {
      // A slice is the scenario as above, with its CPU per request; nothing else is read.
      const slice = async (name: RoundScenario) => {
        const { cpu, forksDuring, cleared } = await startScenario(name);
        const figures = { ...(await SCENARIOS[name]!(ctx)), ...cpu(), redisForksDuring: await forksDuring(), ...cleared };
        addRatios({ [name]: figures });
        return figures;
      };
      const rounds: AlternatingRound[] = [];
      // The reference, book2, and those judged against book2 that this run ran (their set-up is done).
      // With releaseChurn and seasonEventBook, the reference's own floor of each right before it.
      const inRounds: RoundScenario[] = ['referenceBook2', 'book2'];
      for (const name of (Object.keys(AGAINST_BOOK2) as AgainstBook2[]).filter((n) => scenarios[n])) {
        const floor = OWN_REFERENCES[name as WithOwnReference];
        if (floor && scenarios[floor]) inRounds.push(floor);
        inRounds.push(name);
      }
      for (let round = 0; round < alternate; round++) {
        const order = roundOrder(inRounds, round);
        const figures: Partial<Record<RoundScenario, Figures>> = {};
        for (const name of order) figures[name] = await slice(name);
        const last = alternatingRound(order, figures);
        rounds.push(last);
        const forked = order.filter((name) => (figures[name]!.redisForksDuring ?? 0) > 0);
        const others =
          Object.entries(last.toBook2).map(([name, r]) => `; ${name} / book2 server ${r.server}, Redis ${r.redis}${r.side.non2xx > 0 ? ` (${r.side.non2xx} non-2xx)` : ''}`).join('') +
          Object.entries(last.ownReference)
            .map(([name, o]) => `; ${OWN_REFERENCES[name as WithOwnReference]} / referenceBook2 server ${o.server}, Redis ${o.redis}; ${name} / it server ${o.ours.server}, Redis ${o.ours.redis}${o.side.non2xx > 0 ? ` (${o.side.non2xx} non-2xx at the reference)` : ''}`)
            .join('');
        console.log(
          `alternating round ${round + 1} (${order.join(', ')}): book2 / reference server ${last.serverToReference} (${last.book2.serverUsPerRequest} / ${last.reference.serverUsPerRequest} µs), ` +
            `Redis ${last.redisToReference}, p99 ${last.p99ToReference}${others}${forked.length > 0 ? `; Redis forked (an AOF rewrite) during ${forked.join(', ')}` : ''}`,
        );
      }
      sections.alternating = summarizeAlternating(rounds);
    }
    sections.server = { ...processMemory(server.pid), ...(await serverHeap(server.url)) };
    sections.redis = { usedMemoryBytes: await state.usedMemory() };
  } finally {
    await state.close();
    await history?.close();
    await ceilingServer.stop();
    await reference?.stop();
    await jobs?.stop();
    await server.stop();
    if (serverLog) writeFileSync(serverLog, server.output());
    await cluster?.stop();
    for (const replica of replicas) await replica.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  addRatios(scenarios);
  addReferenceRatios(scenarios);
  const report: BenchReport = {
    date: new Date().toISOString(),
    // The server's: with --server-dir, the other checkout's (the bench's own beside it).
    commit: gitCommit(serverDir),
    ...(serverDir ? { benchCommit: gitCommit() } : {}),
    mode: scale.mode,
    settings: { ...settings, serverProcesses: workers, redisMasters: masters ?? 1, ...(acks > 0 ? { replicaAcks: acks } : {}), ...(jobsApart ? { jobsProcesses: 1 } : {}) },
    serverNodeFlags,
    // Whether each scenario waited for the drain and Redis's rewrites first (bench/lib/settle.ts).
    settled: settles,
    // Whether settling emptied the development MongoDB's stored history (bench/lib/devHistory.ts).
    historyCleared: history !== undefined,
    // Seconds each scenario compared with the references ran untimed before its timed run (bench/scenarios/warmUp.ts).
    warmUpSeconds,
    machine: machine(),
    scenarios,
    ...sections,
    // Each scenario's answers second by second (bench/lib/timeline.ts): the HTML report's plots.
    timelines,
  };
  report.targets = targetsOf(report, memory);
  return report;
}

/**
 * What `--target` leaves out, and why: each needs what only a server the bench started gives
 * (its processes, its Redis, a server beside it on this machine). A scenario that reads the
 * server's process or Redis is listed here.
 */
const NOT_ON_A_TARGET: Record<string, string> = {
  ceiling: 'the no-op ceiling would run on this machine, not at the target, so rps is not divided by it',
  referenceBook2: "the lean reference runs on the server's Redis, which the bench does not reach",
  referenceHealth: "the lean reference runs on the server's Redis, which the bench does not reach",
  referenceReleaseChurn: "the lean reference runs on the server's Redis, which the bench does not reach",
  referenceSeasonEventBook: "the lean reference runs on the server's Redis, which the bench does not reach",
  eventsAndMemory: "it reads Redis's memory",
  statusStreamIdle: "it reads the server process's memory per subscriber",
};

/**
 * `--target`: the scenarios against a server the bench did not start, in a company of the run's
 * own; the final state read through the API (bench/lib/apiState.ts); client-side figures only.
 * Nothing is sent anywhere but the target's origin once its company is made (bench/lib/loadOrigin.ts).
 */
async function runTarget(origin: string, systemSecret: string): Promise<BenchReport> {
  await checkTarget(origin);
  const runId = newRunId();
  const run = await createRunCompany(origin, systemSecret, runId);
  const recordFile = recordRun(dirname(output), run);
  sendOnlyTo(origin);
  const admin = new Admin(origin, run.adminKey, runId);
  const skipped = Object.fromEntries(Object.entries(NOT_ON_A_TARGET).filter(([name]) => selected(name)));
  for (const [name, why] of Object.entries(skipped)) console.log(`not run with --target: ${name} (${why})`);
  console.log(`bench (${scale.mode}) against ${origin}, run ${runId}: ${settings.durationSeconds} s per timed scenario, ${settings.connections} connections${settings.rate ? `, ${settings.rate} requests per second` : ''}`);
  const scenarios: Record<string, Figures> = {};
  const timelines: Record<string, Timeline> = {};
  let charts: Record<string, unknown> = {};
  try {
    const upload = await chartUpload(admin, false);
    charts = upload.figures;
    const ctx: BenchContext = {
      scale,
      settings,
      secondsPerScenario: warmUpSeconds + settings.durationSeconds,
      serverUrl: origin,
      ceilingUrl: '',
      admin,
      workspaceHeaders: { authorization: basicAuth(run.workspaceSecretKey), 'content-type': 'application/json' },
      state: new ApiState(admin),
      charts: await seedCharts(admin, upload.chartKey),
      serverMemory: () => {
        throw new Error("the server's memory is not known with --target");
      },
      newEvents: (chart, count) => admin.createEvents(chart.key, count),
    };
    await prepare(ctx);
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (!selected(name) || NOT_ON_A_TARGET[name]) continue;
      if (warmUpSeconds > 0 && WARMED.has(name)) await warmUp(name, scenario, ctx, warmUpSeconds);
      // The history the scenarios before it left to store, as far as the target's /metrics tells (a server without the gauge reads as caught up).
      if (settles) await drainCaughtUp(pendingStreamsOf(origin), 60_000, 100);
      startTimeline();
      try {
        scenarios[name] = await scenario(ctx);
      } finally {
        const timeline = stopTimeline();
        if (timeline) timelines[name] = timeline;
      }
      const f = scenarios[name]!;
      console.log(`${name}: ${f.rps} rps, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.non2xx} non-2xx, ${f.errors} errors`);
    }
  } finally {
    console.log(`\nthe run's data stays on ${origin} (workspace "${runId}"; charts named, events and seasons keyed "${runId}..."), recorded in ${recordFile}; remove it with: npm run bench -- --target ${origin} --cleanup ${runId}`);
  }
  addRatios(scenarios);
  const report: BenchReport = {
    date: new Date().toISOString(),
    // The server's commit is not known; the bench's is.
    commit: 'unknown',
    benchCommit: gitCommit(),
    mode: scale.mode,
    settings: { ...settings },
    target: { url: origin, runId },
    settled: settles,
    warmUpSeconds,
    // The load generator's machine.
    machine: machine(),
    scenarios,
    skipped,
    charts,
    timelines,
  };
  report.targets = targetsOf(report, {});
  return report;
}

/** `--cleanup [RUN_ID]`: removes what the runs recorded beside the output against `origin` made there. */
async function cleanUpTarget(origin: string, runId: string | undefined): Promise<void> {
  const dir = dirname(output);
  const runs = recordedRuns(dir, origin, runId);
  if (runs.length === 0) throw new TargetError(`no run against ${origin}${runId ? ` with id ${runId}` : ''} is recorded in ${dir} (a run writes target-run-<id>.json there)`);
  await checkTarget(origin);
  sendOnlyTo(origin);
  for (const { run, file } of runs) {
    let removed: Awaited<ReturnType<typeof cleanUpRun>>;
    try {
      removed = await cleanUpRun(new Admin(origin, run.adminKey), run.runId);
    } catch (error) {
      throw new TargetError(`cleaning up run ${run.runId} on ${origin} failed: ${(error as Error).message.split('\n')[0]}`);
    }
    forgetRun(file);
    console.log(`run ${run.runId} on ${origin}: ${removed.eventsRemoved} events and seasons deleted with their inventory, ${removed.chartsArchived} charts moved to the archive; its company stays, with the empty workspace "${run.runId}"`);
  }
}

/** `--target` and `--cleanup`: a problem with them or the target is one line on stderr and exit code 1, before any load. */
async function mainTarget(): Promise<void> {
  try {
    if (!args.includes('--target')) throw new TargetError('--system-secret and --cleanup go with --target URL (the server to measure)');
    const origin = targetOrigin(option('--target'), args);
    if (args.includes('--cleanup')) {
      const runId = option('--cleanup');
      await cleanUpTarget(origin, runId && !runId.startsWith('--') ? runId : undefined);
      return;
    }
    const secret = option('--system-secret');
    if (!secret || secret.startsWith('--')) throw new TargetError("--target needs --system-secret S, the server's SYSTEM_API_SECRET: the bench makes a company of its own with it");
    const report = await runTarget(origin, secret);
    printTable(report);
    printTargets(report.targets as Target[]);
    writeReport(report, output);
    if (compareFile) printComparison(report, compareFile);
    console.log(`HTML report: ${writeHtmlReport(report, output, compareFile)}`);
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

/** `--cluster`: each scenario on one Redis and on the cluster, with its CPU per request. */
function printClusterComparison(single: BenchReport, cluster: BenchReport): void {
  console.log(`\none Redis vs a ${cluster.settings.redisMasters as number}-master Redis Cluster on this machine (same load, ratios to each run's ceiling)`);
  console.log('scenario          rps single / cluster   ratio single / cluster   p99 ms single / cluster   CPU µs/request server, redis (all masters), generator: single / cluster');
  for (const [name, f] of Object.entries(cluster.scenarios)) {
    const s = single.scenarios[name];
    if (!s || name === 'ceiling') continue;
    const cpu = (x: typeof f) => `${x.serverUsPerRequest ?? '-'}, ${x.redisUsPerRequest ?? '-'}, ${x.generatorUsPerRequest ?? '-'}`;
    console.log(
      `${name.padEnd(16)}  ${`${s.rps} / ${f.rps}`.padEnd(21)}  ${`${s.ratioToCeiling ?? '-'} / ${f.ratioToCeiling ?? '-'}`.padEnd(23)}  ${`${s.p99Ms} / ${f.p99Ms}`.padEnd(24)}  ${cpu(s)} / ${cpu(f)}`,
    );
  }
}

/** What waiting for replicas costs: each scenario's rate with REDIS_REPLICA_ACKS=N as a share of its rate without, in the same run. */
function printReplicaAcksComparison(plain: BenchReport, acked: BenchReport): void {
  console.log(`\none Redis vs one Redis with ${acked.settings.replicaAcks as number} replica(s) and REDIS_REPLICA_ACKS=${acked.settings.replicaAcks as number} (same load; "kept" is rps with acks / rps without, and the same of each run's ratio to its ceiling)`);
  console.log('scenario          rps without / with     kept (rps)   kept (ratio to ceiling)   p99 ms without / with');
  for (const [name, f] of Object.entries(acked.scenarios)) {
    const s = plain.scenarios[name];
    if (!s || name === 'ceiling') continue;
    const kept = (f.rps / s.rps).toFixed(2);
    const keptRatio = s.ratioToCeiling && f.ratioToCeiling ? (f.ratioToCeiling / s.ratioToCeiling).toFixed(2) : '-';
    console.log(`${name.padEnd(16)}  ${`${s.rps} / ${f.rps}`.padEnd(21)}  ${kept.padEnd(11)}  ${keptRatio.padEnd(24)}  ${s.p99Ms} / ${f.p99Ms}`);
  }
}

async function main(): Promise<void> {
  if (['--target', '--system-secret', '--cleanup'].some((name) => args.includes(name))) return mainTarget();
  if (replicaAcks !== undefined) {
    const plain = await runBench(undefined);
    printTable(plain);
    const acked = await runBench(undefined, replicaAcks);
    printTable(acked);
    printReplicaAcksComparison(plain, acked);
    writeReport({ ...acked, plain } as BenchReport, output);
    return;
  }
  if (clusterMode) {
    const single = await runBench(undefined);
    printTable(single);
    const cluster = await runBench(3);
    printTable(cluster);
    printTargets(cluster.targets as Target[]);
    printClusterComparison(single, cluster);
    writeReport({ ...cluster, single } as BenchReport, output);
    console.log(`HTML report: ${writeHtmlReport(cluster, output, compareFile)}`);
    return;
  }
  const report = await runBench(undefined);
  printTable(report);
  printAgainstReference(report);
  printAlternating(report.alternating as AlternatingSummary | undefined);
  console.log('\nevents and memory:', JSON.stringify(report.eventsAndMemory), '\nserver memory:', JSON.stringify(report.server));
  printBestAvailable(report);
  printTargets(report.targets as Target[]);
  writeReport(report, output);
  if (compareFile) printComparison(report, compareFile);
  console.log(`HTML report: ${writeHtmlReport(report, output, compareFile)}`);
}

await main();
