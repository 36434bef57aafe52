import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import type { RunningApp } from '../../src/app.js';
import type { RedisClient } from '../../src/inventory/redis.js';
import { startTcpProxy, type TcpProxy } from './tcpProxy.js';
import { serverEnv, startServerWith, SYSTEM_SECRET, type TestServer } from './testServer.js';

export { newDatabaseName, SYSTEM_SECRET, type TestServer } from './testServer.js';

// Boots real servers for tests: the app in-process on a free port (startTestServer) or as
// a child process running the built dist/ (spawnServer), against the Redis and MongoDB
// wire servers of globalSetup; or hands a file the server globalSetup started for every file
// of its project (useServerWithCompany('shared')). Plus a small HTTP client.

/** Environment for a server under test; `MONGODB_DB` isolates its metadata. */
export function testEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return serverEnv({ redisUrl: inject('redisUrl'), redisClusterNodes: inject('redisClusterNodes'), mongoUrl: inject('mongoUrl') }, overrides);
}

/**
 * A connection of the test's own to the Redis its servers use (a cluster in the cluster
 * project), with `keyPrefix` put before every key like the servers' REDIS_KEY_PREFIX.
 */
export function testRedis(keyPrefix = ''): RedisClient {
  const nodes = inject('redisClusterNodes');
  if (nodes === '') return new Redis(inject('redisUrl'), { keyPrefix });
  return new Cluster(nodes.split(','), { keyPrefix });
}

/**
 * Keys of the background jobs (BullMQ's, the history drain's list and progress): they change
 * as time passes, whatever requests do, so "nothing changed" checks leave them out.
 */
export const isBackgroundKey = (key: string, prefix: string): boolean => key.startsWith(`${prefix}bull:`) || key.startsWith(`${prefix}history:`);

export async function startTestServer(overrides: Record<string, string> = {}): Promise<TestServer> {
  return startServerWith(testEnv(overrides));
}

/**
 * The server globalSetup started for every file of the project that asks for it. Its parts
 * live in vitest's main process: a test that reads them (`server.app`) needs a server of its own.
 */
function sharedServer(): TestServer {
  const url = inject('sharedServerUrl');
  if (!url) throw new Error('this project has no shared test server (test/support/globalSetup.ts)');
  return {
    url,
    get app(): RunningApp {
      throw new Error("this file runs on the shared test server (useServerWithCompany('shared')), whose parts are in vitest's main process: give it a server of its own to read them");
    },
    stop: async () => undefined,
  };
}

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, instead of JSON.stringify(body). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export function basic(key: string): string {
  return 'Basic ' + Buffer.from(`${key}:`).toString('base64');
}

export async function call<T = any>(url: string, method: string, path: string, options: CallOptions = {}): Promise<Response<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization ??= basic(options.key);
  let body: string | Buffer | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url + path, { method, headers, body: body as BodyInit | undefined });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * A GET through node:http, which (unlike fetch) neither adds Accept-Encoding nor decompresses:
 * headers like Content-Encoding and the body are seen as sent.
 */
export function rawGet(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A client bound to one server and one key. */
export function client(url: string, key?: string, headers: Record<string, string> = {}) {
  const send = <T = any>(method: string, path: string, body?: unknown, extra: Omit<CallOptions, 'key' | 'body'> = {}) =>
    call<T>(url, method, path, { key, body, ...extra, headers: { ...headers, ...extra.headers } });
  return {
    get: <T = any>(path: string, extra?: Omit<CallOptions, 'key' | 'body'>) => send<T>('GET', path, undefined, extra),
    post: <T = any>(path: string, body?: unknown, extra?: Omit<CallOptions, 'key' | 'body'>) => send<T>('POST', path, body, extra),
    delete: <T = any>(path: string, body?: unknown, extra?: Omit<CallOptions, 'key' | 'body'>) => send<T>('DELETE', path, body, extra),
  };
}

export type Api = ReturnType<typeof client>;

/** Asserts the error body of docs/seatsio-behaviour.md, "Errors": {status, messages[], errors[{code,message}], warnings[], requestId}. */
export function expectError(response: Response, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.status).toBe(status);
  expect(response.body.errors[0].code).toBe(code);
  expect(typeof response.body.errors[0].message).toBe('string');
  expect(response.body.messages).toEqual(
    [...response.body.errors, ...response.body.warnings].map((e: { message: string }) => e.message),
  );
  expect(typeof response.body.requestId).toBe('string');
  expect(response.body.requestId).not.toBe('');
}

export interface TestCompany {
  adminKey: string;
  workspace: { id: number; key: string; secretKey: string };
}

