import { isCssColor } from './cssColors.js';
import { badRequest, notFound } from './errors.js';
import type { ObjectIndex } from './objectIndex.js';
import { knownAreaPlaces, knownLabels } from './objectLabels.js';
import type { Channel } from './event.js';

// The channels of an event (docs/seatsio-behaviour.md, "Channels"): every change builds the
// new list from the old one and the input, then checks the list as a whole. Pure: the
// channel ids a change needs come from `newId`.
//
// Rules of a list: keys and names unique; an object in at most one channel; a GA area
// either assigned whole (in `objects`) to one channel or in places (`areaPlaces`) to any
// number of channels, never both, and never more places than it has.

export const MAX_CHANNELS = 50;
export const MAX_OBJECTS_PER_CHANNEL = 10_000;
/** Booking calls use this key for "objects without a channel" (docs/seatsio-behaviour.md, "Channels"). */
export const NO_CHANNEL = 'NO_CHANNEL';

export interface ChannelObjectsInput {
  objects?: string[] | null;
  areaPlaces?: Record<string, number> | null;
}

export interface ChannelInput extends ChannelObjectsInput {
  key: string;
  name: string;
  color?: string | null;
  index?: number | null;
}

export type ChannelChange = Partial<Omit<ChannelInput, 'key'>>;

const channelNotFound = (key: string) => notFound('CHANNEL_NOT_FOUND', `Channel not found: the event has no channel with key ${key}`);

function checkColor(color: string | null | undefined): string | null {
  if (color === undefined || color === null) return null;
  if (!isCssColor(color)) throw badRequest('GENERAL_ERROR', `channel color "${color}" is not a valid HTML/CSS color`);
  return color;
}

function newChannel(input: ChannelInput, id: string, index: ObjectIndex): Channel {
  if (input.key === NO_CHANNEL) throw badRequest('GENERAL_ERROR', `${NO_CHANNEL} is reserved for objects without a channel`);
  return {
    id,
    key: input.key,
    name: input.name,
    color: checkColor(input.color),
    index: input.index ?? null,
    objects: knownLabels(index, input.objects ?? []),
    areaPlaces: knownAreaPlaces(index, input.areaPlaces ?? {}),
  };
}

/** Checks the rules of a whole channel list (see the top of this file); returns it. */
export function checkChannels(channels: Channel[], index: ObjectIndex): Channel[] {
  if (channels.length > MAX_CHANNELS) throw badRequest('GENERAL_ERROR', `an event has at most ${MAX_CHANNELS} channels`);
  const keys = new Set<string>();
  const names = new Set<string>();
  const owner = new Map<string, string>();
  for (const channel of channels) {
    if (keys.has(channel.key)) throw badRequest('DUPLICATE_CHANNEL_KEY', `channel keys must be unique: ${channel.key} is given twice`);
    if (names.has(channel.name)) throw badRequest('DUPLICATE_CHANNEL_NAME', `channel names must be unique: "${channel.name}" is given twice`);
    keys.add(channel.key);
    names.add(channel.name);
    if (channel.objects.length > MAX_OBJECTS_PER_CHANNEL) {
      throw badRequest('GENERAL_ERROR', `a channel has at most ${MAX_OBJECTS_PER_CHANNEL} objects; ${channel.key} would have ${channel.objects.length}`);
    }
    for (const label of channel.objects) {
      const other = owner.get(label);
      if (other !== undefined) {
        throw badRequest('OBJECT_ALREADY_IN_CHANNEL', `${label} cannot be in channel ${channel.key}: it is in channel ${other}, and an object is in one channel at most`);
      }
      owner.set(label, channel.key);
    }
  }
  const placesTaken = new Map<string, number>();
  for (const channel of channels) {
    for (const [label, places] of Object.entries(channel.areaPlaces)) {
      const whole = owner.get(label);
      if (whole !== undefined) {
        throw badRequest('GENERAL_ERROR', `${label} is assigned whole to channel ${whole}; it cannot also have places in channel ${channel.key}`);
      }
      placesTaken.set(label, (placesTaken.get(label) ?? 0) + places);
    }
  }
  for (const [label, places] of placesTaken) {
    // An area the chart no longer has (republished) keeps what it had; there is nothing to overbook.
    const capacity = index.byLabel.get(label)?.capacity ?? Infinity;
    if (places > capacity) throw badRequest('GENERAL_ERROR', `channels assign ${places} places of ${label}, which has ${capacity}`);
  }
  return channels;
}

