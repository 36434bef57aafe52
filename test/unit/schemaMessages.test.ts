import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/http/route.js';
import { schemaMessages } from '../../src/http/schemaMessages.js';

// Schema violations worded as seats.io words them (docs/seatsio-behaviour.md, "Errors").

const schema = compile(
  Type.Object(
    {
      name: Type.String({ maxLength: 3 }),
      events: Type.Array(Type.String(), { minItems: 1, maxItems: 2 }),
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
      note: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      mode: Type.Optional(Type.Union([Type.Literal('A'), Type.Literal('B')])),
      places: Type.Optional(Type.Record(Type.String(), Type.Integer(), { minProperties: 1 })),
      key: Type.Optional(Type.String({ pattern: '^[a-z]+$' })),
    },
    { additionalProperties: false },
  ),
);
const messages = (body: unknown) => schemaMessages(schema.errors(body), body);

describe('schemaMessages', () => {
  it.each([
    [{ name: 'a', events: [] }, '#/events: expected minimum item count: 1, found: 0'],
    [{ name: 'a', events: ['x', 'y', 'z'] }, '#/events: expected maximum item count: 2, found: 3'],
    [{ name: 5, events: ['x'] }, '#/name: expected type: String, found: Integer'],
    [{ name: 'abcd', events: ['x'] }, '#/name: expected maxLength: 3, actual: 4'],
    [{ name: 'a', events: [{}] }, '#/events/0: expected type: String, found: JSONObject'],
    [{ name: 'a', events: ['x'], count: 0 }, '#/count: 0 is not greater or equal to 1'],
    [{ name: 'a', events: ['x'], count: 11 }, '#/count: 11 is not less or equal to 10'],
    [{ name: 'a', events: ['x'], count: 1.5 }, '#/count: expected type: Integer, found: BigDecimal'],
    [{ name: 'a', events: ['x'], note: 5 }, '#/note: expected type: one of [String, Null], found: Integer'],
    [{ name: 'a', events: ['x'], mode: 'C' }, '#/mode: C is not a valid enum value'],
    [{ name: 'a', events: ['x'], places: {} }, '#/places: minimum size: [1], found: [0]'],
    [{ name: 'a', events: ['x'], key: 'A1' }, '#/key: string [A1] does not match pattern ^[a-z]+$'],
    [{ name: 'a', events: ['x'], extra: true }, '#: extraneous key [extra] is not permitted'],
    [[], '#: expected type: JSONObject, found: JSONArray'],
  ])('%j → %s', (body, expected) => {
    expect(messages(body)).toEqual([expected]);
  });

  it('names every missing key, one message each', () => {
    expect(messages({})).toEqual(['#: required key [name] not found', '#: required key [events] not found']);
  });
});
