import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Drawing } from '../../src/domain/drawing.js';
import { rowsWithoutSections, withBooths, withErrors, withFloors, withSections, withTables, withZones } from '../fixtures/drawings.js';
import {
  clone,
  createChart,
  drawingOf,
  listCharts,
  named,
  putInUse,
  retrieveChart,
  uploadDrawing,
  type ChartPage,
  type ChartRecord,
} from '../support/charts.js';
import { client, expectError, useServerWithCompany, type Api } from '../support/harness.js';
import { expectCursorWalk, expectPageEndingBefore } from '../support/pagination.js';

// Chart records (docs/seatsio-behaviour.md, "Charts", "Chart categories", "Pagination",
// "Test bootstrap", "Errors", "Chart drawings") against a real server, Redis and MongoDB wire server: upload, create, retrieve,
// update, list, tags, archive, copy, workspace isolation and concurrent changes.

describe('charts', () => {
  const ctx = useServerWithCompany();

  const keys = (page: ChartPage) => page.items.map((c) => c.key);
  const ids = (page: ChartPage) => page.items.map((c) => c.id);
  const thumbnailUrl = (key: string, version: string) => `${ctx.server.url}/charts/${encodeURIComponent(key)}/version/${version}/thumbnail`;

  /** Every chart of the workspace, archived or not (for "nothing was created" checks). */
  async function allKeys(own: Api): Promise<string[]> {
    return [...keys(await listCharts(own, '/charts')), ...keys(await listCharts(own, '/charts/archive'))];
  }

  async function expectNoChart(own: Api, key: string): Promise<void> {
    expectError(await own.get(`/charts/${key}`), 404, 'CHART_NOT_FOUND');
  }

  describe('uploading a drawing (POST /system/public/charts/{chartKey})', () => {
    const upload = (key: string, raw: string | Buffer, contentType?: string) =>
      ctx.api.post(`/system/public/charts/${key}`, undefined, { raw, headers: contentType === undefined ? {} : { 'content-type': contentType } });

    /** Uploads `drawing` as JSON to a new key: 400 INVALID_DRAWING whose message names each of `mentioned`, and no chart stored. */
    async function expectInvalidUpload(drawing: unknown, contentType: string, ...mentioned: string[]): Promise<void> {
      const key = randomUUID();
      const response = await upload(key, JSON.stringify(drawing), contentType);
      expectError(response, 400, 'INVALID_DRAWING');
      for (const text of mentioned) expect(response.body.errors[0].message).toContain(text);
      await expectNoChart(ctx.api, key);
    }

    it.each([
      ['application/json', 'application/json'],
      ['text/plain', 'text/plain; charset=utf-8'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['no content type', undefined],
    ])('stores the raw drawing sent as %s with 201 and the chart record', async (_, contentType) => {
      const key = randomUUID();
      const drawing = named(rowsWithoutSections, `Uploaded ${contentType ?? 'bare'}`);
      // A Buffer body makes fetch send no Content-Type of its own.
      const response = await upload(key, Buffer.from(JSON.stringify(drawing)), contentType);
      expect(response.status, response.text).toBe(201);
      expect(response.body).toEqual({
        id: expect.any(Number),
        key,
        name: drawing.name,
        status: 'NOT_USED',
        tags: [],
        archived: false,
        publishedVersionThumbnailUrl: thumbnailUrl(key, 'published'),
        draftVersionThumbnailUrl: null,
      });

      const retrieved = await retrieveChart(ctx.api, key);
      expect(retrieved).toMatchObject({ ...response.body, venueType: 'SIMPLE', validation: { errors: [], warnings: [] } });
      expect(await drawingOf(ctx.api, key)).toEqual(drawing);
    });

    it('answers 409 for a key already in use and keeps the first chart', async () => {
      const key = randomUUID();
      const first = await uploadDrawing(ctx.api, named(withTables, 'First'), key);
      const again = await upload(key, JSON.stringify(named(withBooths, 'Second')), 'application/json');
      expectError(again, 409, 'CHART_ALREADY_EXISTS');
      expect(await retrieveChart(ctx.api, key)).toMatchObject({ id: first.id, name: 'First' });
      expect(await drawingOf(ctx.api, key)).toEqual(named(withTables, 'First'));
    });

    it('lets exactly one of 10 concurrent uploads under one key win; the others get 409', async () => {
      const key = randomUUID();
      const drawings = Array.from({ length: 10 }, (_, i) => named(withTables, `Racer ${i}`));
      const responses = await Promise.all(drawings.map((drawing) => upload(key, JSON.stringify(drawing), 'application/json')));
      const winners = responses.filter((r) => r.status === 201);
      expect(winners).toHaveLength(1);
      for (const loser of responses.filter((r) => r.status !== 201)) expectError(loser, 409, 'CHART_ALREADY_EXISTS');
      expect(await retrieveChart(ctx.api, key)).toMatchObject({ id: winners[0]!.body.id, name: winners[0]!.body.name });
    });

    it('answers 400 for a body that is not JSON or is empty, storing nothing', async () => {
      const key = randomUUID();
      const truncated = JSON.stringify(withTables).slice(0, 100);
      for (const [raw, contentType] of [
        [truncated, 'application/json'],
        [truncated, 'text/plain'],
        ['subChart=1&name=x', 'application/x-www-form-urlencoded'],
        [Buffer.from('not json at all'), undefined],
      ] as const) {
        const response = await upload(key, raw, contentType);
        expect(response.status, response.text).toBe(400);
        expect(response.body.status).toBe(400);
        expect(response.body.errors[0].message).not.toBe('');
      }
      expectError(await upload(key, Buffer.alloc(0)), 400, 'INVALID_DRAWING');
      await expectNoChart(ctx.api, key);
    });

    it.each([
      ['an array', [withTables], 'object'],
      ['a string', 'a drawing', 'object'],
      ['a number', 42, 'object'],
      ['null', null, 'object'],
      ['an object without subChart or subChartFloors', { name: 'No subchart', categories: { list: [] } }, 'subChart'],
      ['an empty object', {}, 'subChart'],
      ['a POST /charts body instead of a drawing', { name: 'Only a name' }, 'subChart'],
    ])('rejects %s with 400 INVALID_DRAWING and stores nothing', async (_, drawing, mentioned) => {
      await expectInvalidUpload(drawing, 'application/json', mentioned);
    });

    it('rejects a seat without coordinates and a GA area with capacity 0, naming where, and stores nothing', async () => {
      const seatless = clone(rowsWithoutSections);
      delete (seatless.subChart!.rows![1]!.seats![2] as { x?: number }).x;
      await expectInvalidUpload(seatless, 'application/json', '#/subChart/rows/1/seats/2', 'coordinates');

      const empty = clone(rowsWithoutSections);
      empty.subChart!.generalAdmissionAreas![1]!.capacity = 0;
      await expectInvalidUpload(empty, 'text/plain', '#/subChart/generalAdmissionAreas/1/capacity');
    });

    it('rejects a body over 10 MB with 400 INVALID_DRAWING and stores nothing', async () => {
      const big = { ...clone(withTables), padding: 'x'.repeat(10 * 1024 * 1024) };
      await expectInvalidUpload(big, 'application/json', '10 MB');
    });

    it('accepts a drawing of almost 10 MB, above the server-wide body cap', async () => {
      const key = randomUUID();
      const base = JSON.stringify({ ...clone(withTables), padding: '' });
      const big = { ...clone(withTables), padding: 'x'.repeat(10 * 1024 * 1024 - base.length - 1024) };
      const response = await upload(key, JSON.stringify(big), 'application/json');
      expect(response.status, response.text.slice(0, 500)).toBe(201);
      expect((await drawingOf(ctx.api, key)).padding).toBe(big.padding);
    });

    it('stores a drawing with validator findings (duplicate labels, unlabeled objects, no focal point)', async () => {
      const key = randomUUID();
      const record = await uploadDrawing(ctx.api, withErrors, key);
      expect(record).toMatchObject({ key, name: 'With errors', status: 'NOT_USED' });
      expect(await drawingOf(ctx.api, key)).toEqual(withErrors);
      // New companies validate nothing: the findings are stored, not reported.
      expect((await retrieveChart(ctx.api, key)).validation).toEqual({ errors: [], warnings: [] });
    });

    it('works with the company admin key, storing in the default workspace', async () => {
      const key = randomUUID();
      const response = await ctx.admin.post(`/system/public/charts/${key}`, undefined, { raw: JSON.stringify(withTables) });
      expect(response.status, response.text).toBe(201);
      expect((await retrieveChart(ctx.api, key)).name).toBe('With tables');
    });
  });

  describe('creating (POST /charts)', () => {
    it('creates an untitled empty chart from an empty body, no body or {}', async () => {
      const { api: own } = await ctx.freshCompany();
      const attempts = [await own.post('/charts'), await own.post('/charts', {}), await own.post('/charts', undefined, { raw: '' })];
      const created: ChartRecord[] = [];
      for (const response of attempts) {
        expect(response.status, response.text).toBeOneOf([200, 201]);
        const record = response.body as ChartRecord;
        expect(record).toEqual({
          id: expect.any(Number),
          key: expect.any(String),
          name: 'Untitled chart',
          status: 'NOT_USED',
          tags: [],
          archived: false,
          publishedVersionThumbnailUrl: thumbnailUrl(record.key, 'published'),
          draftVersionThumbnailUrl: null,
        });
        created.push(record);
        const drawing = await drawingOf(own, record.key);
        expect(drawing.venueType).toBe('SIMPLE');
        expect(drawing.categories.list).toEqual([]);
        expect(drawing.subChart).toEqual(expect.any(Object));
        expect(drawing.name).toBe('Untitled chart');
        expect(await retrieveChart(own, record.key)).toMatchObject({ ...record, venueType: 'SIMPLE' });
      }
      expect(new Set(created.map((c) => c.key)).size).toBe(3);
      expect(new Set(created.map((c) => c.id)).size).toBe(3);
    });

    it('echoes name, venueType and categories in the drawing, number keys staying numbers', async () => {
      const record = await createChart(ctx.api, {
        name: 'Expo hall',
        venueType: 'BOOTHS',
        categories: [
          { key: 1, label: 'Category 1', color: '#aaaaaa' },
          { key: 'cat2', label: 'Category 2', color: 'red', accessible: true },
          { key: 9007199254740991, label: 'Biggest', color: 'rgb(1, 2, 3)' },
        ],
      });
      expect(record).toMatchObject({ name: 'Expo hall', status: 'NOT_USED', tags: [], archived: false, draftVersionThumbnailUrl: null });
      const drawing = await drawingOf(ctx.api, record.key);
      expect(drawing.name).toBe('Expo hall');
      expect(drawing.venueType).toBe('BOOTHS');
      expect(drawing.categories.list).toEqual([
        { key: 1, label: 'Category 1', color: '#aaaaaa', accessible: false },
        { key: 'cat2', label: 'Category 2', color: 'red', accessible: true },
        { key: 9007199254740991, label: 'Biggest', color: 'rgb(1, 2, 3)', accessible: false },
      ]);
    });

    it('gives categories created without a colour a valid colour', async () => {
      const record = await createChart(ctx.api, { categories: [{ key: 1, label: 'No colour' }] });
      const [category] = (await drawingOf(ctx.api, record.key)).categories.list;
      expect(category).toMatchObject({ key: 1, label: 'No colour', accessible: false });
      expect(category!.color).toMatch(/^#[0-9a-fA-F]{6}$/);
    });

    it('rejects duplicate category keys ("1" and 1) with 400 DUPLICATE_CATEGORY_KEY, creating nothing', async () => {
      const { api: own } = await ctx.freshCompany();
      for (const categories of [
        [
          { key: '1', label: 'String one', color: 'red' },
          { key: 1, label: 'Number one', color: 'blue' },
        ],
        [
          { key: 'a', label: 'A', color: 'red' },
          { key: 'a', label: 'A again', color: 'blue' },
        ],
      ]) {
        expectError(await own.post('/charts', { name: 'Dupes', categories }), 400, 'DUPLICATE_CATEGORY_KEY');
      }
      expect(await allKeys(own)).toEqual([]);
    });

    it('rejects invalid colours, keys and field types with 400, creating nothing', async () => {
      const { api: own } = await ctx.freshCompany();
      const bodies: unknown[] = [
        { categories: [{ key: 1, label: 'Bad colour', color: 'not-a-colour' }] },
        { categories: [{ key: 1, label: 'Bad colour', color: '#12345' }] },
        { categories: [{ key: 9007199254740992, label: 'Too big', color: 'red' }] },
        { categories: [{ key: 1.5, label: 'Fraction', color: 'red' }] },
        { categories: [{ key: 1, color: 'red' }] },
        { categories: [{ key: true, label: 'Boolean key' }] },
        { name: 5 },
        { name: ['x'] },
        { categories: 'none' },
      ];
      for (const body of bodies) {
        const response = await own.post('/charts', body);
        expectError(response, 400, 'GENERAL_ERROR');
      }
      expectError(await own.post('/charts', undefined, { raw: '{"name": "unterminated', headers: { 'content-type': 'application/json' } }), 400, 'GENERAL_ERROR');
      expect(await allKeys(own)).toEqual([]);
    });

    it('creates a chart from a full drawing sent as the body', async () => {
      for (const fixture of [rowsWithoutSections, withSections, withFloors, withZones, withBooths]) {
        const record = await createChart(ctx.api, fixture);
        expect(record).toMatchObject({ name: fixture.name, status: 'NOT_USED', tags: [], archived: false });
        expect(await drawingOf(ctx.api, record.key)).toEqual(fixture);
      }
    });

    it('rejects a full drawing that is not valid with 400 INVALID_DRAWING, creating nothing', async () => {
      const { api: own } = await ctx.freshCompany();
      const broken = clone(withTables);
      delete (broken.subChart!.tables![0] as { center?: unknown }).center;
      const response = await own.post('/charts', broken);
      expectError(response, 400, 'INVALID_DRAWING');
      expect(response.body.errors[0].message).toContain('#/subChart/tables/0');
      expect(await allKeys(own)).toEqual([]);
    });
  });

  describe('retrieving (GET /charts/{key})', () => {
    it('always shows venueType and validation, zones only when the chart has some, events only when expanded', async () => {
      const plain = await uploadDrawing(ctx.api, withTables);
      const retrieved = await retrieveChart(ctx.api, plain.key);
      expect(retrieved).toEqual({ ...plain, venueType: 'SIMPLE', validation: { errors: [], warnings: [] } });
      expect(retrieved).not.toHaveProperty('zones');
      expect(retrieved).not.toHaveProperty('events');

      const zoned = await uploadDrawing(ctx.api, withZones);
      expect(await retrieveChart(ctx.api, zoned.key)).toEqual({
        ...zoned,
        venueType: 'WITH_ZONES',
        validation: { errors: [], warnings: [] },
        zones: [
          { key: 'north', label: 'North Stand' },
          { key: 'south', label: 'South Stand' },
        ],
      });

      expect((await retrieveChart(ctx.api, (await uploadDrawing(ctx.api, withSections)).key)).venueType).toBe('WITH_SECTIONS_AND_FLOORS');
      expect((await retrieveChart(ctx.api, (await uploadDrawing(ctx.api, withFloors)).key)).venueType).toBe('WITH_SECTIONS_AND_FLOORS');
      expect((await retrieveChart(ctx.api, (await uploadDrawing(ctx.api, rowsWithoutSections)).key)).venueType).toBe('SIMPLE');
    });

    it('shows the events using the chart, newest first, with expand=events', async () => {
      const chart = await uploadDrawing(ctx.api, withTables);
      const none = await retrieveChart(ctx.api, chart.key, '?expand=events');
      expect(none.events).toEqual([]);
      expect(none.status).toBe('NOT_USED');

      const first = await putInUse(ctx.server, ctx.company.workspace.id, chart);
      const second = await putInUse(ctx.server, ctx.company.workspace.id, chart);
      const retrieved = await retrieveChart(ctx.api, chart.key, '?expand=events');
      expect(retrieved.status).toBe('PUBLISHED');
      expect(retrieved.events!.map((e) => e.key)).toEqual([second, first]);
      expect(retrieved).toMatchObject({ venueType: 'SIMPLE', validation: { errors: [], warnings: [] } });
      expect(await retrieveChart(ctx.api, chart.key)).not.toHaveProperty('events');
    });

    it('gives each expanded event an id, a key and bookWholeTables', async () => {
      const chart = await uploadDrawing(ctx.api, withTables);
      const eventKey = await putInUse(ctx.server, ctx.company.workspace.id, chart);
      const [event] = (await retrieveChart(ctx.api, chart.key, '?expand=events')).events!;
      expect(event).toMatchObject({ key: eventKey, bookWholeTables: false });
      expect(event!.id).toBeDefined();
    });

    // seats.io expands each event whole, as GET /events/{key} answers it (docs/seatsio-behaviour.md, "Charts").
    it('expands each event as its full record, the one GET /events/{key} answers, newest first (expand=events and expand=all)', async () => {
      const chart = await uploadDrawing(ctx.api, withTables);
      const first = await ctx.api.post('/events', {
        chartKey: chart.key,
        name: 'Opening night',
        date: '2030-05-01',
        tableBookingConfig: { mode: 'CUSTOM', tables: { T1: 'BY_TABLE', T2: 'BY_SEAT' } },
        channels: [{ key: 'vip', name: 'VIP', color: '#ff0000', index: 1, objects: ['T1-1'] }],
      });
      expect(first.status, first.text).toBe(200);
      const second = await ctx.api.post('/events', { chartKey: chart.key, tableBookingConfig: { mode: 'ALL_BY_TABLE' } });
      expect(second.status, second.text).toBe(200);
      const notForSale = await ctx.api.post(`/events/${second.body.key}/actions/mark-as-not-for-sale`, { objects: ['T2'] });
      expect(notForSale.status, notForSale.text).toBe(200);
      const records = [];
      for (const key of [second.body.key, first.body.key]) {
        const record = await ctx.api.get(`/events/${key}`);
        expect(record.status, record.text).toBe(200);
        records.push(record.body);
      }
      expect(records[1]).toMatchObject({ name: 'Opening night', date: '2030-05-01', supportsBestAvailable: true, forSaleConfig: null, tableBookingConfig: { mode: 'CUSTOM' } });
      expect(records[0]).toMatchObject({ forSaleConfig: { forSale: false, objects: ['T2'] }, bookWholeTables: true });

      for (const query of ['?expand=events', '?expand=all', '?expand=validation,events']) {
        expect((await retrieveChart(ctx.api, chart.key, query)).events, query).toEqual(records);
      }
      const { api: own } = await ctx.freshCompany();
      const ownChart = await uploadDrawing(own, withTables);
      const ownEvents = [];
      for (let i = 0; i < 2; i++) {
        const created = await own.post('/events', { chartKey: ownChart.key, name: `e${i}` });
        expect(created.status, created.text).toBe(200);
        ownEvents.unshift((await own.get(`/events/${created.body.key}`)).body);
      }
      for (const query of ['expand=events', 'expand=all']) {
        const [item] = (await listCharts(own, `/charts?${query}`)).items;
        expect(item!.events, query).toEqual(ownEvents);
      }
      const all = (await listCharts(own, '/charts?expand=all')).items[0]!;
      expect(all).toMatchObject({ venueType: 'SIMPLE', validation: { errors: [], warnings: [] } });
    });

    it('answers 404 CHART_NOT_FOUND naming the key and the workspace', async () => {
      const response = await ctx.api.get('/charts/no-such-chart');
      expectError(response, 404, 'CHART_NOT_FOUND');
      expect(response.body.errors[0].message.startsWith('Chart not found: no-such-chart was not found in workspace')).toBe(true);
      expectError(await ctx.api.get('/charts/no-such-chart?expand=events'), 404, 'CHART_NOT_FOUND');
    });

    it('answers 400 for an unknown expand', async () => {
      const chart = await uploadDrawing(ctx.api, withTables);
      expectError(await ctx.api.get(`/charts/${chart.key}?expand=everything`), 400, 'GENERAL_ERROR');
    });
  });

  describe('updating (POST /charts/{key})', () => {
    const categories = [
      { key: 1, label: 'One', color: '#111111', accessible: true },
      { key: 'two', label: 'Two', color: 'red', accessible: false },
      { key: 3, label: 'Three', color: 'green', accessible: false },
    ];

    it('changes only the name when only a name is given', async () => {
      const chart = await createChart(ctx.api, { name: 'Before', categories });
      const before = await drawingOf(ctx.api, chart.key);
      const response = await ctx.api.post(`/charts/${chart.key}`, { name: 'After' });
      expect(response.status, response.text).toBe(204);
      expect(response.text).toBe('');
      expect(await retrieveChart(ctx.api, chart.key)).toMatchObject({ ...chart, name: 'After', status: 'NOT_USED', draftVersionThumbnailUrl: null });
      expect(await drawingOf(ctx.api, chart.key)).toEqual({ ...before, name: 'After' });
    });

    it('leaves everything as it was without name and categories', async () => {
      const chart = await createChart(ctx.api, { name: 'Same', categories });
      const before = await drawingOf(ctx.api, chart.key);
      expect((await ctx.api.post(`/charts/${chart.key}`, {})).status).toBe(204);
      expect((await ctx.api.post(`/charts/${chart.key}`)).status).toBe(204);
      expect(await retrieveChart(ctx.api, chart.key)).toMatchObject(chart);
      expect(await drawingOf(ctx.api, chart.key)).toEqual(before);
    });

    it('replaces the categories: adds new keys, updates existing ones keeping omitted fields, removes the rest', async () => {
      const chart = await createChart(ctx.api, { name: 'Categories', categories });
      const response = await ctx.api.post(`/charts/${chart.key}`, {
        categories: [
          { key: 1, label: 'Uno' },
          { key: 'two', label: 'Two', color: 'blue' },
          { key: 4, label: 'Four', color: '#444444', accessible: true },
          { key: 'five', label: 'Five' },
        ],
      });
      expect(response.status, response.text).toBe(204);
      const drawing = await drawingOf(ctx.api, chart.key);
      expect(drawing.name).toBe('Categories');
      expect(drawing.categories.list).toEqual([
        { key: 1, label: 'Uno', color: '#111111', accessible: true },
        { key: 'two', label: 'Two', color: 'blue', accessible: false },
        { key: 4, label: 'Four', color: '#444444', accessible: true },
        { key: 'five', label: 'Five', color: expect.any(String), accessible: false },
      ]);
      expect((await ctx.api.get(`/charts/${chart.key}/categories`)).body.categories).toEqual(drawing.categories.list);
    });

    it('updates an existing category with only a colour, keeping its label (label omitted)', async () => {
      const chart = await createChart(ctx.api, { name: 'Colour only', categories });
      const response = await ctx.api.post(`/charts/${chart.key}`, {
        categories: [{ key: 1, color: 'purple' }, { key: 'two' }, { key: 3, label: 'Three' }],
      });
      expect(response.status, response.text).toBe(204);
      expect((await drawingOf(ctx.api, chart.key)).categories.list).toEqual([
        { key: 1, label: 'One', color: 'purple', accessible: true },
        { key: 'two', label: 'Two', color: 'red', accessible: false },
        { key: 3, label: 'Three', color: 'green', accessible: false },
      ]);
    });

    it('removes all categories with an empty array, name and categories in one request', async () => {
      const chart = await createChart(ctx.api, { name: 'Emptied', categories });
      expect((await ctx.api.post(`/charts/${chart.key}`, { name: 'Emptied too', categories: [] })).status).toBe(204);
      const drawing = await drawingOf(ctx.api, chart.key);
      expect(drawing.categories.list).toEqual([]);
      expect(drawing.name).toBe('Emptied too');
      expect((await retrieveChart(ctx.api, chart.key)).name).toBe('Emptied too');
    });

    it('rejects duplicate category keys and bad bodies with 400, changing nothing', async () => {
      const chart = await createChart(ctx.api, { name: 'Unchanged', categories });
      const before = await drawingOf(ctx.api, chart.key);
      expectError(
        await ctx.api.post(`/charts/${chart.key}`, {
          name: 'Changed',
          categories: [
            { key: '1', label: 'String one' },
            { key: 1, label: 'Number one' },
          ],
        }),
        400,
        'DUPLICATE_CATEGORY_KEY',
      );
      for (const body of [
        { name: 5 },
        { name: 'Changed', categories: [{ key: 7, label: 'Bad colour', color: 'no-colour' }] },
        { name: 'Changed', categories: [{ key: 8 }] },
        { categories: 'all' },
      ]) {
        expectError(await ctx.api.post(`/charts/${chart.key}`, body), 400, 'GENERAL_ERROR');
      }
      expect(await retrieveChart(ctx.api, chart.key)).toMatchObject(chart);
      expect(await drawingOf(ctx.api, chart.key)).toEqual(before);
    });

    it('answers 404 for an unknown chart', async () => {
      expectError(await ctx.api.post('/charts/no-such-chart', { name: 'x' }), 404, 'CHART_NOT_FOUND');
      expectError(await ctx.api.post('/charts/no-such-chart', {}), 404, 'CHART_NOT_FOUND');
    });
  });

  describe('listing (GET /charts)', () => {
    it('lists newest first and pages both ways with string cursors, at most 20 per page', async () => {
      const { api: own } = await ctx.freshCompany();
      expect(await listCharts(own)).toEqual({ items: [] });
      const created: ChartRecord[] = [];
      for (let i = 1; i <= 7; i++) created.push(await createChart(own, { name: `Chart ${i}` }));
      const all = [...created].reverse().map((c) => c.id);

      const whole = await listCharts(own);
      expect(ids(whole)).toEqual(all);
      expect([...all].sort((x, y) => y - x)).toEqual(all);
      expect(whole.items[0]).toEqual(created[6]);
      expect(whole).not.toHaveProperty('next_page_starts_after');
      expect(whole).not.toHaveProperty('previous_page_ends_before');
      // List items carry none of the expandable fields unless asked.
      for (const item of whole.items) {
        for (const field of ['events', 'validation', 'venueType', 'zones']) expect(item).not.toHaveProperty(field);
      }

      // Pages of 3, 3 and 1 forward, and back again; end_before_id=X: the `limit` charts above X closest to it.
      const listOwn = (path: string) => listCharts(own, path);
      await expectCursorWalk(listOwn, '/charts', all, 3);
      await expectPageEndingBefore(listOwn, '/charts', all, 6, 2);

      // Page size: 20 at most, 1 at least, whole numbers only.
      expect(ids(await listCharts(own, '/charts?limit=20'))).toEqual(all);
      expect(ids(await listCharts(own, '/charts?limit=1'))).toEqual([all[0]]);
      for (const bad of ['limit=21', 'limit=0', 'limit=-1', 'limit=abc', 'start_after_id=x', `start_after_id=${all[1]}&end_before_id=${all[4]}`]) {
        expectError(await own.get(`/charts?${bad}`), 400, 'GENERAL_ERROR');
      }
    });

    it('uses 20 as the default and maximum page size', async () => {
      const { api: own } = await ctx.freshCompany();
      const created: number[] = [];
      for (let i = 1; i <= 21; i++) created.push((await createChart(own, { name: `Many ${i}` })).id);
      const first = await listCharts(own);
      expect(first.items).toHaveLength(20);
      expect(first.next_page_starts_after).toBe(String(created[1]));
      const second = await listCharts(own, `/charts?start_after_id=${first.next_page_starts_after}`);
      expect(ids(second)).toEqual([created[0]]);
    });

    it('filters by a case-insensitive substring of the name and by tag; more than one of either is a 400', async () => {
      const { api: own } = await ctx.freshCompany();
      const alpha = await createChart(own, { name: 'Alpha Hall' });
      const alphaBeta = await createChart(own, { name: 'the ALPHABET arena' });
      const gamma = await createChart(own, { name: 'Gamma a.c' });
      expect((await own.post(`/charts/${alpha.key}/tags/red`)).status).toBe(204);
      expect((await own.post(`/charts/${gamma.key}/tags/red`)).status).toBe(204);
      expect((await own.post(`/charts/${gamma.key}/tags/blue`)).status).toBe(204);

      expect(keys(await listCharts(own, '/charts?filter=alpha'))).toEqual([alphaBeta.key, alpha.key]);
      expect(keys(await listCharts(own, '/charts?filter=ALPHAB'))).toEqual([alphaBeta.key]);
      expect(keys(await listCharts(own, '/charts?filter=a%20H'))).toEqual([alpha.key]);
      // Matched literally, not as a pattern.
      expect(keys(await listCharts(own, '/charts?filter=a.c'))).toEqual([gamma.key]);
      expect(keys(await listCharts(own, '/charts?filter=.*'))).toEqual([]);
      expect(keys(await listCharts(own, '/charts?tag=red'))).toEqual([gamma.key, alpha.key]);
      expect(keys(await listCharts(own, '/charts?tag=blue'))).toEqual([gamma.key]);
      expect(keys(await listCharts(own, '/charts?tag=gre'))).toEqual([]);
      expect(keys(await listCharts(own, '/charts?tag=red&filter=gamma'))).toEqual([gamma.key]);

      // A filter pages like the whole list.
      const page = await listCharts(own, '/charts?filter=alpha&limit=1');
      expect(keys(page)).toEqual([alphaBeta.key]);
      expect(page.next_page_starts_after).toBe(String(alphaBeta.id));
      expect(keys(await listCharts(own, `/charts?filter=alpha&limit=1&start_after_id=${page.next_page_starts_after}`))).toEqual([alpha.key]);

      expectError(await own.get('/charts?filter=alpha&filter=gamma'), 400, 'GENERAL_ERROR');
      expectError(await own.get('/charts?tag=red&tag=blue'), 400, 'GENERAL_ERROR');
    });

    it('expands events, validation, venueType and zones on request (repeatable), and rejects unknown expands', async () => {
      const { company: own, api: ownApi } = await ctx.freshCompany();
      const zoned = await uploadDrawing(ownApi, withZones);
      const errors = await uploadDrawing(ownApi, withErrors);
      const tables = await uploadDrawing(ownApi, withTables);
      const eventKeys: string[] = [];
      for (let i = 0; i < 12; i++) eventKeys.push(await putInUse(ctx.server, own.workspace.id, tables));
      const newestFirst = [...eventKeys].reverse();

      const all = await listCharts(ownApi, '/charts?expand=events&expand=validation&expand=venueType&expand=zones');
      expect(keys(all)).toEqual([tables.key, errors.key, zoned.key]);
      const [t, e, z] = all.items as [ChartRecord, ChartRecord, ChartRecord];
      expect(t.status).toBe('PUBLISHED');
      expect(t.events!.map((x) => x.key)).toEqual(newestFirst.slice(0, 10));
      expect(e.events).toEqual([]);
      expect(t.validation).toEqual({ errors: [], warnings: [] });
      expect(e.validation).toEqual({ errors: [], warnings: [] });
      expect([t.venueType, e.venueType, z.venueType]).toEqual(['SIMPLE', 'SIMPLE', 'WITH_ZONES']);
      expect(z.zones).toEqual([
        { key: 'north', label: 'North Stand' },
        { key: 'south', label: 'South Stand' },
      ]);
      expect(t).not.toHaveProperty('zones');

      const venueOnly = await listCharts(ownApi, '/charts?expand=venueType');
      for (const item of venueOnly.items) {
        expect(item.venueType).toEqual(expect.any(String));
        for (const field of ['events', 'validation', 'zones']) expect(item).not.toHaveProperty(field);
      }
      const eventsOnly = await listCharts(ownApi, '/charts?expand=events');
      expect(eventsOnly.items[0]!.events).toHaveLength(10);
      expect(eventsOnly.items[0]).not.toHaveProperty('validation');

      expect((await listCharts(ownApi, '/charts?expand=events&eventsLimit=3')).items[0]!.events!.map((x) => x.key)).toEqual(newestFirst.slice(0, 3));
      expect((await listCharts(ownApi, '/charts?expand=events&eventsLimit=10')).items[0]!.events).toHaveLength(10);
      expect((await listCharts(ownApi, '/charts?expand=events&eventsLimit=1')).items[0]!.events!.map((x) => x.key)).toEqual([newestFirst[0]]);
      for (const bad of ['expand=events&eventsLimit=11', 'expand=events&eventsLimit=0', 'expand=events&eventsLimit=two', 'expand=nothing', 'expand=events&expand=tags']) {
        expectError(await ownApi.get(`/charts?${bad}`), 400, 'GENERAL_ERROR');
      }
    });

    it('leaves archived charts out; GET /charts/archive lists only those', async () => {
      const { api: own } = await ctx.freshCompany();
      const kept = await createChart(own, { name: 'Kept' });
      const archived1 = await createChart(own, { name: 'Archived one' });
      const archived2 = await createChart(own, { name: 'Archived two' });
      for (const chart of [archived1, archived2]) expect((await own.post(`/charts/${chart.key}/actions/move-to-archive`)).status).toBe(204);

      expect(keys(await listCharts(own))).toEqual([kept.key]);
      const archive = await listCharts(own, '/charts/archive');
      expect(keys(archive)).toEqual([archived2.key, archived1.key]);
      expect(archive.items.every((c) => c.archived)).toBe(true);
      expect(archive.items[0]).toEqual({ ...archived2, archived: true });
      const page = await listCharts(own, '/charts/archive?limit=1');
      expect(keys(page)).toEqual([archived2.key]);
      expect(keys(await listCharts(own, `/charts/archive?limit=1&start_after_id=${page.next_page_starts_after}`))).toEqual([archived1.key]);
      expect(keys(await listCharts(own, '/charts/archive?filter=TWO'))).toEqual([archived2.key]);
      expectError(await own.get('/charts/archive?limit=21'), 400, 'GENERAL_ERROR');
    });
  });

  describe('tags', () => {
    it('adds a tag with special characters, URI-encoded, and gives it back unchanged', async () => {
      const chart = await createChart(ctx.api);
      const tag = 'tag1/:"-<>';
      const added = await ctx.api.post(`/charts/${chart.key}/tags/${encodeURIComponent(tag)}`);
      expect(added.status, added.text).toBe(204);
      expect(added.text).toBe('');
      expect((await retrieveChart(ctx.api, chart.key)).tags).toEqual([tag]);
      expect(keys(await listCharts(ctx.api, `/charts?tag=${encodeURIComponent(tag)}`))).toEqual([chart.key]);
    });

    it('keeps one copy of a tag added twice, removes with DELETE, and answers 404 for a tag the chart lacks', async () => {
      const chart = await createChart(ctx.api);
      expect((await ctx.api.post(`/charts/${chart.key}/tags/a`)).status).toBe(204);
      expect((await ctx.api.post(`/charts/${chart.key}/tags/b`)).status).toBe(204);
      expect((await ctx.api.post(`/charts/${chart.key}/tags/a`)).status).toBe(204);
      expect((await retrieveChart(ctx.api, chart.key)).tags).toEqual(['a', 'b']);

      const removed = await ctx.api.delete(`/charts/${chart.key}/tags/a`);
      expect(removed.status, removed.text).toBe(204);
      expect((await retrieveChart(ctx.api, chart.key)).tags).toEqual(['b']);
      expectError(await ctx.api.delete(`/charts/${chart.key}/tags/a`), 404, 'TAG_NOT_FOUND');
      expectError(await ctx.api.delete(`/charts/${chart.key}/tags/never`), 404, 'TAG_NOT_FOUND');
      expect((await retrieveChart(ctx.api, chart.key)).tags).toEqual(['b']);

      expectError(await ctx.api.post('/charts/no-such-chart/tags/a'), 404, 'CHART_NOT_FOUND');
      expectError(await ctx.api.delete('/charts/no-such-chart/tags/a'), 404, 'CHART_NOT_FOUND');
    });

    it('lists the distinct tags of the charts that are not archived', async () => {
      const { api: own } = await ctx.freshCompany();
      expect((await own.get('/charts/tags')).body).toEqual({ tags: [] });
      const one = await createChart(own);
      const two = await createChart(own);
      const archived = await createChart(own);
      for (const [chart, tag] of [
        [one, 'shared'],
        [one, 'only-one'],
        [two, 'shared'],
        [two, 'x/y'],
        [archived, 'archived-only'],
        [archived, 'shared'],
      ] as const) {
        expect((await own.post(`/charts/${chart.key}/tags/${encodeURIComponent(tag)}`)).status).toBe(204);
      }
      expect((await own.post(`/charts/${archived.key}/actions/move-to-archive`)).status).toBe(204);
      const response = await own.get<{ tags: string[] }>('/charts/tags');
      expect(response.status).toBe(200);
      expect([...response.body.tags].sort()).toEqual(['only-one', 'shared', 'x/y']);
      expect(response.body.tags).toHaveLength(3);
    });
  });

  describe('archive', () => {
    it('moves a chart to the archive and back, answering 400 when it is already there or not there', async () => {
      const chart = await createChart(ctx.api, { name: 'Archivable' });
      const moved = await ctx.api.post(`/charts/${chart.key}/actions/move-to-archive`);
      expect(moved.status, moved.text).toBe(204);
      expect((await retrieveChart(ctx.api, chart.key)).archived).toBe(true);
      expect(keys(await listCharts(ctx.api, '/charts?filter=Archivable'))).toEqual([]);

      expectError(await ctx.api.post(`/charts/${chart.key}/actions/move-to-archive`), 400, 'CHART_ALREADY_ARCHIVED');
      expect((await retrieveChart(ctx.api, chart.key)).archived).toBe(true);

      const back = await ctx.api.post(`/charts/${chart.key}/actions/move-out-of-archive`);
      expect(back.status, back.text).toBe(204);
      expect(await retrieveChart(ctx.api, chart.key)).toMatchObject({ ...chart, archived: false });
      expect(keys(await listCharts(ctx.api, '/charts?filter=Archivable'))).toEqual([chart.key]);

      expectError(await ctx.api.post(`/charts/${chart.key}/actions/move-out-of-archive`), 400, 'CHART_NOT_ARCHIVED');
      expect((await retrieveChart(ctx.api, chart.key)).archived).toBe(false);

      expectError(await ctx.api.post('/charts/no-such-chart/actions/move-to-archive'), 404, 'CHART_NOT_FOUND');
      expectError(await ctx.api.post('/charts/no-such-chart/actions/move-out-of-archive'), 404, 'CHART_NOT_FOUND');
    });
  });

  describe('copying', () => {
    /** A chart in use with tags and a draft: published "Original", draft "Drafted" without categories. */
    async function chartWithDraft(own: Api = ctx.api, workspaceId = ctx.company.workspace.id): Promise<ChartRecord> {
      const chart = await uploadDrawing(own, named(rowsWithoutSections, 'Original'));
      for (const tag of ['t1', 't2']) expect((await own.post(`/charts/${chart.key}/tags/${tag}`)).status).toBe(204);
      await putInUse(ctx.server, workspaceId, chart);
      expect((await own.post(`/charts/${chart.key}`, { name: 'Drafted', categories: [] })).status).toBe(204);
      expect((await retrieveChart(own, chart.key)).status).toBe('PUBLISHED_WITH_DRAFT');
      return chart;
    }

    /** The drawing without its name, for "same content" comparisons. */
    const content = (drawing: Drawing) => ({ ...drawing, name: undefined });

    it('copies the published version into a new chart named "<name> (copy)" with the tags, no events and no draft', async () => {
      const chart = await chartWithDraft();
      const response = await ctx.api.post(`/charts/${chart.key}/version/published/actions/copy`);
      expect(response.status, response.text).toBeOneOf([200, 201]);
      const copy = response.body as ChartRecord;
      expect(copy).toEqual({
        id: expect.any(Number),
        key: expect.any(String),
        name: 'Original (copy)',
        status: 'NOT_USED',
        tags: ['t1', 't2'],
        archived: false,
        publishedVersionThumbnailUrl: thumbnailUrl(copy.key, 'published'),
        draftVersionThumbnailUrl: null,
      });
      expect(copy.key).not.toBe(chart.key);
      expect(copy.id).not.toBe(chart.id);
      expect(await retrieveChart(ctx.api, copy.key, '?expand=events')).toMatchObject({ ...copy, events: [] });
      expectError(await ctx.api.get(`/charts/${copy.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');
      const copied = await drawingOf(ctx.api, copy.key);
      expect(copied.name).toBe('Original (copy)');
      expect(content(copied)).toEqual(content(await drawingOf(ctx.api, chart.key)));
      expect(copied.venueType).toBe('ROWS_WITHOUT_SECTIONS');

      // The original is untouched.
      expect(await retrieveChart(ctx.api, chart.key)).toMatchObject({ name: 'Original', status: 'PUBLISHED_WITH_DRAFT', tags: ['t1', 't2'] });
    });

    it('copies the draft version into a new chart named "<draft name> (copy)"', async () => {
      const chart = await chartWithDraft();
      const response = await ctx.api.post(`/charts/${chart.key}/version/draft/actions/copy`);
      expect(response.status, response.text).toBeOneOf([200, 201]);
      const copy = response.body as ChartRecord;
      expect(copy).toMatchObject({ name: 'Drafted (copy)', status: 'NOT_USED', tags: ['t1', 't2'], archived: false, draftVersionThumbnailUrl: null });
      const copied = await drawingOf(ctx.api, copy.key);
      expect(copied.name).toBe('Drafted (copy)');
      expect(copied.categories.list).toEqual([]);
      expect(content(copied)).toEqual(content(await drawingOf(ctx.api, chart.key, 'draft')));
      expect(await retrieveChart(ctx.api, chart.key)).toMatchObject({ name: 'Original', status: 'PUBLISHED_WITH_DRAFT' });
    });

    it('answers 404 for a draft copy without a draft and for an unknown chart, creating nothing', async () => {
      const { api: own } = await ctx.freshCompany();
      const chart = await createChart(own, { name: 'No draft' });
      expectError(await own.post(`/charts/${chart.key}/version/draft/actions/copy`), 404, 'CHART_VERSION_NOT_FOUND');
      expectError(await own.post('/charts/no-such-chart/version/published/actions/copy'), 404, 'CHART_NOT_FOUND');
      expect(await allKeys(own)).toEqual([chart.key]);
    });

    it('copies to another workspace of the company with the admin key, name unchanged', async () => {
      const { company: own, api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      const target = (await ownAdmin.post('/workspaces', { name: 'Target' })).body as { key: string; secretKey: string };
      const targetApi = client(ctx.server.url, own.adminKey, { 'X-Workspace-Key': target.key });
      const chart = await chartWithDraft(ownApi, own.workspace.id);

      const response = await ownAdmin.post(`/charts/${chart.key}/version/published/actions/copy-to-workspace/${target.key}`);
      expect(response.status, response.text).toBeOneOf([200, 201]);
      const copy = response.body as ChartRecord;
      expect(copy).toMatchObject({ name: 'Original', status: 'NOT_USED', tags: ['t1', 't2'], archived: false, draftVersionThumbnailUrl: null });
      expect(await retrieveChart(targetApi, copy.key)).toMatchObject(copy);
      expect(await retrieveChart(client(ctx.server.url, target.secretKey), copy.key)).toMatchObject(copy);
      expect(content(await drawingOf(targetApi, copy.key))).toEqual(content(await drawingOf(ownApi, chart.key)));
      expect((await drawingOf(targetApi, copy.key)).name).toBe('Original');
      // Not in the source workspace.
      expectError(await ownApi.get(`/charts/${copy.key}`), 404, 'CHART_NOT_FOUND');
      expect(keys(await listCharts(ownApi))).toEqual([chart.key]);
    });

    it('refuses copy-to-workspace with a workspace secret key (403) and for an unknown workspace (404), creating nothing', async () => {
      const { company: own, api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      const target = (await ownAdmin.post('/workspaces', { name: 'Target' })).body as { key: string };
      const targetApi = client(ctx.server.url, own.adminKey, { 'X-Workspace-Key': target.key });
      const chart = await createChart(ownApi, { name: 'Stay home' });

      expectError(await ownApi.post(`/charts/${chart.key}/version/published/actions/copy-to-workspace/${target.key}`), 403, 'FORBIDDEN');
      expectError(await ownAdmin.post(`/charts/${chart.key}/version/published/actions/copy-to-workspace/no-such-workspace`), 404, 'WORKSPACE_NOT_FOUND');
      // A workspace of another company is unknown too.
      expectError(
        await ownAdmin.post(`/charts/${chart.key}/version/published/actions/copy-to-workspace/${ctx.company.workspace.key}`),
        404,
        'WORKSPACE_NOT_FOUND',
      );
      expectError(await ownAdmin.post(`/charts/no-such-chart/version/published/actions/copy-to-workspace/${target.key}`), 404, 'CHART_NOT_FOUND');
      expect(await allKeys(targetApi)).toEqual([]);
      expect(await allKeys(ownApi)).toEqual([chart.key]);
      expect(await allKeys(ctx.api)).not.toContain(chart.key);
    });

    it('copies from one workspace to another with copy/from/{from}/to/{to} and the admin key', async () => {
      const { company: own, api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      const source = (await ownAdmin.post('/workspaces', { name: 'Source' })).body as { id: number; key: string };
      const target = (await ownAdmin.post('/workspaces', { name: 'Target' })).body as { key: string };
      const sourceApi = client(ctx.server.url, own.adminKey, { 'X-Workspace-Key': source.key });
      const targetApi = client(ctx.server.url, own.adminKey, { 'X-Workspace-Key': target.key });
      const chart = await uploadDrawing(sourceApi, named(withSections, 'Travelling'));
      expect((await sourceApi.post(`/charts/${chart.key}/tags/moving`)).status).toBe(204);

      const path = `/charts/${chart.key}/version/published/actions/copy/from/${source.key}/to/${target.key}`;
      const response = await ownAdmin.post(path);
      expect(response.status, response.text).toBeOneOf([200, 201]);
      const copy = response.body as ChartRecord;
      expect(copy).toMatchObject({ name: 'Travelling', status: 'NOT_USED', tags: ['moving'], archived: false, draftVersionThumbnailUrl: null });
      expect(await retrieveChart(targetApi, copy.key)).toMatchObject(copy);
      expect(await drawingOf(targetApi, copy.key)).toEqual(named(withSections, 'Travelling'));
      expect(keys(await listCharts(sourceApi))).toEqual([chart.key]);

      // The admin key only; unknown workspaces and charts are 404s; nothing more is created.
      expectError(await ownApi.post(path), 403, 'FORBIDDEN');
      expectError(await ownAdmin.post(`/charts/${chart.key}/version/published/actions/copy/from/nope/to/${target.key}`), 404, 'WORKSPACE_NOT_FOUND');
      expectError(await ownAdmin.post(`/charts/${chart.key}/version/published/actions/copy/from/${source.key}/to/nope`), 404, 'WORKSPACE_NOT_FOUND');
      expectError(
        await ownAdmin.post(`/charts/${chart.key}/version/published/actions/copy/from/${own.workspace.key}/to/${target.key}`),
        404,
        'CHART_NOT_FOUND',
      );
      expect(keys(await listCharts(targetApi))).toEqual([copy.key]);
    });
  });

  describe('authentication and workspace isolation', () => {
    it('answers 404 to a secret key of another company for every chart route, changing nothing', async () => {
      const chart = await uploadDrawing(ctx.api, named(withTables, 'Private'));
      expect((await ctx.api.post(`/charts/${chart.key}/tags/mine`)).status).toBe(204);
      const before = await retrieveChart(ctx.api, chart.key);
      const drawing = await drawingOf(ctx.api, chart.key);
      const { api: other } = await ctx.freshCompany();

      expectError(await other.get(`/charts/${chart.key}`), 404, 'CHART_NOT_FOUND');
      expectError(await other.get(`/charts/${chart.key}/version/published`), 404, 'CHART_NOT_FOUND');
      expectError(await other.get(`/charts/${chart.key}/version/published/thumbnail`), 404, 'CHART_NOT_FOUND');
      expectError(await other.get(`/charts/${chart.key}/categories`), 404, 'CHART_NOT_FOUND');
      expectError(await other.post(`/charts/${chart.key}`, { name: 'Stolen' }), 404, 'CHART_NOT_FOUND');
      expectError(await other.post(`/charts/${chart.key}/tags/theirs`), 404, 'CHART_NOT_FOUND');
      expectError(await other.delete(`/charts/${chart.key}/tags/mine`), 404, 'CHART_NOT_FOUND');
      expectError(await other.post(`/charts/${chart.key}/actions/move-to-archive`), 404, 'CHART_NOT_FOUND');
      expectError(await other.post(`/charts/${chart.key}/version/published/actions/copy`), 404, 'CHART_NOT_FOUND');
      expectError(await other.post(`/charts/${chart.key}/version/published/actions/validate`), 404, 'CHART_NOT_FOUND');
      expectError(await other.post(`/charts/${chart.key}/categories`, { key: 99, label: 'x' }), 404, 'CHART_NOT_FOUND');
      expect(keys(await listCharts(other))).toEqual([]);
      // The same key is free in the other workspace.
      expect((await uploadDrawing(other, named(withBooths, 'Theirs'), chart.key)).name).toBe('Theirs');

      expect(await retrieveChart(ctx.api, chart.key)).toEqual(before);
      expect(await drawingOf(ctx.api, chart.key)).toEqual(drawing);
    });

    it('answers 401 without a key or with an unknown key', async () => {
      const chart = await createChart(ctx.api);
      const anonymous = client(ctx.server.url);
      const unknown = client(ctx.server.url, 'not-a-real-key');
      for (const who of [anonymous, unknown]) {
        expect((await who.get(`/charts/${chart.key}`)).status).toBe(401);
        expect((await who.get('/charts')).status).toBe(401);
        expect((await who.post('/charts', {})).status).toBe(401);
        expect((await who.post(`/charts/${chart.key}`, { name: 'x' })).status).toBe(401);
        expect((await who.post(`/system/public/charts/${randomUUID()}`, undefined, { raw: JSON.stringify(withTables) })).status).toBe(401);
        expect((await who.get(`/charts/${chart.key}/version/published/thumbnail`)).status).toBe(401);
      }
      expect((await retrieveChart(ctx.api, chart.key)).name).toBe('Untitled chart');
    });
  });

  describe('concurrent changes', () => {
    it('keeps all of 20 tags added at once to the same chart', async () => {
      const chart = await createChart(ctx.api, { name: 'Tagged at once' });
      const tags = Array.from({ length: 20 }, (_, i) => `tag-${i}`);
      const responses = await Promise.all(tags.map((tag) => ctx.api.post(`/charts/${chart.key}/tags/${tag}`)));
      expect(responses.map((r) => r.status)).toEqual(tags.map(() => 204));
      expect([...(await retrieveChart(ctx.api, chart.key)).tags].sort()).toEqual([...tags].sort());
    });

    it('keeps all of 10 categories added at once with different keys', async () => {
      const chart = await createChart(ctx.api, { name: 'Categories at once', categories: [{ key: 0, label: 'Zero', color: 'black' }] });
      const added = Array.from({ length: 10 }, (_, i) => ({ key: i % 2 === 0 ? i + 1 : `k${i + 1}`, label: `Category ${i + 1}`, color: '#123456' }));
      const responses = await Promise.all(added.map((category) => ctx.api.post(`/charts/${chart.key}/categories`, category)));
      expect(responses.map((r) => r.status)).toEqual(added.map(() => 204));
      const listed = (await ctx.api.get<{ categories: { key: number | string }[] }>(`/charts/${chart.key}/categories`)).body.categories;
      expect(listed).toHaveLength(11);
      expect(new Set(listed.map((c) => c.key))).toEqual(new Set([0, ...added.map((c) => c.key)]));
    });
  });

  describe('storage', () => {
    // Runs last: after every success and failure above, each stored drawing is the published
    // or draft version of a chart (failed and lost-race writes leave nothing behind).
    it('keeps no drawing that no chart version points at', async () => {
      const db = ctx.server.app.parts.db;
      const charts = await db.collection('charts').find({}).toArray();
      const referenced = new Set(charts.flatMap((c) => [c.published.drawingId, ...(c.draft ? [c.draft.drawingId] : [])]));
      const stored = (await db.collection('chartDrawings').find({}, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id));
      expect(stored.filter((id) => !referenced.has(id))).toEqual([]);
      expect(stored).toHaveLength(referenced.size);
    });
  });
});

describe('thumbnail URLs with PUBLIC_URL', () => {
  const ctx = useServerWithCompany({ PUBLIC_URL: 'https://seats.example.com/api/' });

  it('start with the configured public URL instead of the Host called', async () => {
    const chart = await createChart(ctx.api, { name: 'Public URL' });
    expect(chart.publishedVersionThumbnailUrl).toBe(`https://seats.example.com/api/charts/${chart.key}/version/published/thumbnail`);
  });
});
