import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { STATUS_STREAM_IDLE_SECONDS } from '../../src/routes/statusStream.js';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { useEventPerTest } from '../support/eventPerTest.js';
import { basic } from '../support/harness.js';
import { streamUrl } from '../support/statusStream.js';

// The status stream's pings (docs/status-stream.md, "Limits and close codes"): a file of its own
// because it waits out the idle limit (15 s), beside the other files rather than after the
// rest of statusStream.test.ts; on one redis-server only, the idle limit being uWS's, not Redis's.

describe('status stream', () => {
  let event = '';
  const ctx = useEventPerTest(rowsWithoutSections, (key) => (event = key));

  it('pings a subscriber that sends nothing, keeps one that answers and drops one that does not', async () => {
    const headers = { authorization: basic(ctx.company.workspace.secretKey) };
    const url = streamUrl(ctx.server.url, event, {});
    const opened = Date.now();
    const answering = new WebSocket(url, { headers });
    const silent = new WebSocket(url, { headers, autoPong: false });
    const pinged = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('ping', () => resolve(Date.now() - opened)));
    const pings = [pinged(answering), pinged(silent)];
    const silentClosed = new Promise<{ code: number; after: number }>((resolve) => silent.once('close', (code) => resolve({ code, after: Date.now() - opened })));
    const idleMs = STATUS_STREAM_IDLE_SECONDS * 1000;
    for (const at of await Promise.all(pings)) {
      expect(at).toBeGreaterThan(idleMs / 2);
      expect(at).toBeLessThan(idleMs);
    }
    // No close frame: the connection is dropped once the ping goes unanswered.
    const closed = await silentClosed;
    expect(closed.code).toBe(1006);
    // uWS counts its timeouts in ticks of 4 s, so the drop comes within a tick of the idle limit.
    expect(closed.after).toBeGreaterThanOrEqual(idleMs - 4000);
    expect(closed.after).toBeLessThan(idleMs + 3000);
    expect(answering.readyState).toBe(WebSocket.OPEN);
    answering.close();
  }, 30_000);
});
