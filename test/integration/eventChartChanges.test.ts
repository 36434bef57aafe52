import { describe, expect, it } from 'vitest';
import { rowsWithoutSections } from '../fixtures/drawings.js';
import { uploadDrawing } from '../support/charts.js';
import { createEvent, objectInfo } from '../support/events.js';
import { expectError, useServerWithCompany } from '../support/harness.js';

// Publishing a chart's draft changes the objects its events sell: the sales flow (its
// in-memory catalog, on every process) and the events' Redis sale fields follow at once.

describe('events after their chart is published again', () => {
  const ctx = useServerWithCompany('shared');

  it('sees the new version of the objects and applies for-sale categories to them', async () => {
    const chart = await uploadDrawing(ctx.api, rowsWithoutSections);
    // Not for sale: the category labelled Cat1 (A-1's, key 9).
    const event = await createEvent(ctx.api, chart.key, { forSaleConfig: { forSale: false, categories: ['Cat1'] } });
    const book = (label: string) => ctx.api.post(`/events/${event}/actions/book`, { objects: [label] });
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ categoryLabel: 'Cat1', forSale: false });
    expectError(await book('A-1'), 400, 'OBJECT_NOT_FOR_SALE');

    // Renaming category 9 goes to a draft: the event does not see it yet.
    const renamed = await ctx.api.post(`/charts/${chart.key}/categories/9`, { label: 'Premium' });
    expect(renamed.status, renamed.text).toBe(204);
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ categoryLabel: 'Cat1', forSale: false });

    // Published: no category is labelled Cat1 any more, so A-1 is for sale and bookable.
    const published = await ctx.api.post(`/charts/${chart.key}/version/draft/actions/publish`);
    expect(published.status, published.text).toBe(204);
    expect(await objectInfo(ctx.api, event, 'A-1')).toMatchObject({ categoryLabel: 'Premium', forSale: true });
    expect((await book('A-1')).status).toBe(204);
  });
});
