import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChartObject } from '../../src/domain/objectIndex.js';
import type { PlannedChange, PlannedObject, StatusOperation } from '../../src/domain/statusChangeRequest.js';
import type { AtMostOnceCalls } from '../../src/inventory/atMostOnce.js';
import type { EventRef } from '../../src/inventory/eventKeys.js';
import { applyStatusChanges } from '../../src/inventory/statusChanges.js';
import { directCall, eventInventory, outcome, type StatusCalls, statusCallsOn, takeGeneralWay, withNames } from '../support/statusCalls.js';

// A plain call sends its change as positional arguments (src/inventory/plainRequest.ts,
// lua/includes/plainRequest.lua) where every other call sends JSON (statusCall). Both must ask
// for the same change: here each step runs on twin events, one through the positional
// arguments and one through the JSON, and the two must end with the same answers, records,
// holds and history, both where the plain way writes the change and where the general way
// does (an event with a sale config).

const OWNER = { _id: 7, companyId: 3 };
let on: StatusCalls;
let redis: Redis;
let calls: AtMostOnceCalls;
let nextEvent = 1;

beforeAll(() => {
  on = statusCallsOn(inject('redisUrl'), `plainRequest-${process.pid}-${Date.now()}:`);
  ({ redis, calls } = on);
});
afterAll(() => on?.close());

const seat = (label: string): PlannedObject => ({ label, object: { objectType: 'seat' } as unknown as ChartObject, quantity: 0 });
const area = (label: string, quantity: number, capacity?: number): PlannedObject => ({
  label,
  object: { objectType: 'generalAdmission', capacity } as unknown as ChartObject,
  quantity,
});
const planned = (op: StatusOperation, status: string, objects: PlannedObject[], holdToken?: string): PlannedChange => ({
  op,
  status,
  objects,
  parameters: holdToken === undefined ? {} : { holdToken },
});

type TestEvent = EventRef & { tableBookingConfig: { mode: 'INHERIT' } };
async function newEvent(general: boolean): Promise<TestEvent> {
  const id = nextEvent++;
  const event: TestEvent = { _id: id, tag: `pr${id}`, usedBuckets: 4, tableBookingConfig: { mode: 'INHERIT' } };
  // A sale config field for an object no step names: no rule changes, every call goes the general way.
  if (general) await takeGeneralWay(redis, event);
  return event;
}

type Step = { change: PlannedChange; ip?: string; tokenExpiry?: number };

const positional = (event: TestEvent, { change, ip, tokenExpiry }: Step, now: number) => outcome(directCall(calls, { event, change, tokenExpiry }, now, ip, OWNER));

const json = (event: TestEvent, { change, ip, tokenExpiry }: Step, now: number) =>
  outcome(applyStatusChanges(calls, [{ event, change, tokenExpiry }], now, false, { type: 'API_CALL', ip }, OWNER));

const state = (event: EventRef) => eventInventory(redis, event);
const withoutEvent = (answer: unknown, event: EventRef) => withNames(answer, [['the event', event]]);

describe('a plain call in positional arguments (lua/includes/plainRequest.lua)', () => {
  const expiry = Date.now() + 600_000;
  const steps: Step[] = [
    { change: planned('book', 'booked', [seat('A-1'), seat('A-2')]), ip: '10.0.0.1' },
    { change: planned('book', 'booked', [seat('Ä-1 "x"'), seat('B\\2'), seat('tab\there'), seat('✓-3'), seat('😀')]), ip: '::1' },
    { change: planned('book', 'booked', [area('GA1', 3, 100), seat('A-3')]), ip: '10.0.0.2' },
    { change: planned('status', 'sold out "soon"', [area('GA2', 2, 50)]), ip: '10.0.0.3' },
    // Capacities: 90 more places fit GA1's 100, 49 more do not fit GA2's 50.
    { change: planned('book', 'booked', [area('GA1', 90, 100)]), ip: '10.0.0.3' },
    { change: planned('book', 'booked', [area('GA2', 49, 50)]), ip: '10.0.0.3' },
    { change: planned('release', 'free', [seat('A-1')]), ip: '10.0.0.4' },
    { change: planned('book', 'booked', [seat('A-4')]) },
    { change: planned('hold', 'reservedByToken', [seat('A-5'), area('GA1', 2, 100)], 'tok-EN_1'), ip: '10.0.0.5', tokenExpiry: expiry },
    // Booking what the token holds, with a token that needs escaping in JSON (refused: it holds nothing).
    { change: planned('book', 'booked', [seat('A-5')], 'ä"\\t'), ip: '10.0.0.6' },
    { change: planned('book', 'booked', [seat('A-5')], 'tok-EN_1'), ip: '10.0.0.6' },
    { change: planned('release', 'free', [seat('A-5')], 'tok'), ip: '10.0.0.7' },
    // An empty token is a token, not none (the server finds no such token before it calls).
    { change: planned('hold', 'reservedByToken', [seat('A-6')], ''), ip: '10.0.0.8', tokenExpiry: expiry },
    { change: planned('release', 'free', [seat('A-6')], ''), ip: '10.0.0.8' },
    // A refusal: booked already.
    { change: planned('book', 'booked', [seat('A-2'), seat('A-7')]), ip: '10.0.0.9' },
  ];

  for (const general of [false, true]) {
    it(`asks for what the JSON asks for, step by step (${general ? 'the general way' : 'plain where it can'})`, async () => {
      const viaArgs = await newEvent(general);
      const viaJson = await newEvent(general);
      const now = Date.now();
      const refused: number[] = [];
      for (const [i, step] of steps.entries()) {
        const argsAnswer = await positional(viaArgs, step, now + i);
        if ((argsAnswer as { refused?: unknown }).refused) refused.push(i + 1);
        const jsonAnswer = await json(viaJson, step, now + i);
        expect(withoutEvent(argsAnswer, viaArgs), `step ${i + 1}'s answer`).toEqual(withoutEvent(jsonAnswer, viaJson));
        expect(await state(viaArgs), `step ${i + 1}'s state`).toEqual(await state(viaJson));
      }
      // Not vacuous: the steps did what they say.
      const { records, history, gaHolds } = await state(viaArgs);
      expect(records['😀']).toBe('booked');
      expect(refused).toEqual([6, 10, 12, 14, 15]);
      expect(Object.keys(gaHolds)).not.toHaveLength(0);
      expect(history.some((change) => change.c.includes('Ä-1 "x"') && change.c.includes('::1'))).toBe(true);
      expect(history.some((change) => change.c.includes('sold out "soon"'))).toBe(true);
    });
  }
});