/** The channel list `inputs` describe. A key that was there already keeps its id. */
export function replaceChannels(existing: Channel[], inputs: ChannelInput[], index: ObjectIndex, newId: () => string): Channel[] {
  const ids = new Map(existing.map((c) => [c.key, c.id]));
  return checkChannels(
    inputs.map((input) => newChannel(input, ids.get(input.key) ?? newId(), index)),
    index,
  );
}

/** The list with `inputs` appended; a key already there gets a 400. */
export function addChannels(existing: Channel[], inputs: ChannelInput[], index: ObjectIndex, newId: () => string): Channel[] {
  return checkChannels([...existing, ...inputs.map((input) => newChannel(input, newId(), index))], index);
}

function changeOne(existing: Channel[], key: string, change: (channel: Channel) => Channel): Channel[] {
  if (!existing.some((c) => c.key === key)) throw channelNotFound(key);
  return existing.map((c) => (c.key === key ? change(c) : c));
}

/** The fields given replace the channel's; `objects` and `areaPlaces` replace whole lists. */
export function updateChannel(existing: Channel[], key: string, change: ChannelChange, index: ObjectIndex): Channel[] {
  const updated = changeOne(existing, key, (channel) => ({
    ...channel,
    ...(change.name !== undefined && { name: change.name }),
    ...(change.color !== undefined && { color: checkColor(change.color) }),
    ...(change.index !== undefined && { index: change.index }),
    ...(change.objects !== undefined && { objects: knownLabels(index, change.objects ?? []) }),
    ...(change.areaPlaces !== undefined && { areaPlaces: knownAreaPlaces(index, change.areaPlaces ?? {}) }),
  }));
  return checkChannels(updated, index);
}

export function removeChannel(existing: Channel[], key: string): Channel[] {
  if (!existing.some((c) => c.key === key)) throw channelNotFound(key);
  return existing.filter((c) => c.key !== key);
}

/**
 * Assigns more objects and places to a channel. Objects in another channel move to this
 * one (as the seats.io SDK tests expect); places add to those the channel has.
 */
export function addToChannel(existing: Channel[], key: string, input: ChannelObjectsInput, index: ObjectIndex): Channel[] {
  const objects = knownLabels(index, input.objects ?? []);
  const areaPlaces = knownAreaPlaces(index, input.areaPlaces ?? {});
  const moving = new Set(objects);
  const withoutMoved = existing.map((c) => (c.key === key ? c : { ...c, objects: c.objects.filter((label) => !moving.has(label)) }));
  const updated = changeOne(withoutMoved, key, (channel) => {
    const places = { ...channel.areaPlaces };
    for (const [label, count] of Object.entries(areaPlaces)) places[label] = (places[label] ?? 0) + count;
    return { ...channel, objects: [...new Set([...channel.objects, ...objects])], areaPlaces: places };
  });
  return checkChannels(updated, index);
}

/** Takes objects and places off a channel; what it does not have is ignored, unknown labels are not. */
export function removeFromChannel(existing: Channel[], key: string, input: ChannelObjectsInput, index: ObjectIndex): Channel[] {
  const removing = new Set(knownLabels(index, input.objects ?? []));
  const areaPlaces = knownAreaPlaces(index, input.areaPlaces ?? {});
  return changeOne(existing, key, (channel) => {
    const places = { ...channel.areaPlaces };
    for (const [label, count] of Object.entries(areaPlaces)) {
      const left = (places[label] ?? 0) - count;
      if (left > 0) places[label] = left;
      else delete places[label];
    }
    return { ...channel, objects: channel.objects.filter((label) => !removing.has(label)), areaPlaces: places };
  });
}
