import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, client, createTestCompany, rawGet, startTestServer, type TestCompany, type TestServer } from '../support/harness.js';
import { bodyBytes } from '../../src/http/server.js';

// The HTTP layer: body reading and its limits, JSON and content types, error bodies,
// request ids, routing errors, gzip, aborted requests.

const MAX_BODY = 4096;

describe('HTTP layer', () => {
  let server: TestServer;
  let company: TestCompany;
  let admin: ReturnType<typeof client>;
  const workspaceCount = async () => (await admin.get('/workspaces')).body.items.length as number;

  beforeAll(async () => {
    server = await startTestServer({ MAX_BODY_BYTES: String(MAX_BODY) });
    company = await createTestCompany(server.url);
    admin = client(server.url, company.adminKey);
  });
  afterAll(() => server.stop());

  it('rejects malformed JSON with 400 and the error body, creating nothing', async () => {
    const before = await workspaceCount();
    const response = await admin.post('/workspaces', undefined, { raw: '{"name": "x"', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      status: 400,
      errors: [{ code: 'GENERAL_ERROR', message: expect.stringMatching(/^Malformed JSON body/) }],
      warnings: [],
      requestId: response.headers.get('x-request-id'),
    });
    expect(response.body.messages).toEqual([response.body.errors[0].message]);
    expect(await workspaceCount()).toBe(before);
  });

  it('rejects a non-JSON content type with 415 when a body is sent', async () => {
    const response = await admin.post('/workspaces', undefined, { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(response.status).toBe(415);
    expect(response.body.errors[0].code).toBe('UNSUPPORTED_MEDIA_TYPE');
    // A JSON subtype and a charset are fine; so is a bodyless POST whatever its content type.
    const ok = await admin.post('/workspaces', undefined, { raw: '{"name":"typed"}', headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' } });
    expect(ok.status).toBe(200);
    const empty = await admin.post(`/workspaces/${ok.body.key}/actions/add-secret-key`, undefined, { headers: { 'content-type': 'text/plain' } });
    expect(empty.status).toBe(200);
  });

  it('rejects bodies over the cap with 413, by Content-Length and while streaming', async () => {
    const before = await workspaceCount();
    const big = JSON.stringify({ name: 'x'.repeat(MAX_BODY) });
    const declared = await admin.post('/workspaces', undefined, { raw: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.body.errors[0].code).toBe('PAYLOAD_TOO_LARGE');

    // Chunked: no Content-Length, so the cap is enforced while reading.
    const streamed = await fetch(server.url + '/workspaces', {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(company.adminKey + ':').toString('base64'), 'content-type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(MAX_BODY / 2)));
          controller.enqueue(new TextEncoder().encode('{"name":"x"}'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await workspaceCount()).toBe(before);

    // Exactly at the cap is accepted.
    const atCap = JSON.stringify({ name: 'padded' }).padEnd(MAX_BODY, ' ');
    expect((await admin.post('/workspaces', undefined, { raw: atCap, headers: { 'content-type': 'application/json' } })).status).toBe(200);
  });

  it('rejects wrong field types with a message naming the field, changing nothing', async () => {
    const before = await workspaceCount();
    for (const body of [{ name: 5 }, { name: ['a'] }, { name: 'ok', isTest: 'yes' }, {}, [], 'name', null]) {
      const response = await admin.post('/workspaces', undefined, { raw: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.errors[0].code).toBe('GENERAL_ERROR');
      expect(response.body.errors[0].message).toMatch(/^#/);
    }
    expect((await admin.post('/workspaces', { name: 5 })).body.errors[0].message).toBe('#/name: expected type: String, found: Integer');
    expect(await workspaceCount()).toBe(before);
  });

  it('answers 404 for unknown routes and 405 with Allow for a wrong method', async () => {
    const missing = await admin.get('/no/such/route');
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0].code).toBe('NOT_FOUND');
    const wrongMethod = await call(server.url, 'PUT', '/workspaces', { key: company.adminKey });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    expect(wrongMethod.body.errors[0].code).toBe('METHOD_NOT_ALLOWED');
  });

  it('gives every response a request id, echoing a sane one from the client', async () => {
    const generated = await admin.get('/workspaces/unknown');
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(generated.body.requestId).toBe(id);
    const other = await admin.get('/workspaces/unknown');
    expect(other.headers.get('x-request-id')).not.toBe(id);

    const echoed = await admin.get('/workspaces/unknown', { headers: { 'x-request-id': 'checkout-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('checkout-42');
    expect(echoed.body.requestId).toBe('checkout-42');
    const unsafe = await admin.get('/workspaces/unknown', { headers: { 'x-request-id': 'x'.repeat(100) } });
    expect(unsafe.headers.get('x-request-id')).not.toBe('x'.repeat(100));
    // An id read only by the header is written as bytes (src/http/requestIds.ts): the same shape, one per request.
    const [first, second] = await Promise.all([admin.get('/health'), admin.get('/health')]);
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    for (const healthId of ids) expect(healthId).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(ids[0]!.split('-')[0]).toBe(id!.split('-')[0]);
  });

  it('rejects a repeated single-valued query parameter', async () => {
    const response = await admin.get('/workspaces?limit=1&limit=2');
    expect(response.status).toBe(400);
    expect(response.body.errors[0].message).toContain('limit');
  });

  it('gzips large JSON bodies when asked, and only then', async () => {
    for (let i = 0; i < 10; i++) await admin.post('/workspaces', { name: `gzip ${i}` });
    const auth = 'Basic ' + Buffer.from(company.adminKey + ':').toString('base64');
    const zipped = await rawGet(server.url + '/workspaces', { authorization: auth, 'accept-encoding': 'gzip, deflate' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    const items = JSON.parse(gunzipSync(zipped.body).toString()).items;
    expect(items.length).toBeGreaterThan(10);

    const plain = await rawGet(server.url + '/workspaces', { authorization: auth });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString()).items).toEqual(items);

    const refused = await rawGet(server.url + '/workspaces', { authorization: auth, 'accept-encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();

    const small = await rawGet(server.url + '/health', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('writes a text answer as UTF-8, counting its bytes rather than its characters', async () => {
    const name = '€ü'.repeat(100);
    const created = await admin.post('/workspaces', { name });
    const auth = 'Basic ' + Buffer.from(company.adminKey + ':').toString('base64');
    const plain = await rawGet(server.url + `/workspaces/${created.body.key}`, { authorization: auth });
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    expect(JSON.parse(plain.body.toString('utf8')).name).toBe(name);
    // Under 1,024 characters, over 1,024 bytes: big enough to gzip (bodyBytes).
    const text = '€'.repeat(400);
    expect(bodyBytes(text)).toBe(1200);
    expect(bodyBytes('x'.repeat(400))).toBe(400);
    expect(bodyBytes(Buffer.from(text))).toBe(1200);
    expect(bodyBytes('x'.repeat(2000))).toBe(2000);
  });

  it('survives a client that disconnects in the middle of its body', async () => {
    await new Promise<void>((resolve, reject) => {
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            `Authorization: Basic ${Buffer.from(company.adminKey + ':').toString('base64')}\r\nContent-Length: 100\r\n\r\n{"name":`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect((await admin.get('/health')).status).toBe(200);
    expect(server.app.parts.status.inFlight).toBe(0);
  });

  it('answers 204 without a body length clients would wait for', async () => {
    // A workspace rename answers 204. Read the raw head: fetch ignores a 204's length, but
    // other clients (load generators, some SDK HTTP stacks) believe it and wait.
    const created = await admin.post('/workspaces', { name: 'to rename' });
    const head = await new Promise<string>((resolve, reject) => {
      const { port } = new URL(server.url);
      const body = JSON.stringify({ name: 'renamed' });
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /workspaces/${created.body.key} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
            `Authorization: Basic ${Buffer.from(company.adminKey + ':').toString('base64')}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
      });
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString());
      });
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1.1 204 /);
    const length = /content-length: *(\d+)/i.exec(head);
    expect(length === null || length[1] === '0', head).toBe(true);
  });
});
