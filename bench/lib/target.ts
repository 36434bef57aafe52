import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Admin } from './admin.js';
import { basicAuth } from './measure.js';

// `--target URL`: the bench against a server it did not start (docs/benchmarks.md, "Against
// your own deployment"). Before any load, the target must answer as this project's server
// does: GET /health, then a company of the bench's own made with the system secret. The run's
// data is marked by its run id (the workspace's name, every chart's name, every event and
// season key) and recorded beside the report, so `--cleanup` can find it and remove it.

/** A problem with the target or the options that stops the bench before it sends load: one line, exit 1. */
export class TargetError extends Error {}

/** Options that set up the server the bench starts itself; with --target there is none. */
const SERVER_OPTIONS = ['--cluster', '--workers', '--jobs-apart', '--profile', '--allocation', '--survivors', '--node-flags', '--server-dir', '--alternate', '--keep-history'];

/** The target's origin (scheme, host, port), or a TargetError for anything else than an http(s) origin. */
export function targetOrigin(url: string | undefined, args: string[]): string {
  if (!url || url.startsWith('--')) throw new TargetError('--target takes the server\'s URL, such as http://host:3000');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetError(`--target ${url}: not a URL (give one such as http://host:3000)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TargetError(`--target ${url}: only http:// and https:// servers can be measured`);
  if (parsed.pathname !== '/' || parsed.search || parsed.hash || parsed.username) throw new TargetError(`--target ${url}: give the server's origin alone (such as ${parsed.origin}), without a path, query or credentials`);
  const starting = SERVER_OPTIONS.filter((option) => args.includes(option));
  if (starting.length > 0) throw new TargetError(`${starting.join(', ')}: ${starting.length > 1 ? 'these options set' : 'this option sets'} up a server the bench starts, and does not apply with --target`);
  return parsed.origin;
}

/** Why a request to the target failed to get an answer, in a few words. */
function unreachable(origin: string, error: unknown): TargetError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return new TargetError(`cannot reach ${origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
}

async function ask(origin: string, path: string, init: RequestInit = {}): Promise<{ status: number; text: string; json: unknown }> {
  let response: Response;
  try {
    response = await fetch(`${origin}${path}`, { ...init, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw unreachable(origin, error);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

const excerpt = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text).replace(/\s+/g, ' ');

/** The target answers GET /health as this project's server does (200 `{status: "UP"}`). */
export async function checkTarget(origin: string): Promise<void> {
  const health = await ask(origin, '/health');
  if (health.status !== 200 || (health.json as { status?: unknown } | undefined)?.status !== 'UP') {
    throw new TargetError(`${origin} does not answer as a seat inventory server: GET /health answered ${health.status} ${excerpt(health.text)} (expected 200 {"status":"UP"})`);
  }
}

/** What the bench needs to work in its company, and to remove what it made there. */
export interface TargetRun {
  url: string;
  runId: string;
  startedAt: string;
  adminKey: string;
  workspaceKey: string;
  workspaceSecretKey: string;
}

/** A run id: the date and time and a few random letters, lowercase (a key prefix and a workspace name). */
export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', 't');
  return `bench-${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * A company of the run's own, made with the system secret (POST /system/private/create-test-company),
 * its default workspace named after the run.
 */
export async function createRunCompany(origin: string, systemSecret: string, runId: string): Promise<TargetRun> {
  const created = await ask(origin, '/system/private/create-test-company', { method: 'POST', headers: { authorization: basicAuth(systemSecret) } });
  if (created.status === 401 || created.status === 403) {
    throw new TargetError(`${origin} refused the system secret (POST /system/private/create-test-company answered ${created.status}): --system-secret takes the server's SYSTEM_API_SECRET`);
  }
  const answer = created.json as { admin?: { secretKey?: unknown }; workspace?: { key?: unknown; secretKey?: unknown } } | undefined;
  const [adminKey, workspaceKey, workspaceSecretKey] = [answer?.admin?.secretKey, answer?.workspace?.key, answer?.workspace?.secretKey];
  if (created.status !== 200 || typeof adminKey !== 'string' || typeof workspaceKey !== 'string' || typeof workspaceSecretKey !== 'string') {
    throw new TargetError(`${origin} does not answer as a seat inventory server: POST /system/private/create-test-company answered ${created.status} ${excerpt(created.text)}`);
  }
  const named = await ask(origin, `/workspaces/${encodeURIComponent(workspaceKey)}`, {
    method: 'POST',
    headers: { authorization: basicAuth(adminKey), 'content-type': 'application/json' },
    body: JSON.stringify({ name: runId }),
  });
  if (named.status !== 204) throw new TargetError(`${origin} did not let the bench name its workspace: POST /workspaces/{key} answered ${named.status} ${excerpt(named.text)}`);
  return { url: origin, runId, startedAt: new Date().toISOString(), adminKey, workspaceKey, workspaceSecretKey };
}

const RECORD = /^target-run-(.+)\.json$/;

/** Writes the run's record into `dir` (beside the report): what --cleanup reads. Its path. */
export function recordRun(dir: string, run: TargetRun): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `target-run-${run.runId}.json`);
  writeFileSync(file, JSON.stringify(run, null, 2) + '\n');
  return file;
}

/** The runs recorded in `dir` against `origin` (only `runId`'s, if given), with their files. */
export function recordedRuns(dir: string, origin: string, runId?: string): { run: TargetRun; file: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    names = [];
  }
  return names
    .filter((name) => RECORD.test(name))
    .map((name) => ({ file: join(dir, name), run: JSON.parse(readFileSync(join(dir, name), 'utf8')) as TargetRun }))
    .filter(({ run }) => run.url === origin && (runId === undefined || run.runId === runId));
}

