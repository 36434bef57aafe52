import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { call, useServerWithCompany } from '../support/harness.js';

// GET /openapi.json is generated from the route table (src/http/openapi.ts): every route is
// in it, it is valid OpenAPI 3.1, and what a route accepts validates against what it publishes.

const ctx = useServerWithCompany();

/** A body each route with a body accepts, by `METHOD path` as registered. */
const SAMPLES: Record<string, unknown> = {
  'POST /accounts/me/settings': { key: 'HOLD_PERIOD_IN_MINUTES', value: 20 },
  'POST /accounts/me/actions/change-hold-period': { holdPeriodInMinutes: 15 },
  'POST /accounts/me/actions/change-password': { password: 'a new password' },
  'POST /workspaces': { name: 'Described' },
  'POST /workspaces/:key': { name: 'Renamed' },
  'POST /workspaces/:key/actions/remove-secret-key': { secretKey: 'some-key' },
  'POST /hold-tokens': { expiresInMinutes: 5 },
  'POST /ticket-buyers': { ids: ['0ef73fd9-693c-5073-98ac-d1dd8cd86536', null] },
  'DELETE /ticket-buyers': { ids: ['0ef73fd9-693c-5073-98ac-d1dd8cd86536'] },
  'POST /hold-tokens/:token': { expiresInMinutes: 5 },
  'POST /system/public/charts/:chartKey': rowsWithoutSections,
  'POST /charts': { name: 'Described chart', categories: [{ key: 1, label: 'One', color: '#000000' }] },
  'POST /charts/:key': { name: 'Renamed chart' },
  'POST /charts/:key/categories': { key: 99, label: 'New', color: '#ff0000', accessible: false },
  'POST /charts/:key/categories/:categoryKey': { label: 'Changed' },
  'POST /events': { chartKey: 'some-chart', eventKey: 'described', name: 'Described event', date: '2026-12-01' },
  'POST /events/actions/create-multiple': { chartKey: 'some-chart', events: [{ eventKey: 'one' }, { name: 'two' }] },
  'POST /events/:key': { name: 'Renamed event', isInThePast: false },
  'POST /events/:key/channels/replace': { channels: [{ key: 'ch1', name: 'Channel 1', color: '#00ff00', index: 1, objects: ['A-1'] }] },
  'POST /events/:key/channels': { key: 'ch2', name: 'Channel 2', areaPlaces: { GA1: 5 } },
  'POST /events/:key/channels/:channelKey': { name: 'Channel 2b' },
  'POST /events/:key/channels/:channelKey/objects': { objects: ['A-2'] },
  'DELETE /events/:key/channels/:channelKey/objects': { objects: ['A-2'] },
  'POST /events/:key/actions/mark-as-for-sale': { objects: ['A-1'], areaPlaces: { GA1: 3 }, categories: [1] },
  'POST /events/:key/actions/mark-as-not-for-sale': { objects: ['A-1'] },
  'POST /events/:key/actions/edit-for-sale-config': { forSale: [{ object: 'A-1' }], notForSale: [{ object: 'GA1', quantity: 2 }] },
  'POST /events/actions/edit-for-sale-config': { events: { 'some-event': { forSale: [{ object: 'A-1' }] } } },
  'POST /events/:key/objects/:label/actions/update-extra-data': { extraData: { note: 'aisle' } },
  'POST /events/:key/actions/update-extra-data': { extraData: { 'A-1': { note: 'aisle' } } },
  'POST /events/:key/actions/book': { objects: ['A-1', { objectId: 'GA1', quantity: 2, ticketType: 'adult' }], orderId: 'o1' },
  'POST /events/:key/actions/hold': { objects: ['A-1'], holdToken: 'token' },
  'POST /events/:key/actions/put-up-for-resale': { objects: ['A-1'], resaleListingId: 'listing' },
  'POST /events/:key/actions/release': { objects: ['A-1'], keepExtraData: true },
  'POST /events/:key/actions/change-object-status': { objects: ['A-1'], status: 'sold-elsewhere', channelKeys: ['NO_CHANNEL'] },
  'POST /events/groups/actions/change-object-status': { events: ['e1', 'e2'], objects: ['A-1'], status: 'booked' },
  'POST /events/actions/change-object-status': { statusChanges: [{ event: 'e1', objects: ['A-1'], status: 'booked', type: 'CHANGE_STATUS_TO' }] },
  'POST /events/:key/actions/override-season-status': { objects: ['A-1'] },
  'POST /events/:key/actions/use-season-status': { objects: ['A-1'] },
  'POST /seasons': { chartKey: 'chart', key: 'season', numberOfEvents: 2, forSalePropagated: true },
  'POST /seasons/:key/actions/create-events': { eventKeys: ['e3', 'e4'] },
  'POST /seasons/:key/partial-seasons': { key: 'first-half', name: 'First half', eventKeys: ['e1'] },
  'POST /seasons/:key/partial-seasons/:partial/actions/add-events': { eventKeys: ['e2'] },
  'POST /api/book': { secretKey: 'some-key', eventKey: 'e1', bestAvailable: { number: 2, categories: ['Cat1'], extraData: [{}, {}] }, indicateWhetherObjectsAreNextToEachOther: true },
  'POST /api/release': { secretKey: 'some-key', eventKey: 'e1', objects: ['A-1'], reservationToken: 'token' },
  'POST /api/changeStatus': { secretKey: 'some-key', eventKeys: ['e1', 'e2'], objects: ['A-1', { objectId: 'GA1', quantity: 2, extraData: { a: 1 } }], status: 'sold' },
  'POST /api/changeExtraData': { secretKey: 'some-key', eventKey: 'e1', objectId: 'A-1', extraData: { note: 'aisle' } },
  'POST /api/reserve': { publicKey: 'some-key', event: 'e1', objects: ['A-1'], reservationToken: 'token' },
  'POST /api/reservationToken/:publicKey': { expiresInMinutes: 15 },
};

