import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { statusLibrary } from '../../src/inventory/scripts.js';
import { generatedDrawing } from '../fixtures/drawings.js';
import { action, eventPath, newEvent, objectInfos } from '../support/events.js';
import { client, createTestCompany, eventually, newDatabaseName, spawnServer, testEnv, type Api, type SpawnedServer } from '../support/harness.js';

// A rolling deploy (docs/redis-layout.md, "The status function"): a server of this version
// and one of another version, with another status function, book on one Redis and one
// database at the same time. Redis functions are server-wide, so before they were named by
// version each server's load replaced the other's function. The other version is a copy of
// the build whose Lua differs in one line: its history entries carry another origin type,
// so the stored history shows which version's function applied each booking.

const OTHER_ORIGIN = 'OTHER_VERSION';
/** Seats each server books alone, and seats both try to book at the same moment. */
const OWN = 40;
const CONTESTED = 30;
const drawing = generatedDrawing({ sections: 0, rowsPerSection: 4, seatsPerRow: 50 });
const seats = (row: string, from: number, count: number) => Array.from({ length: count }, (_, i) => `${row}-${from + i}`);

describe('two versions of the server on one Redis (a rolling deploy)', () => {
  let otherDir: string;
  let ours: SpawnedServer;
  let theirs: SpawnedServer;
  let onOurs: Api;
  let onTheirs: Api;

  beforeAll(async () => {
    otherDir = mkdtempSync(join(tmpdir(), 'other-version-'));
    for (const part of ['dist', 'lua', 'package.json']) cpSync(part, join(otherDir, part), { recursive: true });
    symlinkSync(resolve('node_modules'), join(otherDir, 'node_modules'));
    // Another version: its changes' history entries carry another default origin (the one
    // constant both the general and the plain way write), so the entries show which ran a call.
    const constants = join(otherDir, 'lua', 'includes', 'constants.lua');
    const source = readFileSync(constants, 'utf8');
    expect(source).toContain("local API_CALL = 'API_CALL'");
    writeFileSync(constants, source.replace("local API_CALL = 'API_CALL'", `local API_CALL = '${OTHER_ORIGIN}'`));

    const database = newDatabaseName();
    [ours, theirs] = await Promise.all([
      spawnServer(testEnv({ MONGODB_DB: database })),
      spawnServer(testEnv({ MONGODB_DB: database }), join(otherDir, 'dist', 'src', 'main.js')),
    ]);
    const company = await createTestCompany(ours.url);
    onOurs = client(ours.url, company.workspace.secretKey);
    onTheirs = client(theirs.url, company.workspace.secretKey);
  });

  afterAll(async () => {
    for (const server of [ours, theirs]) server?.child.kill('SIGTERM');
    await Promise.all([ours, theirs].map((server) => server?.exited));
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('each calls its own status function: both load, neither replaces the other, and no seat is sold twice', async () => {
    const ourLibrary = statusLibrary();
    const theirLibrary = statusLibrary(join(otherDir, 'lua'));
    expect(theirLibrary.name).not.toBe(ourLibrary.name);
    const redis = new Redis(inject('redisUrl'));
    try {
      const libraries = (await redis.call('FUNCTION', 'LIST', 'LIBRARYNAME', 'seatsio_status_*')) as unknown[][];
      const names = libraries.map((library) => String(library[library.indexOf('library_name') + 1]));
      expect(names).toEqual(expect.arrayContaining([ourLibrary.name, theirLibrary.name]));
    } finally {
      redis.disconnect();
    }

    const event = await newEvent(onOurs, drawing);
    const oursAlone = seats('A', 1, OWN);
    const theirsAlone = seats('B', 1, OWN);
    const contested = seats('C', 1, CONTESTED);
    const pairs = (labels: string[]) => Array.from({ length: labels.length / 2 }, (_, i) => labels.slice(i * 2, i * 2 + 2));
    const book = (api: Api, objects: string[]) => action(api, event.key, 'book', { objects });
    const [ownAnswers, contestedAnswers] = await Promise.all([
      Promise.all([...pairs(oursAlone).map((p) => book(onOurs, p)), ...pairs(theirsAlone).map((p) => book(onTheirs, p))]),
      Promise.all(contested.map((seat) => Promise.all([book(onOurs, [seat]), book(onTheirs, [seat])]))),
    ]);
    for (const answer of ownAnswers) expect(answer.status, answer.text).toBe(204);
    const winners = new Map<string, 'ours' | 'theirs'>();
    contested.forEach((seat, i) => {
      const [mine, other] = contestedAnswers[i]!.map((answer) => answer.status);
      expect([mine, other].sort(), `${seat}: one booking, one refusal`).toEqual([204, 400]);
      winners.set(seat, mine === 204 ? 'ours' : 'theirs');
    });

    const all = [...oursAlone, ...theirsAlone, ...contested];
    const infos = await objectInfos(onTheirs, event.key, all);
    for (const label of all) expect(infos[label]!.status, label).toBe('booked');

    // The stored history (drained by either server's background jobs): one booking per seat,
    // by the version that answered 204.
    let items: { objectLabel: string; status: string; origin: { type: string } }[] = [];
    await eventually(
      async () => {
        const page = await onOurs.get<{ items: typeof items }>(eventPath(event.key, '/status-changes?limit=1000'));
        items = page.body.items ?? [];
        return items.length >= all.length;
      },
      10_000,
      100,
    );
    expect(items).toHaveLength(all.length);
    const originOf = new Map(items.map((item) => [item.objectLabel, item.origin.type]));
    for (const label of oursAlone) expect(originOf.get(label), label).toBe('API_CALL');
    for (const label of theirsAlone) expect(originOf.get(label), label).toBe(OTHER_ORIGIN);
    for (const [seat, winner] of winners) expect(originOf.get(seat), seat).toBe(winner === 'ours' ? 'API_CALL' : OTHER_ORIGIN);
  });
});
