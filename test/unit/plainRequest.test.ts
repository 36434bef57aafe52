import { describe, expect, it } from 'vitest';
import type { PlannedChange, PlannedObject, StatusOperation } from '../../src/domain/statusChangeRequest.js';
import type { ChartObject } from '../../src/domain/objectIndex.js';
import { PlainRequest } from '../../src/inventory/plainRequest.js';
import { statusCall } from '../../src/inventory/statusChanges.js';
import { StatusWire } from '../../src/inventory/statusWire.js';

// The direct way's request, written into bytes, must be the JSON statusCall makes for the same
// change: the status function reads both.

const event = { _id: 41, tag: '41', usedBuckets: 4 };
const owner = { _id: 7, companyId: 3 };
const seat = (label: string): PlannedObject => ({ label, object: { objectType: 'seat' } as unknown as ChartObject, quantity: 0 });
const area = (label: string, quantity: number, capacity?: number): PlannedObject => ({
  label,
  object: { objectType: 'generalAdmission', capacity } as unknown as ChartObject,
  quantity,
});
const change = (op: StatusOperation, status: string, objects: PlannedObject[], holdToken?: string): PlannedChange => ({
  op,
  status,
  objects,
  parameters: holdToken === undefined ? {} : { holdToken },
});

/** statusCall's JSON and the plain request's, both parsed. */
function both(planned: PlannedChange, ip: string | undefined, tokenExpiry: number | undefined) {
  const { request } = statusCall([{ event, change: planned, tokenExpiry }], false, { type: 'API_CALL', ip }, owner, false);
  const usage = planned.op === 'release' ? undefined : `${event.usedBuckets}:${owner._id}:${owner.companyId}`;
  return { general: JSON.parse(request) as unknown, plain: JSON.parse(new PlainRequest(planned, tokenExpiry, ip, usage).toString()) as unknown };
}

describe('PlainRequest', () => {
  const cases: [string, PlannedChange, string | undefined, number?][] = [
    ['a booking of two seats', change('book', 'booked', [seat('A-1'), seat('A-2')]), '10.0.0.1'],
    ['labels that need escaping or are not ASCII', change('book', 'booked', [seat('Ä-1 "x"'), seat('B\\2'), seat('tab\there'), seat('✓-3'), seat('😀')]), '::1'],
    ['a GA area with its places and capacity', change('book', 'booked', [area('GA1', 3, 100), seat('A-1')]), '10.0.0.2'],
    ['a GA area with no capacity', change('status', 'sold out "soon"', [area('GA2', 2)]), '10.0.0.3'],
    ['a release, which uses nothing', change('release', 'free', [seat('A-1')]), '10.0.0.4'],
    ['no address', change('book', 'booked', [seat('A-1')]), undefined],
    ['a hold with its token and expiry', change('hold', 'reservedByToken', [seat('A-1'), area('GA1', 2, 10)], 'tok-EN_1'), '10.0.0.5', 1_790_000_000_123],
    ['a booking with a token that needs escaping', change('book', 'booked', [seat('A-1')], 'ä"\\t'), '10.0.0.6'],
    ['a release with a token', change('release', 'free', [seat('A-1')], 'tok'), '10.0.0.7'],
  ];
  for (const [name, planned, ip, tokenExpiry] of cases) {
    it(`writes what statusCall makes: ${name}`, () => {
      const { general, plain } = both(planned, ip, tokenExpiry);
      expect(plain).toEqual(general);
    });
  }

  it('fits in the bytes it says it needs at most, and the wire frames it as its text', () => {
    const wire = new StatusWire('f', '');
    for (const [, planned, ip, tokenExpiry] of cases) {
      const request = new PlainRequest(planned, tokenExpiry, ip, '1:2:3');
      const text = request.toString();
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(request.bytesAtMost());
      // Written through the wire (its length header made after it), the same as its text sent as a string.
      expect(wire.command(['k'], 'r', '', [1, request, 2], { answer: () => undefined, fail: () => undefined }).wire).toBe(
        wire.command(['k'], 'r', '', [1, text, 2], { answer: () => undefined, fail: () => undefined }).wire,
      );
    }
  });
});
