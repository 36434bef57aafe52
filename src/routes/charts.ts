import Type, { type Static } from 'typebox';
import { classifyFailures } from '../domain/chartValidation.js';
import { newCategories, replaceCategories } from '../domain/categories.js';
import { checkDrawing, emptyDrawing, MAX_DRAWING_BYTES, type Drawing } from '../domain/drawing.js';
import { ApiError, badRequest, notFound } from '../domain/errors.js';
import { newKey } from '../domain/keys.js';
import type { PageLimits } from '../domain/pagination.js';
import type { ChartDoc } from '../domain/chart.js';
import {
  checkAgainst,
  compile,
  companyRoute,
  noContent,
  ok,
  workspaceRoute,
  type BodyOptions,
  type RouteDef,
  type WorkspaceContext,
} from '../http/route.js';
import { drawingTooLarge, type ChartService } from '../services/chartService.js';
import type { EventService } from '../services/eventService.js';
import type { SeasonService } from '../services/seasonService.js';
import type { WorkspaceService } from '../services/workspaceService.js';
import { baseUrl, chartRecord } from './chartRecord.js';
import { eventRecords } from './eventRecord.js';
import { CategorySchema, DrawingSchema } from './chartSchemas.js';
import { ChartListQuery, ChartQuery, pageRequestOf } from './querySchemas.js';

// Chart records (docs/seatsio-behaviour.md, "Charts"): create, retrieve, update, list, tags,
// archive, copy, and the raw drawing upload the SDK test suites use.

// The spec: at most 20 charts per page and at most 10 events per chart with expand=events.
const PAGE_LIMITS: PageLimits = { defaultLimit: 20, maxLimit: 20 };
const MAX_EVENTS_LIMIT = 10;
const EXPANDS = ['events', 'validation', 'venueType', 'zones'] as const;
type Expand = (typeof EXPANDS)[number];
/** `expand=all` asks for every expansion. */
const ALL = 'all';
const MAX_TAG_LENGTH = 200;
const MAX_TAGS_PER_CHART = 100;

const Name = Type.String({ maxLength: 200 });
const CreateBodySchema = Type.Object({
  name: Type.Optional(Type.Union([Name, Type.Null()])),
  venueType: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Z_]{1,50}$' }), Type.Null()])),
  categories: Type.Optional(Type.Union([Type.Array(CategorySchema, { maxItems: 1000 }), Type.Null()])),
});
const CreateBody = compile(CreateBodySchema);
// In an update an existing category may be named by its key alone: omitted fields stay.
const UpdateBody = Type.Object({
  name: Type.Optional(Name),
  categories: Type.Optional(Type.Array(Type.Object({ ...CategorySchema.properties, label: Type.Optional(CategorySchema.properties.label) }), { maxItems: 1000 })),
});

/** Drawings may be up to 10 MB, above the server-wide body cap; larger ones get a 400. */
export const DRAWING_BODY: BodyOptions = { limit: { bytes: MAX_DRAWING_BYTES, error: drawingTooLarge } };

function parseCreateBody(body: unknown): Drawing {
  const value = body ?? {};
  // A body carrying a subChart is a whole drawing (charts brought over from seats.io).
  if (typeof value === 'object' && value !== null && ('subChart' in value || 'subChartFloors' in value)) {
    return checkDrawing(value);
  }
  checkAgainst(CreateBody, value);
  const fields = value as Static<typeof CreateBodySchema>;
  return emptyDrawing({
    name: fields.name ?? undefined,
    venueType: fields.venueType ?? undefined,
    categories: newCategories(fields.categories ?? []),
  });
}

function checkTag(tag: string): string {
  if (tag.length === 0 || tag.length > MAX_TAG_LENGTH) throw badRequest('GENERAL_ERROR', `a tag must have 1 to ${MAX_TAG_LENGTH} characters`);
  return tag;
}

