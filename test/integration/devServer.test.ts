import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startChildServer, type ChildServer } from '../../src/embedded/childServer.js';
import { basic, call, newDatabaseName, testEnv } from '../support/harness.js';

// `npm run dev` (the built dist/src/dev.js, as `npm run dev` runs it) on the test's Redis and
// MongoDB: on first start it creates the sample chart and an event on it and prints a curl
// command that books a seat; that command, run as printed, books the seat. DEV_SAMPLE=off
// leaves the sample out. The README's first booking, its five curl lines, works as written.
// (The embedded Redis and MongoDB path is the bench smoke run's.)

const dataDir = mkdtempSync(join(tmpdir(), 'dev-server-'));
const started: ChildServer[] = [];
afterAll(async () => {
  await Promise.all(started.map((server) => server.stop()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function startDev(overrides: Record<string, string>): Promise<{ url: string; banner: string; stop: () => Promise<void> }> {
  const env = testEnv({ LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...overrides });
  const server = await startChildServer({ name: 'npm run dev', command: process.execPath, args: ['dist/src/dev.js'], readyLine: /Ctrl\+C/, url: '', env, timeoutMs: 30_000 });
  started.push(server);
  const url = /listening on (http:\/\/\S+)/.exec(server.output())![1]!;
  return { url, banner: server.output(), stop: () => server.stop() };
}

/** The printed `curl -u KEY: URL -H ... -d 'BODY'`, as fetch would send it. */
function parseCurl(line: string): { key: string; url: string; body: string } {
  const match = /^curl -u (\S+): (\S+) -H 'Content-Type: application\/json' -d '([^']*)'$/.exec(line.trim());
  expect(match, line).not.toBeNull();
  return { key: match![1]!, url: match![2]!, body: match![3]! };
}

/** A curl command line's words: single quotes group, as the shell would. */
const words = (line: string): string[] => [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);

/** Sends what `curl -u KEY: URL [-H header] [-d body | -d @file]` would: POST when there is a body, curl's form type unless a header says otherwise. */
async function runCurl(line: string): Promise<globalThis.Response> {
  const [command, ...args] = words(line);
  expect(command).toBe('curl');
  const headers: Record<string, string> = {};
  let url = '';
  let body: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-u') headers.authorization = basic(args[++i]!.replace(/:$/, ''));
    else if (arg === '-H') {
      const [name, ...value] = args[++i]!.split(':');
      headers[name!.toLowerCase()] = value.join(':').trim();
    } else if (arg === '-d') {
      const data = args[++i]!;
      body = data.startsWith('@') ? readFileSync(data.slice(1), 'utf8').replace(/[\r\n]/g, '') : data;
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else url = arg.startsWith('http') ? arg : `http://${arg}`;
  }
  return fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, body });
}

describe('npm run dev', () => {
  const database = newDatabaseName();

  it('creates the sample chart and event on first start and prints a curl command that books a seat', async () => {
    const dev = await startDev({ MONGODB_DB: database, REDIS_KEY_PREFIX: `${database}:` });
    const line = dev.banner.split('\n').find((l) => l.trim().startsWith('curl '));
    expect(line, dev.banner).toBeDefined();
    const curl = parseCurl(line!);
    expect(curl.url).toBe(`${dev.url}/events/sample-event/actions/book`);

    const chart = await call(dev.url, 'GET', '/charts/sample-chart', { key: curl.key });
    expect(chart.status).toBe(200);
    expect(chart.body).toMatchObject({ key: 'sample-chart', name: 'Sample chart', status: 'PUBLISHED' });
    const event = await call(dev.url, 'GET', '/events/sample-event', { key: curl.key });
    expect(event.status).toBe(200);
    expect(event.body).toMatchObject({ key: 'sample-event', chartKey: 'sample-chart' });

    // The printed box-office address serves the page.
    const boxOffice = /Box office .*: (\S+)$/m.exec(dev.banner)?.[1];
    expect(boxOffice, dev.banner).toBe(`${dev.url}/box-office`);
    const page = await fetch(boxOffice!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Box office</title>');

    // Run the printed command.
    const booked = await fetch(curl.url, { method: 'POST', headers: { authorization: basic(curl.key), 'content-type': 'application/json' }, body: curl.body });
    expect(booked.status).toBe(204);
    const seat = await call(dev.url, 'GET', '/events/sample-event/objects/A-1', { key: curl.key });
    expect(seat.body).toMatchObject({ label: 'A-1', status: 'booked' });
    await dev.stop();

    // A second start on the same metadata keeps the sample as it was (the booking too).
    const again = await startDev({ MONGODB_DB: database, REDIS_KEY_PREFIX: `${database}:` });
    expect(again.banner).toContain(line!.trim().replace(dev.url, again.url));
    const still = await call(again.url, 'GET', '/events/sample-event/objects/A-1', { key: curl.key });
    expect(still.body).toMatchObject({ status: 'booked' });
    const charts = await call(again.url, 'GET', '/charts', { key: curl.key });
    expect((charts.body as { items: unknown[] }).items).toHaveLength(1);
    await again.stop();
  });

  it('DEV_SAMPLE=off creates neither chart nor event and prints no booking command', async () => {
    const dev = await startDev({ DEV_SAMPLE: 'off' });
    expect(dev.banner).not.toContain('sample-event');
    const key = /Default workspace secret key\s+(\S+)/.exec(dev.banner)![1]!;
    const charts = await call(dev.url, 'GET', '/charts', { key });
    expect(charts.status).toBe(200);
    expect((charts.body as { items: unknown[] }).items).toEqual([]);
    await dev.stop();
  });

  it('DEV_SAMPLE with another value stops start-up naming the variable', async () => {
    await expect(startDev({ DEV_SAMPLE: 'maybe' })).rejects.toThrow(/configuration error: DEV_SAMPLE: expected on or off, got "maybe"/);
  });

  it("runs the README's first booking as written: upload the sample chart, an event, book two seats, see them, release", async () => {
    const dev = await startDev({});
    const key = /Default workspace secret key\s+(\S+)/.exec(dev.banner)![1]!;
    const readme = readFileSync('README.md', 'utf8');
    const block = /## A first booking[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const lines = block
      .split('\n')
      .filter((line) => line.startsWith('curl '))
      .map((line) => line.replaceAll('$KEY', key).replaceAll('localhost:9001', dev.url.replace('http://', '')));
    expect(lines).toHaveLength(5);
    const [chart, event, book, see, release] = lines as [string, string, string, string, string];

    expect((await runCurl(chart)).status).toBe(201);
    expect((await runCurl(event)).status).toBe(200);
    expect((await runCurl(book)).status).toBe(204);
    // As the README says: booking them again is refused, whole.
    const again = await runCurl(book);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { errors: { code: string }[] }).errors.map((error) => error.code)).toContain('OBJECT_NOT_FREE');
    const seen = (await (await runCurl(see)).json()) as Record<string, { status: string }>;
    expect(Object.keys(seen).sort()).toEqual(['A-1', 'A-2']);
    expect(Object.values(seen).map((object) => object.status)).toEqual(['booked', 'booked']);
    expect((await runCurl(release)).status).toBe(204);
    const after = (await (await runCurl(see)).json()) as Record<string, { status: string }>;
    expect(Object.values(after).map((object) => object.status)).toEqual(['free', 'free']);
    await dev.stop();
  });
});
