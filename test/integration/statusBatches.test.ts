import http from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildObjectIndex } from '../../src/domain/objectIndex.js';
import { planChange, type StatusOperation } from '../../src/domain/statusChangeRequest.js';
import { eventKeys, keptEventKeys, type EventRef } from '../../src/inventory/eventKeys.js';
import { APPLIED, type StatusReply } from '../../src/inventory/scripts.js';
import { applyStatusChanges } from '../../src/inventory/statusChanges.js';
import { generatedDrawing, rowLabel, rowsWithoutSections } from '../fixtures/drawings.js';
import { seededRandom } from '../../bench/lib/seededRandom.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, objectInfos, type Info } from '../support/events.js';
import { basic, call, useServerWithCompany } from '../support/harness.js';
import { streamChanges } from '../support/historyStream.js';
import { directCall, outcome, statusCallsOn, type StatusCalls } from '../support/statusCalls.js';

// Batched calls (src/inventory/atMostOnce.ts, Batches; lua/change-object-status.lua,
// runBatch): the status changes of one event made in one turn of the event loop go to Redis
// as one call, which applies each request on its own, all or nothing, with its own reply,
// record and error, in the order they came.

const index = buildObjectIndex(rowsWithoutSections);
const OWNER = { _id: 7, companyId: 3 };
let nextEvent = 1;
const newEvent = (): EventRef & { tableBookingConfig: { mode: 'INHERIT' } } => {
  const id = nextEvent++;
  return { _id: id, tag: `batch${id}`, usedBuckets: 4, tableBookingConfig: { mode: 'INHERIT' } };
};