export function chartRoutes(service: ChartService, workspaces: WorkspaceService, eventService: EventService, seasons: SeasonService, publicUrl: string | undefined): RouteDef[] {
  const events = eventRecords(eventService, seasons);

  async function expanded(ctx: WorkspaceContext, doc: ChartDoc, expand: Set<Expand>, eventsLimit: number) {
    return chartRecord(doc, {
      baseUrl: baseUrl(publicUrl, ctx),
      // Each event as GET /events/{key} shows it (docs/seatsio-behaviour.md, "Charts").
      events: expand.has('events') ? await events.many(await service.recentEvents(doc, eventsLimit)) : undefined,
      validation: expand.has('validation')
        ? classifyFailures(doc.published.failedValidators, ctx.tenant.company.settings.chartValidation)
        : undefined,
      venueType: expand.has('venueType'),
      zones: expand.has('zones'),
    });
  }

  function expandQuery(ctx: WorkspaceContext): { expand: Set<Expand>; eventsLimit: number } {
    const expand = new Set<Expand>();
    for (const value of ctx.query.all('expand').flatMap((v) => v.split(','))) {
      if (value === ALL) {
        for (const each of EXPANDS) expand.add(each);
        continue;
      }
      if (!(EXPANDS as readonly string[]).includes(value)) {
        throw badRequest('GENERAL_ERROR', `expand must be one of ${[...EXPANDS, ALL].join(', ')}; got "${value}"`);
      }
      expand.add(value as Expand);
    }
    if (ctx.query.one('validation') === 'true') expand.add('validation');
    const eventsLimit = ctx.query.integer('eventsLimit', { min: 1, max: MAX_EVENTS_LIMIT }) ?? MAX_EVENTS_LIMIT;
    return { expand, eventsLimit };
  }

  const list = (archived: boolean) => async (ctx: WorkspaceContext) => {
    const request = pageRequestOf(ctx.query, PAGE_LIMITS);
    const { expand, eventsLimit } = expandQuery(ctx);
    const page = await service.list(ctx.workspace._id, { archived, name: ctx.query.one('filter'), tag: ctx.query.one('tag') }, request);
    const items = await Promise.all(page.items.map((doc) => expanded(ctx, doc, expand, eventsLimit)));
    return ok({ ...page, items });
  };

  const created = (ctx: WorkspaceContext, doc: ChartDoc, status = 200) => ({
    status,
    body: chartRecord(doc, { baseUrl: baseUrl(publicUrl, ctx) }),
  });

  /** Moving into or out of the archive; moving where the chart already is gets a 400. */
  function archiveRoute(path: string, archived: boolean): RouteDef {
    return workspaceRoute({
      method: 'POST',
      path,
      summary: archived ? 'Moves the chart to the archive' : 'Moves the chart out of the archive',
      answers: { 204: 'moved' },
      handler: async (ctx) => {
        await service.change(ctx.workspace, ctx.params.key!, (doc) => {
          if (doc.archived === archived) {
            throw archived
              ? badRequest('CHART_ALREADY_ARCHIVED', `Chart ${doc.key} is already archived`)
              : badRequest('CHART_NOT_ARCHIVED', `Chart ${doc.key} is not archived`);
          }
          return { archived };
        });
        return noContent();
      },
    });
  }

  return [
    // The SDK test suites upload sample drawings here under a key they chose (docs/seatsio-behaviour.md, "Test bootstrap").
    workspaceRoute({
      method: 'POST',
      path: '/system/public/charts/:chartKey',
      summary: 'Creates a chart under the given key from a whole drawing (what the SDK test suites upload)',
      bodyDoc: DrawingSchema,
      answers: { 201: 'the chart' },
      bodyOptions: { ...DRAWING_BODY, anyContentType: true },
      handler: async (ctx) => {
        if (ctx.bodyText.length === 0) throw badRequest('INVALID_DRAWING', 'The request body must be a chart drawing');
        const doc = await service.create(ctx.workspace._id, checkChartKey(ctx.params.chartKey!), checkDrawing(ctx.body));
        return created(ctx, doc, 201);
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts',
      summary: 'Creates a chart, empty or from a whole drawing',
      bodyDoc: Type.Union([CreateBodySchema, DrawingSchema]),
      answers: { 200: 'the chart' },
      bodyOptions: DRAWING_BODY,
      handler: async (ctx) => created(ctx, await service.create(ctx.workspace._id, newKey(), parseCreateBody(ctx.body))),
    }),

    workspaceRoute({ method: 'GET', path: '/charts', summary: 'A page of the charts not archived', answers: { 200: 'a page of charts' }, query: ChartListQuery, handler: list(false) }),
    workspaceRoute({ method: 'GET', path: '/charts/archive', summary: 'A page of the archived charts', answers: { 200: 'a page of charts' }, query: ChartListQuery, handler: list(true) }),

    workspaceRoute({
      method: 'GET',
      path: '/charts/tags',
      summary: "Every tag of the workspace's charts",
      answers: { 200: '{tags}' },
      handler: async (ctx) => ok({ tags: await service.tags(ctx.workspace._id) }),
    }),

    workspaceRoute({
      method: 'GET',
      path: '/charts/:key',
      summary: 'One chart, with its validation, venue type and zones',
      answers: { 200: 'the chart' },
      query: ChartQuery,
      handler: async (ctx) => {
        const { expand, eventsLimit } = expandQuery(ctx);
        // A single chart always shows its venue type, validation and zones (docs/seatsio-behaviour.md, "Charts").
        for (const always of ['validation', 'venueType', 'zones'] as const) expand.add(always);
        return ok(await expanded(ctx, await service.find(ctx.workspace, ctx.params.key!), expand, eventsLimit));
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key',
      summary: 'Renames the chart or changes its categories',
      answers: { 204: 'changed' },
      body: UpdateBody,
      handler: async (ctx) => {
        const { name, categories } = ctx.body;
        if (name === undefined && categories === undefined) {
          await service.find(ctx.workspace, ctx.params.key!);
          return noContent();
        }
        await service.editDrawing(ctx.workspace, ctx.params.key!, (drawing) => {
          if (name !== undefined) drawing.name = name;
          if (categories !== undefined) drawing.categories = { ...drawing.categories, list: replaceCategories(drawing.categories.list, categories) };
        }, ctx.tenant.company.settings.draftChartDrawingsEnabled);
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/tags/:tag',
      summary: 'Tags the chart',
      answers: { 204: 'tagged' },
      handler: async (ctx) => {
        const tag = checkTag(ctx.params.tag!);
        await service.change(ctx.workspace, ctx.params.key!, (doc) => {
          if (doc.tags.includes(tag)) return {};
          if (doc.tags.length >= MAX_TAGS_PER_CHART) throw badRequest('TOO_MANY_TAGS', `A chart has at most ${MAX_TAGS_PER_CHART} tags`);
          return { tags: [...doc.tags, tag] };
        });
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'DELETE',
      path: '/charts/:key/tags/:tag',
      summary: 'Removes a tag from the chart',
      answers: { 204: 'removed' },
      handler: async (ctx) => {
        const tag = ctx.params.tag!;
        await service.change(ctx.workspace, ctx.params.key!, (doc) => {
          if (!doc.tags.includes(tag)) throw notFound('TAG_NOT_FOUND', `Chart ${doc.key} has no tag "${tag}"`);
          return { tags: doc.tags.filter((t) => t !== tag) };
        });
        return noContent();
      },
    }),

    archiveRoute('/charts/:key/actions/move-to-archive', true),
    archiveRoute('/charts/:key/actions/move-out-of-archive', false),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/version/published/actions/copy',
      summary: 'Copies the published version into a new chart',
      answers: { 200: 'the new chart' },
      handler: async (ctx) => created(ctx, await service.copy(ctx.workspace, ctx.params.key!, 'published', ctx.workspace._id, ' (copy)')),
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/version/draft/actions/copy',
      summary: 'Copies the draft version into a new chart',
      answers: { 200: 'the new chart' },
      handler: async (ctx) => created(ctx, await service.copy(ctx.workspace, ctx.params.key!, 'draft', ctx.workspace._id, ' (copy)')),
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/version/published/actions/copy-to-workspace/:workspaceKey',
      summary: 'Copies the published version into a new chart of another workspace',
      answers: { 200: 'the new chart' },
      handler: async (ctx) => {
        if (ctx.principal.kind !== 'admin') {
          throw new ApiError(403, 'FORBIDDEN', 'Copying a chart to another workspace needs the company admin key');
        }
        const target = await workspaces.findActive(ctx.tenant, ctx.params.workspaceKey!);
        return created(ctx, await service.copy(ctx.workspace, ctx.params.key!, 'published', target._id, ''));
      },
    }),

    companyRoute({
      method: 'POST',
      path: '/charts/:key/version/published/actions/copy/from/:fromWorkspaceKey/to/:toWorkspaceKey',
      summary: "Copies a chart's published version from one workspace to another",
      answers: { 200: 'the new chart' },
      handler: async (ctx) => {
        const from = await workspaces.findActive(ctx.tenant, ctx.params.fromWorkspaceKey!);
        const to = await workspaces.findActive(ctx.tenant, ctx.params.toWorkspaceKey!);
        const doc = await service.copy(from, ctx.params.key!, 'published', to._id, '');
        return ok(chartRecord(doc, { baseUrl: baseUrl(publicUrl, ctx) }));
      },
    }),
  ];
}

const CHART_KEY_PATTERN = /^[A-Za-z0-9._~:@-]{1,100}$/;

function checkChartKey(key: string): string {
  if (!CHART_KEY_PATTERN.test(key)) {
    throw badRequest('GENERAL_ERROR', 'A chart key has 1 to 100 letters, digits or any of . _ ~ : @ -');
  }
  return key;
}
