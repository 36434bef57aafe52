import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Lane } from '../../src/http/route.js';
import { RouteTable } from '../../src/http/routeTable.js';
import { generatedDrawing, rowLabel } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, eventPath } from '../support/events.js';
import { basic, eventually, expectError, useServerWithCompany, type Api, type CompanyClients, type Response, type ServerWithCompany } from '../support/harness.js';

// Concurrency limits per company (docs/operations.md, "Concurrency limits") on real servers, Redis and
// MongoDB: past its lane's limit a company's request is answered 429 RATE_LIMIT_EXCEEDED with
// Retry-After and changes nothing, other companies and the other lane are not affected, a
// place comes back when its request is done (aborted ones included), and without the
// variables nothing is refused.

/** 10 rows (A-J) x 20 seats: one distinct seat per booking of a burst. */
const ROWS = 10;
const SEATS_PER_ROW = 20;
const SEATS = Array.from({ length: ROWS * SEATS_PER_ROW }, (_, i) => `${rowLabel(Math.floor(i / SEATS_PER_ROW))}-${(i % SEATS_PER_ROW) + 1}`);

async function companyId(api: Api): Promise<number> {
  const me = await api.get('/accounts/me');
  expect(me.status, me.text).toBe(200);
  return me.body.company.id as number;
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: any;
}

/**
 * Sends every request at once, each on a keep-alive connection of its own opened beforehand
 * (by a round of /health calls), so they reach the server together rather than as their
 * connections happen to open.
 */
async function burst(url: string, requests: { path: string; body: unknown; key?: string }[]): Promise<Answer[]> {
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: requests.length });
  const send = (method: string, path: string, body?: unknown, key?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = {};
      if (payload !== undefined) headers['content-type'] = 'application/json';
      if (key !== undefined) headers.authorization = basic(key);
      const req = httpRequest({ agent, hostname, port, method, path, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string | undefined, body: text === '' ? undefined : JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(payload);
    });
  try {
    const warm = await Promise.all(requests.map(() => send('GET', '/health')));
    expect(warm.every((answer) => answer.status === 200)).toBe(true);
    return await Promise.all(requests.map((r) => send('POST', r.path, r.body, r.key)));
  } finally {
    agent.destroy();
  }
}

/** The event's booked labels, from its report. */
async function bookedLabels(api: Api, eventKey: string): Promise<string[]> {
  const report = await api.get(`/reports/events/${encodeURIComponent(eventKey)}/byStatus/booked`);
  expect(report.status, report.text).toBe(200);
  return (report.body.booked as { label: string }[]).map((o) => o.label).sort();
}

/**
 * 200 bookings of one distinct seat each, all at once: every answer is 204 or 429, and the
 * event's booked seats are exactly those answered 204.
 */
async function bookingBurst(ctx: ServerWithCompany, legacy = false): Promise<Answer[]> {
  const chart = await uploadDrawing(ctx.api, generatedDrawing({ sections: 0, rowsPerSection: ROWS, seatsPerRow: SEATS_PER_ROW }));
  const eventKey = await createEvent(ctx.api, chart.key);
  const secretKey = ctx.company.workspace.secretKey;
  const requests = SEATS.map((seat) =>
    legacy
      ? { path: '/api/book', body: { secretKey, eventKey, objects: [seat] } }
      : { path: eventPath(eventKey, '/actions/book'), body: { objects: [seat] }, key: secretKey },
  );
  const answers = await burst(ctx.server.url, requests);
  for (const answer of answers) expect([204, 429], JSON.stringify(answer.body)).toContain(answer.status);
  const answeredBooked = SEATS.filter((_, i) => answers[i]!.status === 204).sort();
  expect(await bookedLabels(ctx.api, eventKey)).toEqual(answeredBooked);
  return answers;
}