export async function createTestCompany(url: string): Promise<TestCompany> {
  const response = await call(url, 'POST', '/system/private/create-test-company', { key: SYSTEM_SECRET });
  if (response.status !== 200) throw new Error(`create-test-company answered ${response.status}: ${response.text}`);
  return { adminKey: response.body.admin.secretKey, workspace: response.body.workspace };
}

/** A test company with a client for its default workspace's secret key and one for its admin key. */
export interface CompanyClients {
  company: TestCompany;
  /** Authenticated with the secret key of the company's default workspace. */
  api: Api;
  /** Authenticated with the company admin key. */
  admin: Api;
}

export async function createCompanyClients(url: string): Promise<CompanyClients> {
  const company = await createTestCompany(url);
  return { company, api: client(url, company.workspace.secretKey), admin: client(url, company.adminKey) };
}

export interface ServerWithCompany extends CompanyClients {
  server: TestServer;
  /** A company of its own on the same server, for tests that count or change company-wide things. */
  freshCompany(): Promise<CompanyClients>;
}

/**
 * Registers beforeAll/afterAll hooks for the enclosing describe (or file): one in-process server
 * (with `overrides` in its environment) and one test company on it. The fields of the returned
 * object are filled in by beforeAll, so read them inside hooks and tests only.
 *
 * `'shared'`: the project's shared server instead (globalSetup.ts), for files whose tests see
 * the server only through its API. Their companies keep them apart from the other files on it,
 * and they neither load the server's modules nor start one (about a second of CPU per file).
 */
export function useServerWithCompany(overrides: Record<string, string> | 'shared' = {}): ServerWithCompany {
  const ctx = { freshCompany: () => createCompanyClients(ctx.server.url) } as ServerWithCompany;
  beforeAll(async () => {
    ctx.server = overrides === 'shared' ? sharedServer() : await startTestServer(overrides);
    Object.assign(ctx, await createCompanyClients(ctx.server.url));
  });
  afterAll(() => ctx.server?.stop());
  return ctx;
}

/** A proxy to the run's MongoDB that the test can cut (tcpProxy.ts), and the MONGODB_URL through it. */
export async function mongoThroughProxy(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(inject('mongoUrl'));
  const proxy = await startTcpProxy(target.hostname, Number(target.port));
  return { proxy, url: `mongodb://127.0.0.1:${proxy.port}/?directConnection=true` };
}

/** The server's /metrics gauges whose names start with `prefix`, by name. */
export async function gaugesNamed(url: string, prefix: string): Promise<Record<string, number>> {
  const text = (await call(url, 'GET', '/metrics')).text;
  return Object.fromEntries([...text.matchAll(new RegExp(`^(${prefix}\\w*) (\\S+)$`, 'gm'))].map((m) => [m[1]!, Number(m[2])]));
}

/** Polls `check` until it returns true; returns the milliseconds it took, or throws after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 20): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface SpawnedServer {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs the built server (`node dist/src/main.js`, what `npm start` runs; `npm test` builds it first). */
function runBuilt(env: Record<string, string>, script = 'dist/src/main.js') {
  const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d.toString()));
  child.stderr!.on('data', (d) => (output += d.toString()));
  // 'close', not 'exit': a process that exits at once may still have output in its pipes
  // then (a configuration error's one line was lost that way in a full run).
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Runs the built server (or `script`, another build's main.js) as a child process and waits for its "listening" log line. */
export async function spawnServer(env: Record<string, string>, script?: string): Promise<SpawnedServer> {
  const { child, output, exited } = runBuilt({ ...env, LOG_LEVEL: env.LOG_LEVEL === 'silent' ? 'info' : (env.LOG_LEVEL ?? 'info') }, script);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output());
      if (match) {
        clearInterval(timer);
        resolve(Number(match[1]));
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output()}`));
    });
  });
  return { child, url: `http://127.0.0.1:${port}`, output, exited };
}

export interface SpawnedWorker {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs the built background-jobs process (`npm run worker`) and waits until its jobs run. */
export async function spawnWorker(env: Record<string, string>): Promise<SpawnedWorker> {
  const { child, output, exited } = runBuilt({ ...env, LOG_LEVEL: 'info' }, 'dist/src/worker.js');
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output().includes('"msg":"background jobs running"')) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`worker exited with ${code} before running:\n${output()}`));
    });
  });
  return { child, output, exited };
}

/** Runs the built server expecting it to fail at start; returns its exit code and output. */
export async function runServerToExit(env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; output: string }> {
  const { child, output, exited } = runBuilt(env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited;
  clearTimeout(timer);
  return { code, output: output() };
}
