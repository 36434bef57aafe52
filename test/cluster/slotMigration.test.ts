import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type RedisClusterNodes } from '../../src/embedded/redisCluster.js';
import { generatedDrawing, rowLabel } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { storedEvent } from '../support/eventAdmin.js';
import { action, createEvent, eventPath } from '../support/events.js';
import { createCompanyClients, eventually, startTestServer, type CompanyClients, type TestServer } from '../support/harness.js';

// A slot moving to another master (`redis-cli --cluster reshard`) while bookings keep
// coming (docs/operations.md, "Redis Cluster"): calls meet MOVED, ASK and TRYAGAIN, none of which ran
// them, and go again where the slot now is. Every booking answered 204 stays booked, no
// seat is answered 204 twice, and every booked seat has exactly one status change.
// This file starts a cluster of its own, so moving a slot disturbs no other test file.

const ROWS = 12;
const SEATS_PER_ROW = 40;
const EVENTS = 8;
const CONCURRENCY = 24;

let dir: string;
let cluster: RedisClusterNodes;
let server: TestServer;
let clients: CompanyClients;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seatsio-test-reshard-'));
  cluster = await startRedisCluster({ dir });
  server = await startTestServer({ REDIS_CLUSTER_NODES: cluster.addresses.join(',') });
  clients = await createCompanyClients(server.url);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface SlotOwner {
  address: string;
  id: string;
  /** The owner's slots, lowest first: reshard moves a source's lowest slots first. */
  slots: number[];
}

async function slotOwners(): Promise<SlotOwner[]> {
  const node = new Redis(cluster.servers[0]!.url);
  try {
    const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][];
    const owners = new Map<string, SlotOwner>();
    for (const [from, to, [host, port, id]] of ranges) {
      const owner = owners.get(id) ?? { address: `${host}:${port}`, id, slots: [] };
      for (let slot = from; slot <= to; slot++) owner.slots.push(slot);
      owners.set(id, owner);
    }
    for (const owner of owners.values()) owner.slots.sort((a, b) => a - b);
    return [...owners.values()];
  } finally {
    node.disconnect();
  }
}

/** MOVED, ASK and TRYAGAIN answers of every node so far (INFO errorstats). */
async function redirectionsAnswered(): Promise<Record<'MOVED' | 'ASK' | 'TRYAGAIN', number>> {
  const counts = { MOVED: 0, ASK: 0, TRYAGAIN: 0 };
  for (const server of cluster.servers) {
    const node = new Redis(server.url);
    const info = String(await node.call('INFO', 'errorstats'));
    node.disconnect();
    for (const name of Object.keys(counts) as (keyof typeof counts)[]) {
      counts[name] += Number(new RegExp(`errorstat_${name}:count=(\\d+)`).exec(info)?.[1] ?? 0);
    }
  }
  return counts;
}

const seats = Array.from({ length: ROWS * SEATS_PER_ROW }, (_, i) => `${rowLabel(Math.floor(i / SEATS_PER_ROW))}-${(i % SEATS_PER_ROW) + 1}`);

