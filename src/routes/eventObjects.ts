import Type from 'typebox';
import { checkObjectCount } from '../domain/statusChangeRequest.js';
import { encodedReply } from '../http/encodedReply.js';
import { noContent, ok, workspaceRoute, type RouteDef } from '../http/route.js';
import type { ObjectInfoService } from '../services/objectInfoService.js';
import { LabelsQuery } from './querySchemas.js';

// Reading and annotating the objects of an event (docs/seatsio-behaviour.md, "Object
// info"): object info, extra data, and the objects of an order.

const ExtraData = Type.Record(Type.String(), Type.Unknown());
const OneBody = Type.Object({ extraData: ExtraData });
const ManyBody = Type.Object({ extraData: Type.Record(Type.String({ maxLength: 200 }), ExtraData) });

export function eventObjectRoutes(objects: ObjectInfoService): RouteDef[] {
  return [
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/objects',
      summary: 'Object info of the labels given',
      answers: { 200: 'label -> object info' },
      query: LabelsQuery,
      handler: async (ctx) => {
        const labels = [...new Set(ctx.query.all('label'))];
        checkObjectCount(labels.length);
        return ok(await objects.describe(ctx.workspace, ctx.params.key!, labels));
      },
    }),

    // What a seat map fetches when it opens: the same bytes for every viewer of a chart
    // version, brotli or gzip as the client accepts, and 304 while its ETag still holds.
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/layout',
      summary: "Every object of the event's chart at its drawing position, with its category: what a page draws",
      answers: {
        200: '{publicKey, layoutVersion, bounds, categories, objects: [{label, objectType, x, y, categoryKey, categoryLabel, color, capacity?, sectionLabel?}]}',
        304: 'unchanged since the ETag sent in If-None-Match',
      },
      handler: (ctx) => {
        const body = objects.layout(ctx.workspace, ctx.params.key!);
        return body instanceof Promise ? body.then((made) => encodedReply(made, ctx.headers)) : encodedReply(body, ctx.headers);
      },
    }),

    workspaceRoute({
      method: 'GET',
      path: '/events/:key/objects/:label',
      summary: 'Object info of one object',
      answers: { 200: 'the object info' },
      handler: async (ctx) => ok((await objects.describe(ctx.workspace, ctx.params.key!, [ctx.params.label!]))[ctx.params.label!]),
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/objects/:label/actions/update-extra-data',
      summary: 'Replaces the extra data of one object',
      answers: { 204: 'replaced' },
      body: OneBody,
      handler: async (ctx) => {
        await objects.setExtraData(ctx.workspace, ctx.params.key!, [[ctx.params.label!, ctx.body.extraData]]);
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/actions/update-extra-data',
      summary: 'Replaces the extra data of several objects',
      answers: { 204: 'replaced' },
      body: ManyBody,
      handler: async (ctx) => {
        const entries = Object.entries(ctx.body.extraData);
        checkObjectCount(entries.length);
        await objects.setExtraData(ctx.workspace, ctx.params.key!, entries);
        return noContent();
      },
    }),

    // The labels of the objects booked (or otherwise changed) under an order id.
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/orders/:orderId',
      summary: 'The labels of the objects changed under an order id',
      answers: { 200: 'the labels, sorted' },
      handler: async (ctx) => ok(await objects.orderLabels(ctx.workspace, ctx.params.key!, ctx.params.orderId!)),
    }),
  ];
}
