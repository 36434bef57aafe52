import { describe, expect, it } from 'vitest';
import { rowsWithoutSections, withBooths } from '../fixtures/drawings.js';
import { createChart, drawingOf, putInUse, retrieveChart, uploadDrawing } from '../support/charts.js';
import { expectError, useServerWithCompany } from '../support/harness.js';

// The categories of a chart (docs/seatsio-behaviour.md, "Chart categories"): list, add, update and
// delete one category; keys keep their JSON type; failed requests change nothing.

interface Category {
  key: number | string;
  label: string;
  color: string;
  accessible: boolean;
}

describe('chart categories', () => {
  const ctx = useServerWithCompany();

  async function categoriesOf(key: string): Promise<Category[]> {
    const response = await ctx.api.get<{ categories: Category[] }>(`/charts/${key}/categories`);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)).toEqual(['categories']);
    return response.body.categories;
  }

  const path = (chartKey: string, categoryKey?: number | string) =>
    `/charts/${chartKey}/categories` + (categoryKey === undefined ? '' : `/${encodeURIComponent(String(categoryKey))}`);

  it('lists the categories of the drawing with their original key types', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    expect(await categoriesOf(chart.key)).toEqual([
      { key: 9, label: 'Cat1', color: '#87A9CD', accessible: false },
      { key: 10, label: 'Cat2', color: '#5E42ED', accessible: false },
      { key: 'string11', label: 'Cat3', color: '#5E42BB', accessible: false },
    ]);
    expect(await categoriesOf((await uploadDrawing(ctx.api, withBooths)).key)).toEqual(withBooths.categories.list);
    expect(await categoriesOf((await createChart(ctx.api)).key)).toEqual([]);
    expectError(await ctx.api.get('/charts/no-such-chart/categories'), 404, 'CHART_NOT_FOUND');
  });

  it('adds one category with 204, keeping a number key a number and a string key a string', async () => {
    const chart = await createChart(ctx.api, { categories: [{ key: 1, label: 'One', color: 'red' }] });
    const added = await ctx.api.post(path(chart.key), { key: 2, label: 'Two', color: '#00ff00', accessible: true });
    expect(added.status, added.text).toBe(204);
    expect(added.text).toBe('');
    expect((await ctx.api.post(path(chart.key), { key: '3', label: 'Three' })).status).toBe(204);
    expect((await ctx.api.post(path(chart.key), { key: 9007199254740991, label: 'Largest', color: 'hsl(120, 50%, 50%)' })).status).toBe(204);

    const listed = await categoriesOf(chart.key);
    expect(listed).toEqual([
      { key: 1, label: 'One', color: 'red', accessible: false },
      { key: 2, label: 'Two', color: '#00ff00', accessible: true },
      { key: '3', label: 'Three', color: expect.any(String), accessible: false },
      { key: 9007199254740991, label: 'Largest', color: 'hsl(120, 50%, 50%)', accessible: false },
    ]);
    expect(listed[2]!.color).not.toBe('');
    expect((await drawingOf(ctx.api, chart.key)).categories.list).toEqual(listed);
  });

  it('rejects a duplicate key ("1" for 1 too) and bad categories with 400, changing nothing', async () => {
    const chart = await createChart(ctx.api, {
      categories: [
        { key: 1, label: 'One', color: 'red' },
        { key: 'a', label: 'A', color: 'blue' },
      ],
    });
    const before = await categoriesOf(chart.key);
    expectError(await ctx.api.post(path(chart.key), { key: 1, label: 'One again', color: 'green' }), 400, 'DUPLICATE_CATEGORY_KEY');
    expectError(await ctx.api.post(path(chart.key), { key: '1', label: 'String one' }), 400, 'DUPLICATE_CATEGORY_KEY');
    expectError(await ctx.api.post(path(chart.key), { key: 'a', label: 'A again' }), 400, 'DUPLICATE_CATEGORY_KEY');
    for (const body of [
      undefined,
      {},
      { key: 5 },
      { label: 'No key' },
      { key: 5, label: 'Bad colour', color: 'nope' },
      { key: 9007199254740992, label: 'Too big' },
      { key: 5.5, label: 'Fraction' },
      { key: '', label: 'Empty key' },
      { key: 5, label: 'Bad accessible', accessible: 'yes' },
      [{ key: 5, label: 'An array' }],
    ]) {
      expectError(await ctx.api.post(path(chart.key), body), 400, 'GENERAL_ERROR');
    }
    expect(await categoriesOf(chart.key)).toEqual(before);
    expectError(await ctx.api.post(path('no-such-chart'), { key: 5, label: 'Five' }), 404, 'CHART_NOT_FOUND');
  });

  it('updates label, colour and accessible of one category, each alone or together, keeping the rest', async () => {
    const chart = await createChart(ctx.api, {
      categories: [
        { key: 1, label: 'One', color: 'red' },
        { key: 'vip seats', label: 'VIP', color: 'gold', accessible: true },
      ],
    });
    const change = (categoryKey: number | string, body: unknown) => ctx.api.post(path(chart.key, categoryKey), body);

    const labelled = await change(1, { label: 'Uno' });
    expect(labelled.status, labelled.text).toBe(204);
    expect(labelled.text).toBe('');
    expect((await categoriesOf(chart.key))[0]).toEqual({ key: 1, label: 'Uno', color: 'red', accessible: false });
    expect((await change(1, { color: '#123abc' })).status).toBe(204);
    expect((await categoriesOf(chart.key))[0]).toEqual({ key: 1, label: 'Uno', color: '#123abc', accessible: false });
    expect((await change(1, { accessible: true })).status).toBe(204);
    expect((await categoriesOf(chart.key))[0]).toEqual({ key: 1, label: 'Uno', color: '#123abc', accessible: true });
    expect((await change(1, {})).status).toBe(204);
    expect((await change('vip seats', { label: 'VIP lounge', color: 'black', accessible: false })).status).toBe(204);

    expect(await categoriesOf(chart.key)).toEqual([
      { key: 1, label: 'Uno', color: '#123abc', accessible: true },
      { key: 'vip seats', label: 'VIP lounge', color: 'black', accessible: false },
    ]);
    expect((await retrieveChart(ctx.api, chart.key)).status).toBe('NOT_USED');
  });

  it('rejects a bad update with 400 and answers 404 for an unknown category, changing nothing', async () => {
    const chart = await createChart(ctx.api, { categories: [{ key: 1, label: 'One', color: 'red' }] });
    const before = await categoriesOf(chart.key);
    for (const body of [{ color: 'not a colour' }, { label: 5 }, { accessible: 'no' }]) {
      expectError(await ctx.api.post(path(chart.key, 1), body), 400, 'GENERAL_ERROR');
    }
    expectError(await ctx.api.post(path(chart.key, 2), { label: 'Two' }), 404, 'CATEGORY_NOT_FOUND');
    expectError(await ctx.api.post(path(chart.key, 'unknown'), { label: 'Two' }), 404, 'CATEGORY_NOT_FOUND');
    expectError(await ctx.api.delete(path(chart.key, 2)), 404, 'CATEGORY_NOT_FOUND');
    expectError(await ctx.api.post(path('no-such-chart', 1), { label: 'Two' }), 404, 'CHART_NOT_FOUND');
    expectError(await ctx.api.delete(path('no-such-chart', 1)), 404, 'CHART_NOT_FOUND');
    expect(await categoriesOf(chart.key)).toEqual(before);
  });

  it('deletes one category with 204; deleting it again is a 404', async () => {
    const chart = await createChart(ctx.api, {
      categories: [
        { key: 1, label: 'One', color: 'red' },
        { key: 'two', label: 'Two', color: 'blue' },
        { key: 3, label: 'Three', color: 'green' },
      ],
    });
    const removed = await ctx.api.delete(path(chart.key, 'two'));
    expect(removed.status, removed.text).toBe(204);
    expect((await categoriesOf(chart.key)).map((c) => c.key)).toEqual([1, 3]);
    expect((await ctx.api.delete(path(chart.key, 1))).status).toBe(204);
    expect((await categoriesOf(chart.key)).map((c) => c.key)).toEqual([3]);
    expectError(await ctx.api.delete(path(chart.key, 1)), 404, 'CATEGORY_NOT_FOUND');
    expect((await categoriesOf(chart.key)).map((c) => c.key)).toEqual([3]);
    // A deleted key can be added again.
    expect((await ctx.api.post(path(chart.key), { key: 1, label: 'One again', color: 'pink' })).status).toBe(204);
    expect((await categoriesOf(chart.key)).map((c) => c.key)).toEqual([3, 1]);
  });

  it('changes categories of a chart in use in its draft, leaving the published version as it was', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    await putInUse(ctx.server, ctx.company.workspace.id, chart);
    expect((await ctx.api.post(path(chart.key), { key: 20, label: 'Added', color: 'navy' })).status).toBe(204);
    expect((await retrieveChart(ctx.api, chart.key)).status).toBe('PUBLISHED_WITH_DRAFT');
    expect((await ctx.api.post(path(chart.key, 9), { label: 'Cat1 in draft' })).status).toBe(204);
    expect((await ctx.api.delete(path(chart.key, 'string11'))).status).toBe(204);

    expect((await drawingOf(ctx.api, chart.key)).categories.list).toEqual(rowsWithoutSections.categories.list);
    expect((await drawingOf(ctx.api, chart.key, 'draft')).categories.list).toEqual([
      { key: 9, label: 'Cat1 in draft', color: '#87A9CD', accessible: false },
      { key: 10, label: 'Cat2', color: '#5E42ED', accessible: false },
      { key: 20, label: 'Added', color: 'navy', accessible: false },
    ]);
    expect((await ctx.api.post(`/charts/${chart.key}/version/draft/actions/publish`)).status).toBe(204);
    expect((await categoriesOf(chart.key)).map((c) => c.key)).toEqual([9, 10, 20]);
  });
});