interface Page<T> {
  items: T[];
  next_page_starts_after?: string;
}

/** Every item of a list route, page after page. */
async function everything<T>(admin: Admin, path: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  let after: string | undefined;
  do {
    const page = await admin.call<Page<T>>('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${after ? `&start_after_id=${after}` : ''}`);
    items.push(...page.items);
    after = page.next_page_starts_after;
  } while (after);
  return items;
}

/**
 * Removes what the run made: every event and season whose key starts with its run id (with
 * their inventory; a season takes its events along) and, as the API deletes no chart, its
 * charts moved to the archive. The company and its workspace stay (the API deletes no
 * company, nor a company's default workspace), empty, named after the run.
 */
export async function cleanUpRun(admin: Admin, runId: string): Promise<{ eventsRemoved: number; chartsArchived: number }> {
  const ours = (key: string) => key.startsWith(`${runId}-`);
  const events = (await everything<{ key: string; isTopLevelSeason?: boolean }>(admin, '/events', 1000)).filter((event) => ours(event.key));
  // Seasons first: each deletes its events, which then answer 404.
  const ordered = [...events.filter((e) => e.isTopLevelSeason), ...events.filter((e) => !e.isTopLevelSeason)];
  for (const event of ordered) {
    try {
      await admin.call('DELETE', `/events/${encodeURIComponent(event.key)}`, undefined, 204);
    } catch (error) {
      if (!/answered 404/.test((error as Error).message)) throw error;
    }
  }
  const charts = (await everything<{ key: string; name: string }>(admin, `/charts?filter=${encodeURIComponent(runId)}`, 20)).filter((chart) => chart.name.startsWith(`${runId} `));
  for (const chart of charts) await admin.call('POST', `/charts/${encodeURIComponent(chart.key)}/actions/move-to-archive`, undefined, 204);
  return { eventsRemoved: events.length, chartsArchived: charts.length };
}

/** Forgets a run once cleaned up. */
export const forgetRun = (file: string) => rmSync(file, { force: true });
