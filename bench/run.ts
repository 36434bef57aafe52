import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { startChildServer } from '../src/embedded/childServer.js';
import { freePort } from '../src/embedded/freePort.js';
import { buildObjectIndex } from '../src/domain/objectIndex.js';
import { generatedDrawing, SEATS_100K } from './drawings.js';

// `npm run bench [-- --quick] [-- --compare FILE]`
// Starts the server on its embedded defaults (npm run dev's launcher, with a temp data dir)
// in a child process, a no-op uWS ceiling in another, and drives both with autocannon at
// the same connections and duration. Reports rps, p50, p99 and non-2xx per scenario and
// each scenario's ratio to the ceiling; writes bench/results/latest.json.

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const compareIndex = args.indexOf('--compare');
const compareFile = compareIndex >= 0 ? args[compareIndex + 1] : undefined;
const DURATION_S = quick ? 5 : 15;
const CONNECTIONS = 100;

interface Figures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  ratioToCeiling?: number;
}

async function measure(options: autocannon.Options): Promise<Figures> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  return {
    rps: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

const basic = (key: string) => 'Basic ' + Buffer.from(`${key}:`).toString('base64');

/**
 * The 100,000-seat chart: indexing cost measured in its own process (bench/objectIndex.ts,
 * needs --expose-gc for heap figures), then an upload and a first thumbnail over HTTP.
 */
async function measureCharts(base: string, adminKey: string): Promise<{ figures: Record<string, unknown>; chartKey: string }> {
  const index = JSON.parse(execFileSync(process.execPath, ['--expose-gc', 'dist/bench/objectIndex.js']).toString()) as Record<string, unknown>;
  const body = JSON.stringify(generatedDrawing(SEATS_100K));
  const headers = { authorization: basic(adminKey), 'content-type': 'application/json' };
  // How long the server stalls other requests while it takes the chart in: /health asked
  // back to back during the upload, slowest answer kept.
  let uploading = true;
  let slowestHealthMs = 0;
  const probe = (async () => {
    while (uploading) {
      const asked = performance.now();
      await (await fetch(`${base}/health`)).arrayBuffer();
      slowestHealthMs = Math.max(slowestHealthMs, performance.now() - asked);
    }
  })();
  let started = performance.now();
  const created = await fetch(`${base}/charts`, { method: 'POST', headers, body });
  const uploadMs = Math.round(performance.now() - started);
  uploading = false;
  await probe;
  if (created.status !== 200) throw new Error(`chart upload answered ${created.status}: ${await created.text()}`);
  const chart = (await created.json()) as { key: string };
  started = performance.now();
  const thumbnail = await fetch(`${base}/charts/${chart.key}/version/published/thumbnail`, { headers });
  await thumbnail.arrayBuffer();
  const firstThumbnailMs = Math.round(performance.now() - started);
  return {
    figures: { ...index, httpUploadMs: uploadMs, slowestHealthDuringUploadMs: Math.round(slowestHealthMs), httpFirstThumbnailMs: firstThumbnailMs },
    chartKey: chart.key,
  };
}

/** Enough events on the 100,000-seat chart that every book-2 request finds two free seats. */
const BOOK_EVENTS = quick ? 4 : 10;

/** Creates the events book-2 walks through, on the 100,000-seat chart. */
async function createBookingEvents(base: string, adminKey: string, chartKey: string): Promise<string[]> {
  const headers = { authorization: basic(adminKey), 'content-type': 'application/json' };
  const eventKeys: string[] = [];
  for (let i = 0; i < BOOK_EVENTS; i++) {
    const response = await fetch(`${base}/events`, { method: 'POST', headers, body: JSON.stringify({ chartKey }) });
    if (response.status !== 200) throw new Error(`event creation answered ${response.status}: ${await response.text()}`);
    const created = (await response.json()) as { key?: string; eventKey: string };
    eventKeys.push(created.key ?? created.eventKey);
  }
  return eventKeys;
}

/**
 * book-2: each request books 2 distinct free seats, walking the chart's labels and then the
 * next event, so every request should succeed (non2xx counts the ones that did not). The
 * same generator drives the ceiling (`?bytes=0`: answered without a body, as book answers
 * 204), because building each request costs the load generator too.
 */
function bookTwoRequests(labels: string[], eventKeys: string[], adminKey: string, query = ''): autocannon.Options['requests'] {
  const pairsPerEvent = Math.floor(labels.length / 2);
  let next = 0;
  return [
    {
      method: 'POST',
      headers: { authorization: basic(adminKey), 'content-type': 'application/json' },
      setupRequest: (request) => {
        const pair = next++;
        const event = eventKeys[Math.floor(pair / pairsPerEvent) % eventKeys.length]!;
        const at = (pair % pairsPerEvent) * 2;
        return {
          ...request,
          path: `/events/${event}/actions/book${query}`,
          body: JSON.stringify({ objects: [labels[at], labels[at + 1]] }),
        };
      },
    },
  ];
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'seatsio-bench-'));
  const serverPort = await freePort();
  const ceilingPort = await freePort();
  const base = `http://127.0.0.1:${serverPort}`;
  const server = await startChildServer({
    name: 'server (npm run dev)',
    command: process.execPath,
    args: ['dist/src/dev.js'],
    env: { PORT: String(serverPort), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL: '', MONGODB_URL: '' },
    readyLine: /Ctrl\+C/,
    url: base,
    timeoutMs: 60_000,
  });
  const adminKey = /Company admin key\s+(\S+)/.exec(server.output())![1]!;
  const workspaceKey = /Default workspace secret key\s+(\S+)/.exec(server.output())![1]!;
  const redisUrl = /Redis\s+(redis:\/\/\S+)/.exec(server.output())![1]!;

  // The ceiling answers with a body the size of a hold token response.
  const sample = await fetch(`${base}/hold-tokens`, { method: 'POST', headers: { authorization: basic(workspaceKey) } });
  const sampleBytes = (await sample.arrayBuffer()).byteLength;
  const ceiling = await startChildServer({
    name: 'ceiling',
    command: process.execPath,
    args: ['dist/bench/ceiling.js', String(ceilingPort), String(sampleBytes)],
    readyLine: /ceiling ready/,
    url: `http://127.0.0.1:${ceilingPort}`,
  });

  const scenarios: Record<string, Figures> = {};
  let charts: Record<string, unknown> = {};
  try {
    const uploaded = await measureCharts(base, adminKey);
    charts = uploaded.figures;
    const bookingEvents = await createBookingEvents(base, adminKey, uploaded.chartKey);
    const labels = buildObjectIndex(generatedDrawing(SEATS_100K)).objects.map((o) => o.label);
    console.log(`bench: ${DURATION_S} s per scenario, ${CONNECTIONS} connections`);
    scenarios.ceiling = await measure({ url: `${ceiling.url}/hold-tokens`, method: 'POST' });
    scenarios.health = await measure({ url: `${base}/health` });
    // Priority lane: Basic auth resolved from the tenant cache, one Redis MULTI per request.
    scenarios.holdTokenCreate = await measure({
      url: `${base}/hold-tokens`,
      method: 'POST',
      headers: { authorization: basic(workspaceKey), 'content-type': 'application/json' },
      body: '{"expiresInMinutes":5}',
    });
    // Not priority lane: a MongoDB query per request.
    scenarios.workspaceList = await measure({ url: `${base}/workspaces`, headers: { authorization: basic(adminKey) } });
    // The ceiling again, driven exactly like book-2 (same request generator and bodies).
    scenarios.ceilingBook = await measure({ url: ceiling.url, requests: bookTwoRequests(labels, bookingEvents, adminKey, '?bytes=0') });
    scenarios.book2 = await measure({ url: base, requests: bookTwoRequests(labels, bookingEvents, adminKey) });
  } finally {
    await ceiling.stop();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const c = scenarios.ceiling!.rps;
  for (const [name, figures] of Object.entries(scenarios)) if (name !== 'ceiling') figures.ratioToCeiling = Math.round((figures.rps / c) * 1000) / 1000;
  // book-2 is also compared with the ceiling driven by the same request generator.
  const bookCeiling = scenarios.ceilingBook?.rps;
  if (bookCeiling && scenarios.book2) (scenarios.book2 as Figures & { ratioToBookCeiling?: number }).ratioToBookCeiling = Math.round((scenarios.book2.rps / bookCeiling) * 1000) / 1000;

  let redisVersion = 'unknown';
  try {
    redisVersion = /v=(\S+)/.exec(execFileSync('redis-server', ['--version']).toString())?.[1] ?? redisVersion;
  } catch {
    /* reported as unknown */
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD']).toString().trim();
  } catch {
    /* not a checkout */
  }
  const report = {
    date: new Date().toISOString(),
    commit,
    mode: quick ? 'quick' : 'full',
    settings: { durationSeconds: DURATION_S, connections: CONNECTIONS },
    machine: { cores: cpus().length, memoryBytes: totalmem(), node: process.version, redis: redisVersion, redisUrl },
    scenarios,
    charts,
  };

  console.log('\nscenario          rps       p50 ms  p99 ms  non2xx  errors  ratio');
  for (const [name, f] of Object.entries(scenarios)) {
    console.log(
      `${name.padEnd(16)} ${String(f.rps).padStart(7)} ${String(f.p50Ms).padStart(8)} ${String(f.p99Ms).padStart(7)} ${String(f.non2xx).padStart(7)} ${String(f.errors).padStart(7)}  ${f.ratioToCeiling ?? '1 (ceiling)'}`,
    );
  }
  console.log('\ncharts (100,000 seats):', JSON.stringify(charts));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/latest.json', JSON.stringify(report, null, 2) + '\n');
  console.log('\nwritten: bench/results/latest.json');

  if (compareFile) {
    const previous = JSON.parse(readFileSync(compareFile, 'utf8')) as typeof report;
    console.log(`\ncompared with ${compareFile} (${previous.commit.slice(0, 8)}): ratio to ceiling now vs then`);
    for (const [name, f] of Object.entries(scenarios)) {
      const before = previous.scenarios[name];
      if (name === 'ceiling' || !before) continue;
      console.log(`${name.padEnd(16)} ${f.ratioToCeiling} vs ${before.ratioToCeiling}`);
    }
  }
}

await main();