/** What a route answers when the body shape itself was refused. */
function refusedForItsShape(response: { status: number; text: string }): boolean {
  if (response.status === 415 || response.status === 413) return true;
  if (response.status !== 400) return false;
  const message: string = JSON.parse(response.text).errors?.[0]?.message ?? '';
  return message.startsWith('#') || message.startsWith('Malformed JSON');
}

describe('GET /openapi.json', () => {
  const document = async () => {
    const response = await call(ctx.server.url, 'GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    return response.body as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: object }> } }>> };
  };
  const documented = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

  it('describes every registered route, and nothing else', async () => {
    const doc = await document();
    const registered = ctx.server.app.parts.routes.map((route) => `${route.method.toLowerCase()} ${documented(route.path)}`).sort();
    const described = Object.entries(doc.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`))
      .sort();
    expect(described).toEqual(registered);
    expect(described).toContain('get /openapi.json');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('every route with a body has a sample, which the route accepts and the published schema allows', async () => {
    const doc = await document();
    const ajv = new Ajv2020({ strict: false });
    const withBody = ctx.server.app.parts.routes.filter((route) => route.bodySchema ?? route.bodyDoc);
    expect(withBody.map((route) => `${route.method} ${route.path}`).sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const route of withBody) {
      const name = `${route.method} ${route.path}`;
      const sample = SAMPLES[name];
      const schema = doc.paths[documented(route.path)]![route.method.toLowerCase()]!.requestBody!.content['application/json']!.schema;
      expect(ajv.validate(schema, sample), `${name}: ${ajv.errorsText()}`).toBe(true);
      if (route.body) expect(route.body.check(sample), `${name}: its own validator`).toBe(true);
      // Sent to the server (path parameters filled with made-up keys): whatever it answers
      // (404 for the made-up keys, mostly), it is not a refusal of the body's shape.
      const path = route.path.replace(/:([A-Za-z]+)/g, 'described-$1');
      const key = route.auth === 'company' ? ctx.company.adminKey : ctx.company.workspace.secretKey;
      const response = await call(ctx.server.url, route.method, path, { key, body: sample });
      expect(refusedForItsShape(response), `${name} answered ${response.status} ${response.text}`).toBe(false);
    }
  });

  it('a body the route refuses is one the published schema refuses too', async () => {
    const doc = await document();
    const ajv = new Ajv2020({ strict: false });
    const schema = doc.paths['/events/{key}/actions/book']!.post!.requestBody!.content['application/json']!.schema;
    expect(ajv.validate(schema, { objects: 'A-1' })).toBe(false);
    const response = await ctx.api.post('/events/any/actions/book', { objects: 'A-1' });
    expect(refusedForItsShape(response), response.text).toBe(true);
  });
});
