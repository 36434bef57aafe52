import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestCompany, startTestServer, type TestCompany, type TestServer } from '../support/harness.js';

// Requests whose framing is ambiguous or broken, sent byte for byte on raw sockets
// (docs/api.md, "Keys, errors, general rules"). A repeated Content-Length is refused with 400 and the connection
// closed: behind a proxy that reads the last one, accepting the first would let a request
// hide inside another's body. What uWebSockets.js cannot parse never reaches this server's
// code: it closes those connections itself, at once or after its 10 s idle timeout.

let server: TestServer;
let company: TestCompany;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  company = await createTestCompany(server.url);
  port = Number(new URL(server.url).port);
});
afterAll(() => server.stop());

/** Writes `request` on a new connection; what came back and whether the server closed it within `waitMs`. */
function exchange(request: string, waitMs: number): Promise<{ text: string; closed: boolean; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    let finished = false;
    const finish = (closed: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed, ms: performance.now() - started });
    };
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('close', () => finish(true));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => finish(false), waitMs);
  });
}

const auth = () => `Authorization: Basic ${Buffer.from(`${company.adminKey}:`).toString('base64')}\r\n`;
const workspaceCount = async () => (await call(server.url, 'GET', '/workspaces', { key: company.adminKey })).body.items.length as number;

describe('HTTP framing', () => {
  it('two Content-Length headers: 400 with the error body, the connection closed, nothing created', async () => {
    const before = await workspaceCount();
    for (const lengths of [['15', '2'], ['15', '15']]) {
      const body = '{"name":"smug"}';
      const result = await exchange(
        `POST /workspaces HTTP/1.1\r\nHost: x\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${lengths[0]}\r\nContent-Length: ${lengths[1]}\r\n\r\n${body}`,
        2_000,
      );
      expect(result.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(result.text).toContain('"code":"GENERAL_ERROR"');
      expect(result.text).toContain('More than one Content-Length header');
      expect(result.closed).toBe(true);
    }
    expect(await workspaceCount()).toBe(before);
  });

  it('one Content-Length still works on the same kind of request', async () => {
    const body = '{"name":"plain"}';
    const result = await exchange(`POST /workspaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth()}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 2_000);
    expect(result.text).toMatch(/^HTTP\/1\.1 200 /);
  });

  // A request with a body has its headers read in one walk over them all (src/http/requestHeaders.ts):
  // each keeps its first value, as a request without a body reads them, whatever their order.
  it('a repeated header keeps its first value, with a body or without', async () => {
    const body = '{"name":"first wins"}';
    const withBody = await exchange(
      `POST /workspaces HTTP/1.1\r\nX-Request-Id: first-id\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n${auth()}X-Request-Id: second-id\r\nContent-Length: ${body.length}\r\nAuthorization: Basic bm9ib2R5Og==\r\n\r\n${body}`,
      2_000,
    );
    expect(withBody.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(withBody.text).toMatch(/\r\nX-Request-Id: first-id\r\n/i);
    const refused = await exchange(
      `POST /workspaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth()}Content-Type: text/plain\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      2_000,
    );
    expect(refused.text).toMatch(/^HTTP\/1\.1 415 /);
    const without = await exchange(`GET /workspaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: first-id\r\n${auth()}X-Request-Id: second-id\r\n\r\n`, 2_000);
    expect(without.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(without.text).toMatch(/\r\nX-Request-Id: first-id\r\n/i);
  });

  it('an unknown method and Content-Length with Transfer-Encoding: closed at once, no answer, nothing created', async () => {
    const before = await workspaceCount();
    for (const request of [
      'FOO /health HTTP/1.1\r\nHost: x\r\n\r\n',
      `POST /workspaces HTTP/1.1\r\nHost: x\r\n${auth()}Content-Length: 15\r\nTransfer-Encoding: chunked\r\n\r\nf\r\n{"name":"smug"}\r\n0\r\n\r\n`,
    ]) {
      const result = await exchange(request, 2_000);
      expect(result.closed).toBe(true);
      expect(result.ms).toBeLessThan(1_000);
      expect(result.text).toBe('');
    }
    expect(await workspaceCount()).toBe(before);
  });

  it('requests uWS cannot parse (120 headers, bare LF, NUL in the path) are closed by its idle timeout while others are served', async () => {
    const broken = [
      'GET /health HTTP/1.1\r\nHost: x\r\n' + Array.from({ length: 120 }, (_, i) => `X-H${i}: v\r\n`).join('') + '\r\n',
      'GET /health HTTP/1.1\nHost: x\n\n',
      'GET /hea\0lth HTTP/1.1\r\nHost: x\r\n\r\n',
    ].map((request) => exchange(request, 15_000));
    // Meanwhile the server serves everyone else as usual.
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
    for (const result of await Promise.all(broken)) {
      expect(result.text).toBe('');
      expect(result.closed).toBe(true);
      expect(result.ms).toBeLessThan(12_500);
    }
  }, 20_000);
});
