import { describe, expect, it } from 'vitest';
import type { Drawing } from '../../src/domain/drawing.js';
import { rowsWithoutSections, withErrors, withTables } from '../fixtures/drawings.js';
import {
  clone,
  createChart,
  drawingOf,
  getBytes,
  listCharts,
  named,
  PNG_SIGNATURE,
  putInUse,
  retrieveChart,
  setValidatorLevel,
  uploadDrawing,
  VALIDATORS,
  type ChartRecord,
} from '../support/charts.js';
import { expectError, useServerWithCompany, type Api } from '../support/harness.js';

// Chart versions and status (docs/seatsio-behaviour.md,
// "Chart versions and status", "Errors"): editing in place or in a draft, publishing, discarding, validation
// by company level, and the PNG thumbnails of both versions.

describe('chart versions', () => {
  const ctx = useServerWithCompany();

  const thumbnailUrl = (key: string, version: string) => `${ctx.server.url}/charts/${encodeURIComponent(key)}/version/${version}/thumbnail`;
  const update = (own: Api, key: string, body: unknown) => own.post(`/charts/${key}`, body);
  const validate = (own: Api, key: string, version: 'published' | 'draft') => own.post(`/charts/${key}/version/${version}/actions/validate`);

  async function expectStatus(own: Api, key: string, status: ChartRecord['status']): Promise<ChartRecord> {
    const record = await retrieveChart(own, key);
    expect(record.status).toBe(status);
    expect(record.draftVersionThumbnailUrl).toBe(status === 'PUBLISHED_WITH_DRAFT' ? thumbnailUrl(key, 'draft') : null);
    return record;
  }

  describe('status transitions', () => {
    it('edits a NOT_USED chart in place, without a draft', async () => {
      const chart = await uploadDrawing(ctx.api, named(rowsWithoutSections, 'In place'));
      expect(chart.status).toBe('NOT_USED');
      expect((await update(ctx.api, chart.key, { name: 'Renamed in place' })).status).toBe(204);
      expect(await expectStatus(ctx.api, chart.key, 'NOT_USED')).toMatchObject({ name: 'Renamed in place' });
      expect(await drawingOf(ctx.api, chart.key)).toEqual(named(rowsWithoutSections, 'Renamed in place'));
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');

      // Category changes too.
      expect((await ctx.api.post(`/charts/${chart.key}/categories`, { key: 77, label: 'Added', color: 'teal' })).status).toBe(204);
      await expectStatus(ctx.api, chart.key, 'NOT_USED');
      expect((await drawingOf(ctx.api, chart.key)).categories.list.at(-1)).toEqual({ key: 77, label: 'Added', color: 'teal', accessible: false });
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');
    });

    it('is NOT_USED again once its last event is deleted, and edited in place again', async () => {
      const chart = await uploadDrawing(ctx.api, named(rowsWithoutSections, 'Comes and goes'));
      const first = (await ctx.api.post('/events', { chartKey: chart.key })).body.key as string;
      const second = (await ctx.api.post('/events', { chartKey: chart.key })).body.key as string;
      await expectStatus(ctx.api, chart.key, 'PUBLISHED');
      expect((await ctx.api.delete(`/events/${first}`)).status).toBe(204);
      await expectStatus(ctx.api, chart.key, 'PUBLISHED');
      expect((await ctx.api.delete(`/events/${second}`)).status).toBe(204);
      await expectStatus(ctx.api, chart.key, 'NOT_USED');
      expect((await update(ctx.api, chart.key, { name: 'In place again' })).status).toBe(204);
      expect(await expectStatus(ctx.api, chart.key, 'NOT_USED')).toMatchObject({ name: 'In place again' });
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');
      // A new event puts it in use again.
      expect((await ctx.api.post('/events', { chartKey: chart.key })).status).toBe(200);
      await expectStatus(ctx.api, chart.key, 'PUBLISHED');
    });

    it('goes PUBLISHED once in use, then PUBLISHED_WITH_DRAFT on update; publish makes the draft the published version', async () => {
      const original = named(rowsWithoutSections, 'Published name');
      const chart = await uploadDrawing(ctx.api, original);
      await putInUse(ctx.server, ctx.company.workspace.id, chart);
      const published = await expectStatus(ctx.api, chart.key, 'PUBLISHED');
      expect(published.name).toBe('Published name');
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');

      // The first update creates the draft; the published version stays as it was.
      expect((await update(ctx.api, chart.key, { name: 'Draft name' })).status).toBe(204);
      const withDraft = await expectStatus(ctx.api, chart.key, 'PUBLISHED_WITH_DRAFT');
      expect(withDraft.name).toBe('Published name');
      expect(await drawingOf(ctx.api, chart.key)).toEqual(original);
      expect(await drawingOf(ctx.api, chart.key, 'draft')).toEqual(named(rowsWithoutSections, 'Draft name'));

      // The second update edits the same draft.
      const categories = [{ key: 9, label: 'Cat1 renamed' }, { key: 10, label: 'Cat2', color: 'orange' }];
      expect((await update(ctx.api, chart.key, { categories })).status).toBe(204);
      await expectStatus(ctx.api, chart.key, 'PUBLISHED_WITH_DRAFT');
      expect(await drawingOf(ctx.api, chart.key)).toEqual(original);
      const draft = await drawingOf(ctx.api, chart.key, 'draft');
      expect(draft.name).toBe('Draft name');
      expect(draft.categories.list).toEqual([
        { key: 9, label: 'Cat1 renamed', color: '#87A9CD', accessible: false },
        { key: 10, label: 'Cat2', color: 'orange', accessible: false },
      ]);
      expect(draft.subChart).toEqual(original.subChart);
      expect((await retrieveChart(ctx.api, chart.key)).name).toBe('Published name');
      expect((await listCharts(ctx.api, `/charts?filter=Published%20name`)).items.map((c) => c.key)).toContain(chart.key);

      const publish = await ctx.api.post(`/charts/${chart.key}/version/draft/actions/publish`);
      expect(publish.status, publish.text).toBe(204);
      expect(publish.text).toBe('');
      const after = await expectStatus(ctx.api, chart.key, 'PUBLISHED');
      expect(after.name).toBe('Draft name');
      expect(await drawingOf(ctx.api, chart.key)).toEqual(draft);
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');
      expect((await listCharts(ctx.api, `/charts?filter=Draft%20name`)).items.map((c) => c.key)).toContain(chart.key);

      // The next update starts a new draft from the newly published version.
      expect((await update(ctx.api, chart.key, { name: 'Third name' })).status).toBe(204);
      await expectStatus(ctx.api, chart.key, 'PUBLISHED_WITH_DRAFT');
      expect(await drawingOf(ctx.api, chart.key, 'draft')).toEqual({ ...draft, name: 'Third name' });
    });

    it('discards the draft: back to PUBLISHED with the old name and drawing, draft gone', async () => {
      const original = named(withTables, 'Keep me');
      const chart = await uploadDrawing(ctx.api, original);
      await putInUse(ctx.server, ctx.company.workspace.id, chart);
      expect((await update(ctx.api, chart.key, { name: 'Throw me away', categories: [] })).status).toBe(204);
      await expectStatus(ctx.api, chart.key, 'PUBLISHED_WITH_DRAFT');

      const discard = await ctx.api.post(`/charts/${chart.key}/version/draft/actions/discard`);
      expect(discard.status, discard.text).toBe(204);
      expect(discard.text).toBe('');
      expect((await expectStatus(ctx.api, chart.key, 'PUBLISHED')).name).toBe('Keep me');
      expect(await drawingOf(ctx.api, chart.key)).toEqual(original);
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft`), 404, 'CHART_VERSION_NOT_FOUND');
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft/thumbnail`), 404, 'CHART_VERSION_NOT_FOUND');
    });

    it('answers 404 to publish, discard and validate of a draft that does not exist, changing nothing', async () => {
      const notUsed = await createChart(ctx.api, { name: 'Never drafted' });
      const inUse = await uploadDrawing(ctx.api, named(withTables, 'In use, no draft'));
      await putInUse(ctx.server, ctx.company.workspace.id, inUse);
      for (const chart of [notUsed, inUse]) {
        const before = await retrieveChart(ctx.api, chart.key);
        const drawing = await drawingOf(ctx.api, chart.key);
        expectError(await ctx.api.post(`/charts/${chart.key}/version/draft/actions/publish`), 404, 'CHART_VERSION_NOT_FOUND');
        expectError(await ctx.api.post(`/charts/${chart.key}/version/draft/actions/discard`), 404, 'CHART_VERSION_NOT_FOUND');
        expectError(await validate(ctx.api, chart.key, 'draft'), 404, 'CHART_VERSION_NOT_FOUND');
        expect(await retrieveChart(ctx.api, chart.key)).toEqual(before);
        expect(await drawingOf(ctx.api, chart.key)).toEqual(drawing);
      }
      for (const action of ['publish', 'discard', 'validate']) {
        expectError(await ctx.api.post(`/charts/no-such-chart/version/draft/actions/${action}`), 404, 'CHART_NOT_FOUND');
      }
      expectError(await ctx.api.get('/charts/no-such-chart/version/published'), 404, 'CHART_NOT_FOUND');
      expect((await ctx.api.get(`/charts/${notUsed.key}/version/other`)).status).toBe(404);
    });

    it('refuses to publish a draft with validation errors: 400 with errors and warnings, nothing published', async () => {
      const { company: own, api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      // A drawing without a focal point and with an unlabeled seat, valid while validators are OFF.
      const drawing = named(withTables, 'No focal point');
      drawing.subChart!.focalPoint = null;
      drawing.subChart!.tables![0]!.seats![0]!.label = null;
      const chart = await uploadDrawing(ownApi, drawing);
      await putInUse(ctx.server, own.workspace.id, chart);
      expect((await update(ownApi, chart.key, { name: 'Draft without focal point' })).status).toBe(204);

      await setValidatorLevel(ownAdmin, 'VALIDATE_FOCAL_POINT', 'ERROR');
      await setValidatorLevel(ownAdmin, 'VALIDATE_UNLABELED_OBJECTS', 'WARNING');
      const response = await ownApi.post(`/charts/${chart.key}/version/draft/actions/publish`);
      expect(response.status, response.text).toBe(400);
      expect(response.body).toEqual({
        status: 400,
        messages: [expect.any(String), expect.any(String)],
        errors: [{ code: 'DRAWING_VALIDATION_FAILED', message: expect.any(String), data: { failedValidations: ['VALIDATE_FOCAL_POINT'] } }],
        warnings: [
          { code: 'DRAWING_VALIDATION_FAILED', message: expect.any(String), data: { failedValidations: ['VALIDATE_UNLABELED_OBJECTS'] } },
        ],
        requestId: expect.any(String),
      });
      expect(response.body.messages).toEqual([response.body.errors[0].message, response.body.warnings[0].message]);
      expect(response.body.requestId).not.toBe('');

      // Nothing published.
      const after = await retrieveChart(ownApi, chart.key);
      expect(after).toMatchObject({ status: 'PUBLISHED_WITH_DRAFT', name: 'No focal point', draftVersionThumbnailUrl: thumbnailUrl(chart.key, 'draft') });
      expect(await drawingOf(ownApi, chart.key)).toEqual(drawing);
      expect((await drawingOf(ownApi, chart.key, 'draft')).name).toBe('Draft without focal point');

      // Only warnings left: it publishes.
      await setValidatorLevel(ownAdmin, 'VALIDATE_FOCAL_POINT', 'WARNING');
      expect((await ownApi.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);
      expect(await retrieveChart(ownApi, chart.key)).toMatchObject({ status: 'PUBLISHED', name: 'Draft without focal point' });
    });
  });

  describe('validation (POST /charts/{key}/version/{published|draft}/actions/validate)', () => {
    const sorted = (result: { errors: string[]; warnings: string[] }) => ({ errors: [...result.errors].sort(), warnings: [...result.warnings].sort() });

    async function validation(own: Api, key: string, version: 'published' | 'draft'): Promise<{ errors: string[]; warnings: string[] }> {
      const response = await validate(own, key, version);
      expect(response.status, response.text).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['errors', 'warnings']);
      return sorted(response.body);
    }

    it('classifies each of the five validators by the company level, and follows level changes without re-uploading', async () => {
      const { api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      const erroneous = await uploadDrawing(ownApi, withErrors);
      const valid = await uploadDrawing(ownApi, withTables);

      // New companies: every validator OFF.
      expect(await validation(ownApi, erroneous.key, 'published')).toEqual({ errors: [], warnings: [] });

      for (const [level, other] of [
        ['ERROR', 'WARNING'],
        ['WARNING', 'ERROR'],
      ] as const) {
        for (const validator of VALIDATORS) {
          for (const v of VALIDATORS) await setValidatorLevel(ownAdmin, v, v === validator ? level : 'OFF');
          const result = await validation(ownApi, erroneous.key, 'published');
          expect(result, `${validator} at ${level}`).toEqual(level === 'ERROR' ? { errors: [validator], warnings: [] } : { errors: [], warnings: [validator] });
          expect((await retrieveChart(ownApi, erroneous.key)).validation).toEqual(result);
        }
        // All at once, half and half.
        for (const [i, v] of VALIDATORS.entries()) await setValidatorLevel(ownAdmin, v, i % 2 === 0 ? level : other);
        const mixed = await validation(ownApi, erroneous.key, 'published');
        const even = VALIDATORS.filter((_, i) => i % 2 === 0);
        const odd = VALIDATORS.filter((_, i) => i % 2 === 1);
        expect(mixed).toEqual(sorted(level === 'ERROR' ? { errors: even, warnings: odd } : { errors: odd, warnings: even }));
        expect(await validation(ownApi, valid.key, 'published')).toEqual({ errors: [], warnings: [] });
      }

      // Expanded validation in the listing follows the same levels.
      for (const v of VALIDATORS) await setValidatorLevel(ownAdmin, v, 'ERROR');
      const listed = await listCharts(ownApi, '/charts?expand=validation');
      const byKey = new Map(listed.items.map((c) => [c.key, c.validation]));
      expect(sorted(byKey.get(erroneous.key)!)).toEqual(sorted({ errors: [...VALIDATORS], warnings: [] }));
      expect(byKey.get(valid.key)).toEqual({ errors: [], warnings: [] });

      // Back to OFF: nothing reported any more.
      for (const v of VALIDATORS) await setValidatorLevel(ownAdmin, v, 'OFF');
      expect(await validation(ownApi, erroneous.key, 'published')).toEqual({ errors: [], warnings: [] });
    });

    it('validates the draft on its own: a draft without categories fails where the published version passes', async () => {
      const { company: own, api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      const chart = await uploadDrawing(ownApi, rowsWithoutSections);
      await putInUse(ctx.server, own.workspace.id, chart);
      expect((await update(ownApi, chart.key, { categories: [] })).status).toBe(204);
      await setValidatorLevel(ownAdmin, 'VALIDATE_OBJECTS_WITHOUT_CATEGORIES', 'ERROR');
      await setValidatorLevel(ownAdmin, 'VALIDATE_FOCAL_POINT', 'WARNING');

      expect(await validation(ownApi, chart.key, 'published')).toEqual({ errors: [], warnings: [] });
      expect(await validation(ownApi, chart.key, 'draft')).toEqual({ errors: ['VALIDATE_OBJECTS_WITHOUT_CATEGORIES'], warnings: [] });

      await setValidatorLevel(ownAdmin, 'VALIDATE_OBJECTS_WITHOUT_CATEGORIES', 'WARNING');
      expect(await validation(ownApi, chart.key, 'draft')).toEqual({ errors: [], warnings: ['VALIDATE_OBJECTS_WITHOUT_CATEGORIES'] });
      // Validating changes nothing.
      expect((await retrieveChart(ownApi, chart.key)).status).toBe('PUBLISHED_WITH_DRAFT');
    });

    it('validates an erroneous draft like its published version', async () => {
      const { company: own, api: ownApi, admin: ownAdmin } = await ctx.freshCompany();
      const chart = await uploadDrawing(ownApi, withErrors);
      await putInUse(ctx.server, own.workspace.id, chart);
      expect((await update(ownApi, chart.key, { name: 'Still erroneous' })).status).toBe(204);
      await setValidatorLevel(ownAdmin, 'VALIDATE_DUPLICATE_LABELS', 'ERROR');
      await setValidatorLevel(ownAdmin, 'VALIDATE_UNLABELED_OBJECTS', 'WARNING');
      const expected = { errors: ['VALIDATE_DUPLICATE_LABELS'], warnings: ['VALIDATE_UNLABELED_OBJECTS'] };
      expect(await validation(ownApi, chart.key, 'published')).toEqual(expected);
      expect(await validation(ownApi, chart.key, 'draft')).toEqual(expected);

      // Publishing it fails with exactly those.
      const response = await ownApi.post(`/charts/${chart.key}/version/draft/actions/publish`);
      expectError(response, 400, 'DRAWING_VALIDATION_FAILED');
      expect(response.body.errors[0].data).toEqual({ failedValidations: ['VALIDATE_DUPLICATE_LABELS'] });
      expect(response.body.warnings).toEqual([
        { code: 'DRAWING_VALIDATION_FAILED', message: expect.any(String), data: { failedValidations: ['VALIDATE_UNLABELED_OBJECTS'] } },
      ]);
      expect((await retrieveChart(ownApi, chart.key)).status).toBe('PUBLISHED_WITH_DRAFT');
    });
  });

  describe('thumbnails (GET /charts/{key}/version/{published|draft}/thumbnail)', () => {
    const thumbnail = (key: string, version: string, headers: Record<string, string> = {}) =>
      getBytes(thumbnailUrl(key, version), ctx.company.workspace.secretKey, headers);

    function expectPng(response: { status: number; headers: Headers; bytes: Buffer }): string {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(response.bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      const etag = response.headers.get('etag');
      expect(etag).toMatch(/^(W\/)?".+"$/);
      return etag!;
    }

    it('serves a PNG with an ETag, 304 for If-None-Match of that ETag, and a new ETag after an update', async () => {
      const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
      const etag = expectPng(await thumbnail(chart.key, 'published'));
      // Same drawing, same ETag.
      expect(expectPng(await thumbnail(chart.key, 'published'))).toBe(etag);

      const cached = await thumbnail(chart.key, 'published', { 'if-none-match': etag });
      expect(cached.status).toBe(304);
      expect(cached.bytes.length).toBe(0);
      expect(cached.headers.get('etag')).toBe(etag);
      expectPng(await thumbnail(chart.key, 'published', { 'if-none-match': '"something-else"' }));

      // A NOT_USED chart is updated in place: its published thumbnail changes.
      expect((await ctx.api.post(`/charts/${chart.key}`, { name: 'Renamed' })).status).toBe(204);
      const changed = await thumbnail(chart.key, 'published', { 'if-none-match': etag });
      const newEtag = expectPng(changed);
      expect(newEtag).not.toBe(etag);
      expect((await thumbnail(chart.key, 'published', { 'if-none-match': newEtag })).status).toBe(304);
    });

    it('serves the URLs given in the chart record, and the draft thumbnail only while a draft exists', async () => {
      const chart = await uploadDrawing(ctx.api, withTables);
      const record = await retrieveChart(ctx.api, chart.key);
      const published = expectPng(await getBytes(record.publishedVersionThumbnailUrl, ctx.company.workspace.secretKey));
      expect(record.draftVersionThumbnailUrl).toBeNull();
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft/thumbnail`), 404, 'CHART_VERSION_NOT_FOUND');

      await putInUse(ctx.server, ctx.company.workspace.id, chart);
      expect((await ctx.api.post(`/charts/${chart.key}`, { categories: [] })).status).toBe(204);
      const withDraft = await retrieveChart(ctx.api, chart.key);
      expect(withDraft.draftVersionThumbnailUrl).toBe(thumbnailUrl(chart.key, 'draft'));
      const draft = expectPng(await getBytes(withDraft.draftVersionThumbnailUrl!, ctx.company.workspace.secretKey));
      expect(draft).not.toBe(published);
      // The published thumbnail is the same as before: the published version did not change.
      expect((await thumbnail(chart.key, 'published', { 'if-none-match': published })).status).toBe(304);

      expect((await ctx.api.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);
      expect((await thumbnail(chart.key, 'published', { 'if-none-match': draft })).status).toBe(304);
      expectError(await ctx.api.get(`/charts/${chart.key}/version/draft/thumbnail`), 404, 'CHART_VERSION_NOT_FOUND');
      expectError(await ctx.api.get('/charts/no-such-chart/version/published/thumbnail'), 404, 'CHART_NOT_FOUND');
    });

    it('renders thumbnails of an empty chart and of a drawing with findings', async () => {
      for (const record of [await createChart(ctx.api), await uploadDrawing(ctx.api, withErrors), await createChart(ctx.api, clone(withTables) as Drawing)]) {
        expectPng(await thumbnail(record.key, 'published'));
      }
    });
  });
});
