import Type from 'typebox';
import { addCategory, findCategory, updateCategory } from '../domain/categories.js';
import { notFound } from '../domain/errors.js';
import { noContent, ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { ChartService } from '../services/chartService.js';
import { CategorySchema } from './chartSchemas.js';

// The categories of a chart (docs/seatsio-behaviour.md, "Chart categories"). They live in
// the drawing, so changing one follows the drawing's rules: in place without events, else
// in the draft.

const UpdateBody = Type.Object({
  label: Type.Optional(Type.String({ maxLength: 200 })),
  color: Type.Optional(Type.String({ maxLength: 100 })),
  accessible: Type.Optional(Type.Boolean()),
});

const missing = (chartKey: string, categoryKey: string) =>
  notFound('CATEGORY_NOT_FOUND', `Chart ${chartKey} has no category with key ${categoryKey}`);

export function chartCategoryRoutes(service: ChartService): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/charts/:key/categories',
      summary: "The categories of the chart's published version",
      answers: { 200: '{categories}' },
      handler: async (ctx) => {
        const { version } = await service.findVersion(ctx.workspace, ctx.params.key!, 'published');
        return ok({ categories: await service.categories(ctx.params.key!, version) });
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/categories',
      summary: "Adds a category to the chart's drawing",
      answers: { 204: 'added' },
      body: CategorySchema,
      handler: async (ctx) => {
        await service.editDrawing(ctx.workspace, ctx.params.key!, (drawing) => {
          drawing.categories = { ...drawing.categories, list: addCategory(drawing.categories.list, ctx.body) };
        }, ctx.tenant.company.settings.draftChartDrawingsEnabled);
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/categories/:categoryKey',
      summary: "Changes a category of the chart's drawing",
      answers: { 204: 'changed' },
      body: UpdateBody,
      handler: async (ctx) => {
        const { key, categoryKey } = ctx.params as { key: string; categoryKey: string };
        await service.editDrawing(ctx.workspace, key, (drawing) => {
          const current = findCategory(drawing.categories.list, categoryKey);
          if (!current) throw missing(key, categoryKey);
          const changed = updateCategory(current, ctx.body);
          drawing.categories = { ...drawing.categories, list: drawing.categories.list.map((c) => (c === current ? changed : c)) };
        }, ctx.tenant.company.settings.draftChartDrawingsEnabled);
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'DELETE',
      path: '/charts/:key/categories/:categoryKey',
      summary: "Removes a category from the chart's drawing",
      answers: { 204: 'removed' },
      handler: async (ctx) => {
        const { key, categoryKey } = ctx.params as { key: string; categoryKey: string };
        await service.editDrawing(ctx.workspace, key, (drawing) => {
          const current = findCategory(drawing.categories.list, categoryKey);
          if (!current) throw missing(key, categoryKey);
          drawing.categories = { ...drawing.categories, list: drawing.categories.list.filter((c) => c !== current) };
        }, ctx.tenant.company.settings.draftChartDrawingsEnabled);
        return noContent();
      },
    }),
  ];
}
