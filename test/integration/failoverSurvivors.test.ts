import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { areaState } from '../../src/domain/objectStates.js';
import { SENTINEL_NAME } from '../../src/embedded/redisSentinel.js';
import { rowLabel } from '../fixtures/drawings.js';
import { HOLD_EXPIRY_QUEUE } from '../../src/jobs/jobQueues.js';
import { subscribe } from '../support/statusStream.js';
import { call, eventually, testEnv } from '../support/harness.js';
import { live, OK, setUp } from '../support/failover.js';

// What lives next to the inventory survives a failover of the sentinels' primary
// (docs/operations.md, "High availability"; the set up of test/support/failover.ts): a hold's
// expiry, a subscriber's stream, the history; and a sentinel list that leads nowhere.

describe('what lives next to the inventory survives a failover (REDIS_REPLICA_ACKS=1)', () => {
  it('a hold made before expires on time after; a subscriber connected before ends with the state; the history holds each change once', async () => {
    const { clients, eventKey, objectsKey, prefix } = await setUp({ REDIS_REPLICA_ACKS: '1' });
    const set = live.redis!;
    const server = live.server!;
    const secretKey = clients.company.workspace.secretKey;
    const seat = `${rowLabel(0)}-1`;
    const book = (quantity: number) => call(server.url, 'POST', `/events/${eventKey}/actions/book`, { key: secretKey, body: { objects: [{ objectId: 'GA', quantity }] } });
    // A client as docs/status-stream.md describes: closed by the server, it resumes with `since`.
    const subscriptions = [await subscribe(server.url, eventKey, { secretKey })];
    let stopped = false;
    const resume = (): void =>
      void subscriptions.at(-1)!.closed.then(async () => {
        if (stopped) return;
        const last = subscriptions.at(-1)!;
        subscriptions.push(await subscribe(server.url, eventKey, { secretKey, since: last.seq(), view: last.view }));
        resume();
      });
    resume();
    await subscriptions[0]!.until((m) => m.type === 'snapshot');
    expect((await book(5)).status).toBe(OK);
    const token = await server.app.parts.holdTokens.create(clients.company.workspace.id, 15_000 / 60_000, Date.now());
    const held = await call(server.url, 'POST', `/events/${eventKey}/actions/hold`, { key: secretKey, body: { objects: [seat], holdToken: token.token } });
    expect(held.status).toBe(OK);

    // The replica is cut off as the hold's expiry job is added (FLUSH_MS after the hold): the
    // job reaches the primary only, and dies with it.
    process.kill(set.servers[1]!.pid, 'SIGSTOP');
    const old = new Redis(set.servers[0]!.url);
    await old.client('KILL', 'TYPE', 'replica');
    const jobKey = `${prefix}bull:${HOLD_EXPIRY_QUEUE}:${token.token}`;
    await eventually(async () => (await old.exists(jobKey)) === 1, 2_000);
    old.disconnect();
    const oldPort = await set.primaryPort();
    process.kill(set.servers[0]!.pid, 'SIGKILL');
    process.kill(set.servers[1]!.pid, 'SIGCONT');
    await eventually(async () => (await set.primaryPort()) !== oldPort, 15_000, 100);
    await set.restartAsReplica(0);
    const primary = new Redis(await set.primaryPort(), '127.0.0.1');
    try {
      // Sales resume (a 503 until the restarted node is a replica again).
      await eventually(async () => (await book(5)).status === OK, 15_000, 100);
      expect(Date.now()).toBeLessThan(token.expiresAt);

      // The job came back from the token's expiry in Redis, and gave the seat back on time.
      await eventually(async () => (await primary.hexists(`${prefix}${objectsKey}`, seat)) === 0, 15_000, 20);
      const late = Date.now() - token.expiresAt;
      expect(late).toBeLessThan(1_500);

      // The subscriber from before the failover sees what the new primary holds, with no gap.
      const stored = areaState(await primary.hget(`${prefix}${objectsKey}`, 'GA')).nonFree;
      const view = () => subscriptions.at(-1)!.view;
      await eventually(async () => view().get('GA')?.booked === stored && !view().has(seat), 10_000, 50);
      let seq = subscriptions[0]!.messages[0]!.seq;
      for (const subscription of subscriptions) {
        for (const message of subscription.messages.filter((m) => m.type !== 'pong')) {
          if (message.type === 'snapshot') expect(message.reset ?? false).toBe(subscription === subscriptions[0] ? false : true);
          else expect(message.from).toBe(seq);
          seq = message.seq;
        }
      }
      // How often the subscriber had to resume (the stream's thread may restart while Redis fails over).
      const resumed = subscriptions.length - 1;

      // The history in MongoDB: each change once, none lost.
      let items: { objectLabel: string; status: string; origin: { type: string } }[] = [];
      await eventually(async () => {
        items = (await clients.api.get(`/events/${eventKey}/status-changes?sort=date`)).body.items;
        return items.length >= 3 + (stored - 5) / 5;
      }, 10_000, 100);
      console.log(`hold given back ${late} ms after its expiry; GA booked ${stored}; subscriber resumed ${resumed} times; history ${JSON.stringify(items.map((i) => [i.objectLabel, i.status, i.origin.type]))}`);
      expect(items.filter((i) => i.objectLabel === seat).map((i) => [i.status, i.origin.type]).sort()).toEqual([['free', 'HOLD_EXPIRED'], ['reservedByToken', 'API_CALL']].sort());
      expect(items.filter((i) => i.objectLabel === 'GA').length).toBe(stored / 5);
    } finally {
      primary.disconnect();
      stopped = true;
      for (const subscription of subscriptions) subscription.close();
    }
  }, 60_000);
});