describe('a slot moving under booking load', () => {
  it('keeps every acknowledged booking, books no seat twice and records each booking once', async () => {
    const { key: chartKey } = await uploadDrawing(clients.api, generatedDrawing({ sections: 0, rowsPerSection: ROWS, seatsPerRow: SEATS_PER_ROW }));
    const events = await Promise.all(Array.from({ length: EVENTS }, () => createEvent(clients.api, chartKey)));
    const docs = await Promise.all(events.map((key) => storedEvent(server, clients.company.workspace.id, key)));

    // The event whose slot comes earliest among its master's slots: the fewest slots to move.
    const owners = await slotOwners();
    const placed = docs.map((doc, i) => {
      const slot = calculateSlot(`{${doc.tag}}`);
      const owner = owners.find((o) => o.slots.includes(slot))!;
      return { key: events[i]!, slot, owner, moves: owner.slots.indexOf(slot) + 1 };
    });
    const moving = placed.reduce((best, p) => (p.moves < best.moves ? p : best));
    const target = owners.find((o) => o.id !== moving.owner.id)!;

    // Load: CONCURRENCY loops booking 2 random seats of a random event, the moving one half the time.
    const acknowledged = new Map<string, string[]>(events.map((key) => [key, []]));
    const statuses = new Map<number, number>();
    let stop = false;
    let duringMove = 0;
    let moveRunning = false;
    const loop = async () => {
      while (!stop) {
        const event = Math.random() < 0.5 ? moving.key : events[Math.floor(Math.random() * EVENTS)]!;
        const objects = [seats[Math.floor(Math.random() * seats.length)]!, seats[Math.floor(Math.random() * seats.length)]!];
        if (objects[0] === objects[1]) continue;
        const response = await action(clients.api, event, 'book', { objects });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (response.status === 204) {
          acknowledged.get(event)!.push(...objects);
          if (moveRunning) duringMove++;
        } else {
          expect([400], response.text).toContain(response.status);
          expect(response.body.errors[0].code, response.text).toBe('OBJECT_NOT_FREE');
        }
      }
    };
    const loops = Array.from({ length: CONCURRENCY }, loop);
    await new Promise((resolve) => setTimeout(resolve, 300));
    moveRunning = true;
    const output = await cluster.cli(
      '--cluster', 'reshard', moving.owner.address,
      '--cluster-from', moving.owner.id,
      '--cluster-to', target.id,
      '--cluster-slots', String(moving.moves),
      // One key per MIGRATE: the event's keys (and its requests' records) move one by one,
      // so calls meet its slot half moved (ASK, TRYAGAIN), not only moved (MOVED).
      '--cluster-pipeline', '1',
      '--cluster-yes',
    );
    moveRunning = false;
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(loops);

    // The slot moved, with the event's keys, and bookings were answered while it moved.
    expect(output).toContain(`Moving slot ${moving.slot} from`);
    const after = await slotOwners();
    expect(after.find((o) => o.slots.includes(moving.slot))!.id).toBe(target.id);
    const onTarget = new Redis(`redis://${target.address}`);
    expect(Number(await onTarget.call('CLUSTER', 'COUNTKEYSINSLOT', moving.slot))).toBeGreaterThan(0);
    onTarget.disconnect();
    expect(duringMove).toBeGreaterThan(0);
    expect(statuses.get(204)).toBeGreaterThan(0);
    // Calls did meet the slot moving: the nodes counted the redirections they answered.
    const redirections = await redirectionsAnswered();
    expect(redirections.MOVED + redirections.ASK + redirections.TRYAGAIN, JSON.stringify(redirections)).toBeGreaterThan(0);

    for (const key of events) {
      const given = acknowledged.get(key)!;
      // No seat answered 204 twice.
      expect(new Set(given).size, `${key}: a seat was sold twice`).toBe(given.length);
      // Every acknowledged booking is booked, and nothing else is.
      const report = await clients.api.get(`/reports/events/${encodeURIComponent(key)}/byStatus/booked`);
      expect(report.status, report.text).toBe(200);
      const booked = ((report.body.booked ?? []) as { label: string }[]).map((o) => o.label);
      expect(new Set(booked)).toEqual(new Set(given));
      // One status change per booked seat, once the drain has stored them.
      const history = async () => {
        const page = await clients.api.get(eventPath(key, `/status-changes?limit=1000`));
        expect(page.status, page.text).toBe(200);
        return page.body.items as { objectLabel: string; status: string }[];
      };
      await eventually(async () => (await history()).length >= given.length, 20_000, 100);
      const changes = await history();
      expect(changes.map((c) => c.objectLabel).sort()).toEqual([...given].sort());
      expect(changes.every((c) => c.status === 'booked')).toBe(true);
    }
  });
});
