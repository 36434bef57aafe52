import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { generatedDrawing } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { ComposeStandIn, composeServices, type RunningService } from '../support/composeServices.js';
import { createEventRecord } from '../support/events.js';
import { call, createCompanyClients, eventually, SYSTEM_SECRET } from '../support/harness.js';

// docker-compose.yml's `ha` profile as the file writes it (README, docs/operations.md "High
// availability"): a primary, a replica, three sentinels and the app through them with
// REDIS_REPLICA_ACKS=1, each service run from its own command and environment in the file
// (test/support/composeServices.ts says what stands in for Docker). The app becomes ready,
// a booking waits for the replica, and when the primary dies the sentinels promote the
// replica, the app follows, and once the old primary is back (`restart: unless-stopped`) as
// a replica, sales go on with every booking made before.

const ROOT = process.cwd();
const dir = mkdtempSync(join(tmpdir(), 'seatsio-compose-ha-'));
const running = new Map<string, RunningService>();

afterAll(async () => {
  await Promise.allSettled([...running.values()].map((service) => service.kill()));
  rmSync(dir, { recursive: true, force: true });
});

/** What each service prints once it is up (redis:* healthcheck is a PING; the app's is /ready, polled below). */
function readyLine(name: string): RegExp {
  if (name.startsWith('sentinel')) return /\+monitor master/;
  if (name === 'redis-replica') return /MASTER <-> REPLICA sync: Finished with success/;
  if (name.startsWith('app')) return /"msg":"listening"/;
  return /Ready to accept connections/;
}

describe('docker compose --profile ha, its services run as processes', () => {
  it('the app is ready through the sentinels with one ack; it follows a failover and keeps every booking', async () => {
    const { order, services } = composeServices(join(ROOT, 'docker-compose.yml'), 'ha');
    expect(order).toEqual(['mongo', 'redis-primary', 'redis-replica', 'sentinel-1', 'sentinel-2', 'sentinel-3', 'app-ha']);
    // What the profile promises, read from the file: the app goes through the three sentinels and waits for one replica.
    expect(services['app-ha']!.environment).toMatchObject({ REDIS_SENTINELS: 'sentinel-1:26379,sentinel-2:26379,sentinel-3:26379', REDIS_REPLICA_ACKS: '1' });
    const mongo = new URL(inject('mongoUrl'));
    const compose = new ComposeStandIn(services, dir, { SYSTEM_API_SECRET: SYSTEM_SECRET }, { mongo: mongo.host });
    for (const name of order.filter((name) => name !== 'mongo')) running.set(name, await compose.start(name, ROOT, readyLine(name), name.startsWith('app') ? 30_000 : 20_000));

    const url = `http://${compose.addresses.get('app-ha')}:${services['app-ha']!.environment!.PORT}`;
    // The compose file's healthcheck: GET /ready answers 200.
    await eventually(async () => (await call(url, 'GET', '/ready').catch(() => ({ status: 0 }))).status === 200, 20_000, 100);

    const { api } = await createCompanyClients(url);
    const chartKey = (await uploadDrawing(api, generatedDrawing({ sections: 0, rowsPerSection: 2, seatsPerRow: 10 }))).key;
    const event = await createEventRecord(api, chartKey);
    const book = (label: string) => api.post(`/events/${event.key}/actions/book`, { objects: [label] });
    expect((await book('A-1')).status).toBe(204);

    // One ack is live: with the replica frozen, a booking is not acknowledged; it is answered
    // 503 "unknown" once REDIS_TIMEOUT_MS (2 s by default) has passed.
    const replica = running.get('redis-replica')!;
    process.kill(replica.pid, 'SIGSTOP');
    const frozen = await book('A-2');
    process.kill(replica.pid, 'SIGCONT');
    expect(frozen.status).toBe(503);
    expect(frozen.body.errors[0].data.applied).toBe('unknown');

    // The primary dies; the sentinels (down-after-milliseconds 2000) promote the replica.
    const killedAt = performance.now();
    await running.get('redis-primary')!.kill();
    await eventually(async () => (await call(url, 'GET', '/ready')).status === 503, 10_000, 50);
    const sentinel = new Redis({ host: compose.addresses.get('sentinel-1'), port: 26379, lazyConnect: true });
    try {
      await eventually(async () => ((await sentinel.call('SENTINEL', 'get-master-addr-by-name', 'seatsio')) as string[])[0] === replica.address, 20_000, 100);
    } catch (error) {
      // What the sentinels and the replica said is why: print it with the failure.
      console.log(running.get('sentinel-1')!.output().slice(-3000), running.get('redis-replica')!.output().slice(-3000));
      throw error;
    } finally {
      sentinel.disconnect();
    }
    await eventually(async () => (await call(url, 'GET', '/ready')).status === 200, 20_000, 100);
    const readyAfterMs = performance.now() - killedAt;
    // Its restart policy brings the old primary back; the sentinels make it the new primary's
    // replica, and the ack it gives lets bookings through again.
    const restartedAt = performance.now();
    running.set('redis-primary', await compose.start('redis-primary', ROOT, /MASTER <-> REPLICA sync: Finished with success/, 30_000));
    const syncedAfterMs = performance.now() - restartedAt;
    // A seat of its own each try: a try answered 503 "unknown" may have booked its seat.
    let seat = 2;
    await eventually(async () => (await book(`A-${++seat}`)).status === 204, 20_000, 200);
    console.log(`compose ha: ready again ${Math.round(readyAfterMs)} ms after the primary was killed; the old primary a synced replica ${Math.round(syncedAfterMs)} ms after its restart; booked again at the ${seat - 2}th try`);

    const status = async (label: string) => (await api.get(`/events/${event.key}/objects/${label}`)).body.status;
    expect(await status('A-1')).toBe('booked');
    expect(await status(`A-${seat}`)).toBe('booked');
    expect(readyAfterMs).toBeLessThan(15_000);
  }, 120_000);
});