describe('one batch of status requests on one event', () => {
  let status: StatusCalls;
  /** Requests per call sent, in order. */
  const sent: number[] = [];

  beforeAll(() => {
    status = statusCallsOn(inject('redisUrl'), `statusBatches-${process.pid}-${Date.now()}:`);
    status.calls.batches.onSent = (requests) => sent.push(requests);
  });
  afterAll(() => status.close());

  const plain = (event: ReturnType<typeof newEvent>, op: StatusOperation, labels: string[], on = index) =>
    outcome(directCall(status.calls, { event, change: planChange(event, on, op, op === 'release' ? 'free' : 'booked', labels, {}) }, Date.now(), '192.0.2.7', OWNER));

  it('mixes accepted, refused, malformed and past-deadline requests: each answered on its own, in arrival order', async () => {
    const event = newEvent();
    expect(await plain(event, 'book', ['A-3'])).toEqual({ holdings: [] });
    sent.length = 0;
    await status.windowStart();
    // All made in one turn: one call of the batch function.
    const answers = await Promise.all([
      plain(event, 'book', ['A-1', 'A-2']),
      // A-2 taken by the request before it in the same batch: refused, A-4 left free.
      plain(event, 'book', ['A-2', 'A-4']),
      // Booked before the batch.
      plain(event, 'book', ['A-3']),
      // A request text the function cannot read: its error alone.
      outcome(status.calls.changeObjectStatus(event, keptEventKeys(event), Date.now(), '{not json') as Promise<never>),
      plain(event, 'release', ['A-3']),
      // The general way (expand), after plain writes of the batch to the same seat: it reads them.
      outcome(applyStatusChanges(status.calls, [{ event, change: planChange(event, index, 'release', 'free', ['A-2'], {}) }], Date.now(), true, { type: 'API_CALL', ip: '192.0.2.7' }, OWNER)),
      plain(event, 'book', ['A-4']),
      // The plain way again, after the general way's write.
      plain(event, 'book', ['A-2']),
    ]);
    expect(sent).toEqual([8]);
    expect(answers[0]).toEqual({ holdings: [] });
    expect(answers[1]).toEqual({ refused: ['OBJECT_NOT_FREE'] });
    expect(answers[2]).toEqual({ refused: ['OBJECT_NOT_FREE'] });
    expect(String((answers[3] as { refused: string }).refused)).toMatch(/json|Expected/i);
    expect(answers[4]).toEqual({ holdings: [] });
    expect(answers[5]).toEqual({ objects: [[{ record: '', extra: '' }]], holdings: [] });
    expect(answers[6]).toEqual({ holdings: [] });
    expect(answers[7]).toEqual({ holdings: [] });
    const records = await status.redis.hmget(eventKeys(event).objects, 'A-1', 'A-2', 'A-3', 'A-4');
    expect(records).toEqual(['booked', 'booked', null, 'booked']);
    // The applied requests' changes, each with its own number, in the order they were applied.
    const history = await streamChanges(status.redis, eventKeys(event).history);
    expect(history.map(({ seq, c }) => [seq, c.split('\u001f')[1], c.split('\u001f')[2]])).toEqual([
      [1, 'A-3', 'booked'],
      [2, 'A-1', 'booked'],
      [3, 'A-2', 'booked'],
      [4, 'A-3', 'free'],
      [5, 'A-2', 'free'],
      [6, 'A-4', 'booked'],
      [7, 'A-2', 'booked'],
    ]);
  });

  it('sends a request too large for a batch alone, in its turn, and batches the others around it in arrival order', async () => {
    const event = newEvent();
    sent.length = 0;
    // 4 rows of 30 seats: a booking of 100 seats is over a batch's 64 objects.
    const wide = buildObjectIndex(generatedDrawing({ sections: 0, rowsPerSection: 4, seatsPerRow: 30 }));
    const many = Array.from({ length: 100 }, (_, i) => `${rowLabel(Math.floor(i / 30))}-${(i % 30) + 1}`);
    await status.windowStart();
    const answers = await Promise.all([
      plain(event, 'book', ['D-29', 'D-30'], wide),
      plain(event, 'book', many, wide),
      // Both after the big one, which booked A-1, and the first, which booked D-30.
      plain(event, 'book', ['A-1', 'D-28'], wide),
      plain(event, 'book', ['D-30'], wide),
    ]);
    expect(answers).toEqual([{ holdings: [] }, { holdings: [] }, { refused: ['OBJECT_NOT_FREE'] }, { refused: ['OBJECT_NOT_FREE'] }]);
    expect(sent).toEqual([1, 1, 2]);
    expect(await status.redis.hmget(eventKeys(event).objects, 'A-1', 'D-10', 'D-28', 'D-30')).toEqual(['booked', 'booked', null, 'booked']);
  });

  it('answers a batch sent again (a lost connection) from each request\'s own record: nothing applied twice', async () => {
    const event = newEvent();
    const keys = keptEventKeys(event);
    const recordKey = `inv:{${event.tag}}:requests:test:1`;
    const scripts = status.calls.scripts;
    const now = Date.now();
    const deadline = now + 60_000;
    const book = (labels: string[]) => JSON.stringify({ changes: [{ e: 1, op: 'book', status: 'booked', objects: labels.map((l) => ({ l })) }] });
    const batch = (sentBefore: boolean, past = false) =>
      new Promise<StatusReply[]>((answer, fail) =>
        scripts.sendStatusBatch(
          keys,
          [
            { moreKeys: [], args: scripts.statusCallArgs('r1', now, book(['B-1']), deadline, 60_000, sentBefore) },
            { moreKeys: [], args: scripts.statusCallArgs('r2', now, book(['B-1', 'B-2']), deadline, 60_000, sentBefore) },
            { moreKeys: [], args: scripts.statusCallArgs('r3', now, book(['B-3']), past ? now - 1_000 : deadline, 60_000, sentBefore) },
          ],
          recordKey,
          { answer: answer as (reply: unknown) => void, fail },
        ),
      );
    const first = await batch(false, true);
    expect(first[0]).toBe(APPLIED);
    expect((first[1] as unknown[])[0]).toBe(0);
    // Past its deadline by Redis's clock: not applied, no record.
    expect(first[2]).toEqual([-1]);
    const records = await status.redis.hgetall(recordKey);
    expect(Object.keys(records)).toEqual(['r1']);
    expect(await status.redis.pttl(recordKey)).toBeGreaterThan(50_000);
    // Sent again, as after a lost connection: r1 answers from its record, r2 is checked again
    // (refused leaves no record), r3 now in time.
    const again = await batch(true);
    expect(again[0]).toBe(APPLIED);
    expect((again[1] as unknown[])[0]).toBe(0);
    expect(again[2]).toBe(APPLIED);
    const history = await streamChanges(status.redis, eventKeys(event).history);
    expect(history.map(({ c }) => c.split('\u001f')[1])).toEqual(['B-1', 'B-3']);
  });
});

