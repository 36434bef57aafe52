import { classifyFailures } from '../domain/chartValidation.js';
import { notFound } from '../domain/errors.js';
import { ifNoneMatchHits } from '../http/encodedReply.js';
import { noContent, ok, workspaceRoute, type RouteDef, type WorkspaceContext } from '../http/route.js';
import { VERSION_NAMES, type VersionName } from '../domain/chart.js';
import type { ChartService } from '../services/chartService.js';

// The versions of a chart (docs/seatsio-behaviour.md, "Chart versions and status"): the raw
// drawings, their thumbnails, validation, publishing and discarding the draft.

function versionName(ctx: WorkspaceContext): VersionName {
  const which = ctx.params.version!;
  if (!(VERSION_NAMES as readonly string[]).includes(which)) {
    throw notFound('NOT_FOUND', `A chart has a published and a draft version, not "${which}"`);
  }
  return which as VersionName;
}

export function chartVersionRoutes(service: ChartService): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/charts/:key/version/:version',
      summary: 'The drawing of the published or draft version',
      answers: { 200: 'the drawing' },
      handler: async (ctx) => {
        const { json } = await service.drawingText(ctx.workspace, ctx.params.key!, versionName(ctx));
        return { status: 200, body: json, contentType: 'application/json' };
      },
    }),

    workspaceRoute({
      method: 'GET',
      path: '/charts/:key/version/:version/thumbnail',
      summary: 'A PNG thumbnail of the published or draft version',
      answers: { 200: 'the thumbnail', 304: 'unchanged since the ETag sent in If-None-Match' },
      produces: 'image/png',
      handler: async (ctx) => {
        const { version } = await service.findVersion(ctx.workspace, ctx.params.key!, versionName(ctx));
        const etag = `"${version.drawingId}"`;
        const headers = { ETag: etag, 'Cache-Control': 'private, no-cache' };
        if (ifNoneMatchHits(ctx.headers.ifNoneMatch, etag)) return { status: 304, headers };
        const png = await service.thumbnail(ctx.params.key!, version);
        return { status: 200, body: png, contentType: 'image/png', headers };
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/version/:version/actions/validate',
      summary: "Validates the published or draft version against the company's validation settings",
      answers: { 200: '{errors, warnings}' },
      handler: async (ctx) => {
        const { version } = await service.findVersion(ctx.workspace, ctx.params.key!, versionName(ctx));
        return ok(classifyFailures(version.failedValidators, ctx.tenant.company.settings.chartValidation));
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/version/draft/actions/publish',
      summary: 'Publishes the draft version',
      answers: { 204: 'published' },
      handler: async (ctx) => {
        await service.publish(ctx.workspace, ctx.params.key!, ctx.tenant.company.settings.chartValidation);
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/charts/:key/version/draft/actions/discard',
      summary: 'Discards the draft version',
      answers: { 204: 'discarded' },
      handler: async (ctx) => {
        await service.discard(ctx.workspace, ctx.params.key!);
        return noContent();
      },
    }),
  ];
}
