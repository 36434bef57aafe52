import Type from 'typebox';
import { notFound } from '../domain/errors.js';
import { describeEventObject } from '../domain/eventObjectInfo.js';
import type { ChartObject } from '../domain/objectIndex.js';
import { objectState } from '../domain/objectRecords.js';
import { checkObjectCount, extraDataText } from '../domain/statusChangeRequest.js';
import { noContent, ok, workspaceRoute, type RouteDef } from '../http/route.js';
import { eventKeys } from '../inventory/eventKeys.js';
import { readSnapshots } from '../inventory/objectSnapshots.js';
import type { ApiDeps } from './deps.js';
import type { EventCatalog, LoadedEvent } from './eventCatalog.js';

// Reading and annotating the objects of an event (compat-notes §3): object info, extra
// data, and the objects of an order.

const ExtraData = Type.Record(Type.String(), Type.Unknown());
const OneBody = Type.Object({ extraData: ExtraData });
const ManyBody = Type.Object({ extraData: Type.Record(Type.String({ maxLength: 200 }), ExtraData) });

const objectNotFound = (label: string) => notFound('OBJECT_NOT_FOUND', `Object not found: ${label}`);

function objectOf(loaded: LoadedEvent, label: string): ChartObject {
  const object = loaded.index.byLabel.get(label);
  if (!object) throw objectNotFound(label);
  return object;
}

export function eventObjectRoutes(deps: ApiDeps, catalog: EventCatalog): RouteDef[] {
  const { redis } = deps;

  async function infos(loaded: LoadedEvent, labels: string[]): Promise<Record<string, unknown>> {
    const objects = labels.map((label) => objectOf(loaded, label));
    const snapshots = await readSnapshots(redis, loaded.event, loaded.index, labels, Date.now());
    const result: Record<string, unknown> = {};
    for (const object of objects) {
      result[object.label] = describeEventObject(loaded.event, loaded.index, object, snapshots.get(object.label)!);
    }
    return result;
  }

  async function setExtraData(loaded: LoadedEvent, entries: [string, Record<string, unknown>][]): Promise<void> {
    const fields = new Map(entries.map(([label, data]) => [objectOf(loaded, label).label, extraDataText(label, data)!]));
    if (fields.size > 0) await redis.hset(eventKeys(loaded.event).extraData, fields);
  }

  return [
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/objects',
      handler: async (ctx) => {
        const labels = [...new Set(ctx.query.all('label'))];
        checkObjectCount(labels.length);
        return ok(await infos(await catalog.get(ctx.workspace, ctx.params.key!), labels));
      },
    }),

    workspaceRoute({
      method: 'GET',
      path: '/events/:key/objects/:label',
      handler: async (ctx) => {
        const loaded = await catalog.get(ctx.workspace, ctx.params.key!);
        return ok((await infos(loaded, [ctx.params.label!]))[ctx.params.label!]);
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/objects/:label/actions/update-extra-data',
      body: OneBody,
      handler: async (ctx) => {
        await setExtraData(await catalog.get(ctx.workspace, ctx.params.key!), [[ctx.params.label!, ctx.body.extraData]]);
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/actions/update-extra-data',
      body: ManyBody,
      handler: async (ctx) => {
        const entries = Object.entries(ctx.body.extraData);
        checkObjectCount(entries.length);
        await setExtraData(await catalog.get(ctx.workspace, ctx.params.key!), entries);
        return noContent();
      },
    }),

    // The labels of the objects booked (or otherwise changed) under an order id.
    workspaceRoute({
      method: 'GET',
      path: '/events/:key/orders/:orderId',
      handler: async (ctx) => {
        const loaded = await catalog.get(ctx.workspace, ctx.params.key!);
        const records = await redis.hgetall(eventKeys(loaded.event).objects);
        const now = Date.now();
        const labels = Object.entries(records)
          .filter(([label, record]) => {
            const object = loaded.index.byLabel.get(label);
            return object && object.objectType !== 'generalAdmission' && objectState(record, () => Infinity, now).orderId === ctx.params.orderId;
          })
          .map(([label]) => label)
          .sort();
        return ok(labels);
      },
    }),
  ];
}