function expectRefused(answer: Answer | Response): void {
  const retryAfter = 'retryAfter' in answer ? answer.retryAfter : answer.headers.get('retry-after');
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect(answer.body.errors).toEqual([{ code: 'RATE_LIMIT_EXCEEDED', message: 'Rate limit exceeded' }]);
  expect(answer.body.messages).toEqual(['Rate limit exceeded']);
  expect(retryAfter).toBe('1');
}

describe('without limits (the default)', () => {
  const ctx = useServerWithCompany();

  it('refuses nothing under the burst of bookings the limited server refuses', async () => {
    const answers = await bookingBurst(ctx);
    expect(answers.filter((answer) => answer.status === 204)).toHaveLength(SEATS.length);
  });

  it("publishes each route's lane in the API description, as the sections of docs/api.md mark them", async () => {
    const spec = (await ctx.api.get('/openapi.json')).body as { paths: Record<string, Record<string, { 'x-lane': Lane; responses: Record<string, unknown> }>> };
    const readme = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const marked: { method: string; path: string; lane: Lane }[] = [];
    let lane: Lane | undefined;
    for (const line of readme.split('\n')) {
      if (line.startsWith('#')) lane = /not priority lane\)/.test(line) ? 'regular' : /priority lane\)/.test(line) ? 'priority' : undefined;
      const route = /^\| `(GET|POST|DELETE) (\/[^`\s]*)`/.exec(line);
      if (lane && route) marked.push({ method: route[1]!.toLowerCase(), path: route[2]!, lane });
    }
    expect(marked.filter((route) => route.lane === 'priority').length).toBeGreaterThanOrEqual(10);
    expect(marked.filter((route) => route.lane === 'regular').length).toBeGreaterThanOrEqual(40);
    // docs/api.md names paths as they are called (`/charts/{key}/version/published`); the
    // server routes them by pattern (`/charts/:key/version/:version`).
    const table = new RouteTable<string>();
    for (const [path, operations] of Object.entries(spec.paths)) {
      for (const method of Object.keys(operations)) table.add(method.toUpperCase(), path.replace(/\{([A-Za-z]+)\}/g, ':$1'), path);
    }
    const markedPriority = new Set<string>();
    for (const route of marked) {
      const match = table.match(route.method.toUpperCase(), route.path.replace(/\{[A-Za-z]+\}/g, 'x'));
      expect(match.kind, `${route.method} ${route.path}`).toBe('found');
      if (match.kind !== 'found') continue;
      expect(spec.paths[match.value]![route.method]!['x-lane'], `${route.method} ${route.path}`).toBe(route.lane);
      if (route.lane === 'priority') markedPriority.add(`${route.method} ${match.value}`);
    }
    // And the other way round: a priority route is one docs/api.md marks (or a legacy call standing for one).
    for (const [path, operations] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation['x-lane'] === 'priority' && !path.startsWith('/api/')) expect(markedPriority, `${method} ${path}`).toContain(`${method} ${path}`);
      }
    }
    expect(spec.paths['/events/{key}/actions/book']!.post!.responses['429']).toBeDefined();
    expect(spec.paths['/api/book']!.post!['x-lane']).toBe('priority');
    expect(spec.paths['/api/changeExtraData']!.post!['x-lane']).toBe('regular');
  });
});

describe('priority lane limited to 5 per company', () => {
  const ctx = useServerWithCompany({ PRIORITY_LANE_CONCURRENCY_LIMIT: '5' });

  it('200 bookings at once: some refused with 429, the rest booked, exactly the seats answered 204', async () => {
    const answers = await bookingBurst(ctx);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    // As many as the limit allows were let in: those sent first, before any was answered.
    expect(SEATS.length - refused.length).toBeGreaterThanOrEqual(5);
    for (const answer of refused) expectRefused(answer);
    expect(ctx.server.app.parts.concurrency.inFlight(await companyId(ctx.admin), 'priority')).toBe(0);
  });

  it('counts the legacy book call in the same lane', async () => {
    const answers = await bookingBurst(ctx, true);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expectRefused(answer);
  });
});

describe('regular lane limited to 3 per company', () => {
  const ctx = useServerWithCompany({ REGULAR_LANE_CONCURRENCY_LIMIT: '3' });
  let chartKey: string;
  let eventKey: string;
  let id: number;
  let other: CompanyClients;
  const inFlight = () => ctx.server.app.parts.concurrency.inFlight(id, 'regular');

  /**
   * Detailed reports of a 30,000-seat event: each takes hundreds of milliseconds, and reports
   * run one at a time per process (docs/reports.md, "Big events"), so three of different types
   * stay in flight for about a second together.
   */
  const SLOW_REPORTS = ['byStatus', 'byCategoryLabel', 'bySection'];
  const reportPath = (type: string) => `/reports/events/${encodeURIComponent(eventKey)}/${type}`;
  /** Until the three slow reports are all counted. */
  const whileThreeInFlight = () => eventually(async () => inFlight() === 3, 10_000, 1);

  beforeAll(async () => {
    chartKey = (await uploadDrawing(ctx.api, generatedDrawing({ sections: 3, rowsPerSection: 100, seatsPerRow: 100 }))).key;
    eventKey = await createEvent(ctx.api, chartKey);
    id = await companyId(ctx.admin);
    other = await ctx.freshCompany();
  });

  it('refuses a fourth request while three slow ones are in flight, changing nothing; another company and the priority lane are served; then the company is again', async () => {
    const reports = SLOW_REPORTS.map((type) => ctx.api.get(reportPath(type)));
    await whileThreeInFlight();

    const refused = await ctx.api.post('/events', { chartKey, eventKey: 'refused-event' });
    expectError(refused, 429, 'RATE_LIMIT_EXCEEDED');
    expectRefused(refused);
    // Counted per company, whichever of its keys calls.
    expectRefused(await ctx.admin.get('/workspaces'));
    // Another company's regular lane, and this company's priority lane, are their own.
    expect((await other.api.get('/events')).status).toBe(200);
    expect((await ctx.api.post('/hold-tokens')).status).toBe(200);
    expect(inFlight(), 'the reports were still in flight during the checks above').toBe(3);

    for (const report of await Promise.all(reports)) expect(report.status, report.text).toBe(200);
    expect(inFlight()).toBe(0);
    expectError(await ctx.api.get(eventPath('refused-event')), 404, 'EVENT_NOT_FOUND');
    const created = await ctx.api.post('/events', { chartKey, eventKey: 'accepted-event' });
    expect(created.status, created.text).toBe(200);
    // An answer gzipped after its handler returned (a drawing of 30,000 seats) gives its place back too.
    const drawing = await ctx.api.get(`/charts/${chartKey}/version/published`, { headers: { 'accept-encoding': 'gzip' } });
    expect(drawing.status).toBe(200);
    expect(drawing.headers.get('content-encoding')).toBe('gzip');
    expect(inFlight()).toBe(0);
  });

  it('an aborted request keeps its place while the server still works on it, and gives it back when that work ends', async () => {
    const controller = new AbortController();
    const reports = SLOW_REPORTS.map((type) =>
      fetch(ctx.server.url + reportPath(type), { headers: { authorization: basic(ctx.company.workspace.secretKey) }, signal: controller.signal }).catch((error: unknown) => error),
    );
    await whileThreeInFlight();
    controller.abort();
    for (const outcome of await Promise.all(reports)) expect((outcome as Error).name).toBe('AbortError');
    // The server saw the clients go (it counts no request in flight) ...
    await eventually(async () => ctx.server.app.parts.status.inFlight === 0, 5_000, 1);
    // ... while the reports' work goes on, and holds the company's places.
    expect(inFlight()).toBe(3);
    expectRefused(await ctx.api.get('/events'));

    await eventually(async () => inFlight() === 0, 20_000);
    expect((await ctx.api.get('/events')).status).toBe(200);
  });
});
