import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin } from '../../bench/lib/admin.js';

// The bench's admin calls (bench/lib/admin.ts) against a server that answers 503 a set number
// of times: a read is asked again after the answer's Retry-After, a write is not, and a read
// that stays unavailable fails with what the server said.

let server: Server;
let base: string;
/** How many 503s each path still answers before a 200; what each request was. */
const unavailableFor = new Map<string, number>();
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    const left = unavailableFor.get(request.url!) ?? 0;
    if (left > 0) {
      unavailableFor.set(request.url!, left - 1);
      response.writeHead(503, { 'retry-after': '0.05', 'content-type': 'application/json' }).end('{"status":503}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('Admin.call', () => {
  it('asks a GET answered 503 again after its Retry-After, and returns the answer that came', async () => {
    unavailableFor.set('/read', 2);
    seen.length = 0;
    expect(await new Admin(base, 'k').call('GET', '/read')).toEqual({ ok: true });
    expect(seen).toEqual(['GET /read', 'GET /read', 'GET /read']);
  });

  it('does not repeat a write answered 503: the error names the answer', async () => {
    unavailableFor.set('/write', 1);
    seen.length = 0;
    await expect(new Admin(base, 'k').call('POST', '/write', {})).rejects.toThrow('POST /write answered 503: {"status":503}');
    expect(seen).toEqual(['POST /write']);
  });

  it('gives up on a GET after 5 answers of 503, saying how many it made', async () => {
    unavailableFor.set('/down', 100);
    seen.length = 0;
    await expect(new Admin(base, 'k').call('GET', '/down')).rejects.toThrow('GET /down answered 503 (attempt 5): {"status":503}');
    expect(seen).toHaveLength(5);
  });
});
