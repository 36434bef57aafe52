import Type from 'typebox';
import { addChannels, addToChannel, removeChannel, removeFromChannel, replaceChannels, updateChannel } from '../domain/channels.js';
import { newKey } from '../domain/keys.js';
import { checkChannelsReplaceable } from '../domain/season.js';
import { noContent, workspaceRoute, type RouteDef } from '../http/route.js';
import { ChannelChangeFields, ChannelObjectsFields, Channels, ChannelSchema } from './eventSchemas.js';
import type { EventService } from '../services/eventService.js';

// The channels of an event (docs/seatsio-behaviour.md,
// "Channels"). Each route is one change of the channel list (src/domain/channels.ts)
// written conditionally, so concurrent changes of one event all take effect.

const ReplaceBody = Type.Object({ channels: Channels });
// One channel object, or an array of them.
const AddBody = Type.Union([ChannelSchema, Channels]);
const UpdateBody = Type.Object(ChannelChangeFields);
const ObjectsBody = Type.Object(ChannelObjectsFields);

export function eventChannelRoutes(events: EventService): RouteDef[] {
  return [
    workspaceRoute({
      method: 'POST',
      path: '/events/:key/channels/replace',
      summary: "Replaces the event's channels",
      answers: { 204: 'replaced' },
      body: ReplaceBody,
      handler: async (ctx) => {
        await events.change(ctx.workspace, ctx.params.key!, (event, at) => {
          checkChannelsReplaceable(event);
          return { channels: replaceChannels(event.channels, ctx.body.channels, at.index, newKey) };
        });
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/channels',
      summary: 'Adds one or more channels to the event',
      answers: { 204: 'added' },
      body: AddBody,
      handler: async (ctx) => {
        const inputs = Array.isArray(ctx.body) ? ctx.body : [ctx.body];
        await events.change(ctx.workspace, ctx.params.key!, (event, at) => ({
          channels: addChannels(event.channels, inputs, at.index, newKey),
        }));
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/channels/:channelKey',
      summary: 'Changes a channel of the event',
      answers: { 204: 'changed' },
      body: UpdateBody,
      handler: async (ctx) => {
        await events.change(ctx.workspace, ctx.params.key!, (event, at) => ({
          channels: updateChannel(event.channels, ctx.params.channelKey!, ctx.body, at.index),
        }));
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'DELETE',
      path: '/events/:key/channels/:channelKey',
      summary: 'Removes a channel from the event',
      answers: { 204: 'removed' },
      handler: async (ctx) => {
        await events.change(ctx.workspace, ctx.params.key!, (event) => ({ channels: removeChannel(event.channels, ctx.params.channelKey!) }));
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'POST',
      path: '/events/:key/channels/:channelKey/objects',
      summary: 'Adds objects (and GA places) to a channel',
      answers: { 204: 'added' },
      body: ObjectsBody,
      handler: async (ctx) => {
        await events.change(ctx.workspace, ctx.params.key!, (event, at) => ({
          channels: addToChannel(event.channels, ctx.params.channelKey!, ctx.body, at.index),
        }));
        return noContent();
      },
    }),

    workspaceRoute({
      method: 'DELETE',
      path: '/events/:key/channels/:channelKey/objects',
      summary: 'Removes objects (and GA places) from a channel',
      answers: { 204: 'removed' },
      body: ObjectsBody,
      handler: async (ctx) => {
        await events.change(ctx.workspace, ctx.params.key!, (event, at) => ({
          channels: removeFromChannel(event.channels, ctx.params.channelKey!, ctx.body, at.index),
        }));
        return noContent();
      },
    }),
  ];
}