describe('batches under concurrent HTTP requests', () => {
  const ctx = useServerWithCompany();
  const SHAPE = { rows: 4, seats: 10 };
  let chart: string;

  beforeAll(async () => {
    chart = (await uploadDrawing(ctx.api, generatedDrawing({ sections: 0, rowsPerSection: SHAPE.rows, seatsPerRow: SHAPE.seats }))).key;
  });

  const CONNECTIONS = 100;
  const REQUESTS = 1000;

  /** Requests per status call so far, from /metrics: [calls, requests]. */
  async function callRequests(): Promise<[number, number]> {
    const text = (await call(ctx.server.url, 'GET', '/metrics')).text;
    return [Number(/^status_call_requests_count (\d+)/m.exec(text)![1]), Number(/^status_call_requests_sum (\d+)/m.exec(text)![1])];
  }

  it(`${CONNECTIONS} connections book overlapping seat pairs through batches: every seat has exactly one winner; malformed requests are refused alone`, async () => {
    const event = await createEvent(ctx.api, chart);
    const labels = Array.from({ length: SHAPE.rows * SHAPE.seats }, (_, i) => `${rowLabel(Math.floor(i / SHAPE.seats))}-${(i % SHAPE.seats) + 1}`);
    const next = seededRandom(72);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const url = new URL(ctx.server.url);
    const post = (body: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(
          { agent, host: url.hostname, port: url.port, method: 'POST', path: `/events/${event}/actions/book`, headers: { authorization: basic(ctx.company.workspace.secretKey), 'content-type': 'application/json' } },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode!, text }));
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    const [callsBefore, requestsBefore] = await callRequests();
    const pairs: (string[] | null)[] = Array.from({ length: REQUESTS }, (_, i) => {
      // Every 25th request is malformed: its objects are not a list.
      if (i % 25 === 24) return null;
      const first = Math.floor(next() * labels.length);
      let second = Math.floor(next() * (labels.length - 1));
      if (second >= first) second++;
      return [labels[first]!, labels[second]!];
    });
    const answers = await Promise.all(pairs.map((objects, i) => post(objects ? JSON.stringify({ objects, orderId: `o${i}` }) : JSON.stringify({ objects: 5, orderId: `o${i}` }))));
    agent.destroy();
    const [callsAfter, requestsAfter] = await callRequests();

    const won = new Set<number>();
    answers.forEach((answer, i) => {
      if (pairs[i] === null) {
        expect(answer.status, answer.text).toBe(400);
        expect(JSON.parse(answer.text).errors[0].code).not.toBe('OBJECT_NOT_FREE');
      } else if (answer.status === 204) {
        won.add(i);
      } else {
        expect(answer.status, answer.text).toBe(400);
        expect(JSON.parse(answer.text).errors[0].code).toBe('OBJECT_NOT_FREE');
      }
    });
    const infos: Record<string, Info> = {};
    for (let i = 0; i < labels.length; i += 100) Object.assign(infos, await objectInfos(ctx.api, event, labels.slice(i, i + 100)));
    // Each seat booked belongs to one request that was answered 204 and had it; each request
    // answered 204 has both its seats.
    for (const label of labels) {
      const info = infos[label]!;
      if (info.status === 'free') continue;
      expect(info.status, label).toBe('booked');
      const winner = Number(String(info.orderId).slice(1));
      expect(won.has(winner), label).toBe(true);
      expect(pairs[winner], label).toContain(label);
    }
    for (const i of won) for (const label of pairs[i]!) expect(infos[label]!.orderId, label).toBe(`o${i}`);
    // Some calls carried several requests.
    const calls = callsAfter - callsBefore;
    const requests = requestsAfter - requestsBefore;
    expect(requests).toBe(REQUESTS - REQUESTS / 25);
    expect(calls).toBeLessThan(requests);
  });
});
