import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { action, objectInfos } from '../support/events.js';
import { call, expectError } from '../support/harness.js';
import { useEventPerTest } from '../support/eventPerTest.js';

// Input built to break the server, not just wrong input: strings the Lua JSON decoder
// cannot take, extra data nested past any sane depth, bodies that are not UTF-8. Each gets
// a 400 with the error body and changes nothing (docs/api.md, "Keys, errors, general rules").

let event: string;
const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key), 'shared');

async function expectUntouched(): Promise<void> {
  const infos = await objectInfos(ctx.api, event, ['A-1', 'GA1']);
  expect(infos['A-1']).toMatchObject({ status: 'free' });
  expect(infos['A-1']!.extraData).toBeUndefined();
  expect(infos.GA1).toMatchObject({ numBooked: 0, numHeld: 0 });
}

/** JSON text with a lone UTF-16 surrogate, as a client can send it (JSON.stringify escapes it). */
const LONE = '\ud800';

describe('a lone UTF-16 surrogate in a string that reaches the status script', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['orderId', { objects: ['A-1'], orderId: `o${LONE}` }, 'INVALID_ORDER_ID'],
    ['holdToken', { objects: ['A-1'], holdToken: `t${LONE}` }, 'HOLD_TOKEN_NOT_FOUND'],
    ['ticketType', { objects: [{ objectId: 'A-1', ticketType: `adult${LONE}` }] }, 'INVALID_TICKET_TYPE'],
    ['a channel key', { objects: ['A-1'], channelKeys: [`ch${LONE}`] }, 'INVALID_CHANNEL_KEY'],
    ['a previous status', { objects: ['A-1'], allowedPreviousStatuses: [`free${LONE}`] }, 'INVALID_STATUS'],
  ];
  for (const [what, body, code] of cases) {
    it(`in ${what}: 400 ${code}, nothing booked`, async () => {
      const response = await action(ctx.api, event, 'book', body);
      expectError(response, 400, code);
      await expectUntouched();
    });
  }

  it('in a custom status: 400 INVALID_STATUS', async () => {
    const response = await action(ctx.api, event, 'change-object-status', { objects: ['A-1'], status: `sold${LONE}` });
    expectError(response, 400, 'INVALID_STATUS');
    await expectUntouched();
  });

  it('in a GA ticket type of a hold: 400, nothing held', async () => {
    const token = (await ctx.api.post('/hold-tokens', {})).body.holdToken as string;
    const response = await action(ctx.api, event, 'hold', { objects: [{ objectId: 'GA1', quantity: 2, ticketType: LONE }], holdToken: token });
    expectError(response, 400, 'INVALID_TICKET_TYPE');
    await expectUntouched();
  });
});

describe('extra data nested too deep', () => {
  const nested = (depth: number) => {
    let value: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < depth; i++) value = { next: value };
    return value;
  };

  // Written as text: JSON.stringify itself overflows the stack on such a value.
  const deepText = (depth: number) => `${'{"next":'.repeat(depth)}{"leaf":true}${'}'.repeat(depth)}`;
  const post = (path: string, raw: string) =>
    call(ctx.server.url, 'POST', path, { key: ctx.company.workspace.secretKey, raw, headers: { 'content-type': 'application/json' } });

  it('10,000 levels on a booking: 400 INVALID_EXTRA_DATA, nothing booked', async () => {
    const response = await post(`/events/${event}/actions/book`, `{"objects": [{"objectId": "A-1", "extraData": ${deepText(10_000)}}]}`);
    expectError(response, 400, 'INVALID_EXTRA_DATA');
    await expectUntouched();
  });

  it('10,000 levels on update-extra-data: 400 INVALID_EXTRA_DATA', async () => {
    const response = await post(`/events/${event}/objects/A-1/actions/update-extra-data`, `{"extraData": ${deepText(10_000)}}`);
    expectError(response, 400, 'INVALID_EXTRA_DATA');
    await expectUntouched();
  });

  it('32 levels are accepted, 33 are not', async () => {
    // nested(n) has n + 1 levels of objects.
    expect((await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-1', extraData: nested(31) }] })).status).toBe(204);
    const response = await action(ctx.api, event, 'book', { objects: [{ objectId: 'A-2', extraData: nested(32) }] });
    expectError(response, 400, 'INVALID_EXTRA_DATA');
  });
});

describe('a body that is not UTF-8', () => {
  it('is refused with 400, not decoded with replacement characters', async () => {
    const body = Buffer.concat([Buffer.from('{"objects": ["A-1"], "orderId": "o'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const response = await call(ctx.server.url, 'POST', `/events/${event}/actions/book`, {
      key: ctx.company.workspace.secretKey,
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    expectError(response, 400, 'GENERAL_ERROR');
    expect(response.body.errors[0].message).toMatch(/UTF-8/);
    await expectUntouched();
  });
});