describe('a booking whose WAIT waits when the primary dies (REDIS_REPLICA_ACKS=2, one replica: the WAIT never confirms)', () => {
  it('is sent again to the promoted replica, where the record it replicated answers it: 503 "unknown", the place booked once', async () => {
    // A timeout (8 s) that outlasts the promotion (about 3 s with down-after-milliseconds 2000).
    const { clients, eventKey, objectsKey, prefix } = await setUp({ REDIS_REPLICA_ACKS: '2', REDIS_TIMEOUT_MS: '8000' });
    const set = live.redis!;
    const oldPort = await set.primaryPort();
    const answer = call(live.server!.url, 'POST', `/events/${eventKey}/actions/book`, { key: clients.company.workspace.secretKey, body: { objects: [{ objectId: 'GA', quantity: 1 }] } });
    // The call has run on the primary (and reached the replica); its WAIT waits.
    await new Promise((r) => setTimeout(r, 300));
    process.kill(set.servers[0]!.pid, 'SIGKILL');
    const response = await answer;
    expect({ status: response.status, applied: response.body?.errors?.[0]?.data?.applied }).toEqual({ status: 503, applied: 'unknown' });
    expect(await set.primaryPort()).not.toBe(oldPort);
    const primary = new Redis(await set.primaryPort(), '127.0.0.1');
    try {
      // The promoted replica ran the status function as a client's call: the call sent again
      // (a primary sends its replicas a function's writes, never the FCALL). Counted by Redis,
      // since the sentinels close the replica's clients as they promote it.
      const stats = (await primary.info('commandstats')).match(/cmdstat_fcall:calls=(\d+)/);
      expect(Number(stats?.[1] ?? 0)).toBeGreaterThan(0);
      expect(areaState(await primary.hget(`${prefix}${objectsKey}`, 'GA')).nonFree).toBe(1);
    } finally {
      primary.disconnect();
    }
  }, 60_000);
});

describe('a sentinel list naming no reachable sentinel', () => {
  it('keeps the server waiting, not ready, saying why in its log; it does not exit', async () => {
    // Ports held by this test, each hanging up on whoever connects: a port only found free
    // could be taken meanwhile by a real sentinel of a failover test running beside this one.
    const hangUps = await Promise.all([0, 1].map(() => hangingUpPort()));
    const env = testEnv({ REDIS_URL: '', REDIS_SENTINELS: hangUps.map(({ port }) => `127.0.0.1:${port}`).join(','), REDIS_SENTINEL_NAME: SENTINEL_NAME, LOG_LEVEL: 'info' });
    const child = spawn(process.execPath, ['dist/src/main.js'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d.toString()));
    child.stderr!.on('data', (d) => (output += d.toString()));
    let exited: number | null | undefined;
    child.on('exit', (code) => (exited = code));
    try {
      await eventually(async () => /no primary \\"seatsio\\" reached through REDIS_SENTINELS/.test(output), 10_000, 100);
      // Still running, and not listening (a plain REDIS_URL that never answers exits after the 10 s start-up timeout).
      await new Promise((r) => setTimeout(r, 2_000));
      expect(exited).toBeUndefined();
      expect(output).not.toMatch(/"msg":"listening"/);
      expect(output).toMatch(/All sentinels are unreachable/);
    } finally {
      child.kill('SIGKILL');
      for (const { server } of hangUps) server.close();
    }
  }, 20_000);
});

/** A loopback port that accepts connections and closes each at once. */
async function hangingUpPort(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
