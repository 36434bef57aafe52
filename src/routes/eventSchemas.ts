import Type from 'typebox';
import { MAX_CHANNELS, MAX_OBJECTS_PER_CHANNEL } from '../domain/channels.js';
import { CategoryKeySchema, CategorySchema } from './chartSchemas.js';

// Request body parts shared by the event routes (create, update, channels, for sale).
// The caps keep one request's work bounded; the domain checks what a schema cannot.

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/** Object labels as the chart composes them ("Section A-A-1"). */
export const Label = Type.String({ minLength: 1, maxLength: 200 });
export const EventKey = Type.String({ minLength: 1, maxLength: 200 });
const Name = Type.String({ maxLength: 200 });

/** Objects of a whole for-sale config: up to a 100,000-seat chart's worth. */
export const MAX_FOR_SALE_OBJECTS = 100_000;
const MAX_AREAS = 1_000;

/** GA label -> places; the domain checks the labels and capacities. */
export const AreaPlaces = Type.Record(Type.String(), Type.Integer({ minimum: 1 }), { maxProperties: MAX_AREAS });

export const ChannelObjectsFields = {
  objects: Type.Optional(Nullable(Type.Array(Label, { maxItems: MAX_OBJECTS_PER_CHANNEL }))),
  areaPlaces: Type.Optional(Nullable(AreaPlaces)),
};

const ChannelName = Type.String({ minLength: 1, maxLength: 200 });

export const ChannelChangeFields = {
  name: Type.Optional(ChannelName),
  color: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  index: Type.Optional(Nullable(Type.Number())),
  ...ChannelObjectsFields,
};

export const ChannelSchema = Type.Object({
  ...ChannelChangeFields,
  key: Type.String({ minLength: 1, maxLength: 200 }),
  name: ChannelName,
});
export const Channels = Type.Array(ChannelSchema, { maxItems: MAX_CHANNELS });

export const ForSaleFields = {
  objects: Type.Optional(Nullable(Type.Array(Label, { maxItems: MAX_FOR_SALE_OBJECTS }))),
  areaPlaces: Type.Optional(Nullable(AreaPlaces)),
  categories: Type.Optional(Nullable(Type.Array(CategoryKeySchema, { maxItems: 1000 }))),
};

const TableBooking = Type.Union([Type.Literal('BY_TABLE'), Type.Literal('BY_SEAT')]);
const Tables = Type.Record(Type.String(), TableBooking, { maxProperties: MAX_OBJECTS_PER_CHANNEL });

/** The settings create and update share (docs/seatsio-behaviour.md, "Events"). */
export const EventSettingsFields = {
  name: Type.Optional(Nullable(Name)),
  date: Type.Optional(Nullable(Type.String({ maxLength: 10 }))),
  tableBookingConfig: Type.Optional(
    Nullable(
      Type.Object({
        mode: Type.Union([Type.Literal('INHERIT'), Type.Literal('CUSTOM'), Type.Literal('ALL_BY_SEAT'), Type.Literal('ALL_BY_TABLE')]),
        tables: Type.Optional(Nullable(Tables)),
      }),
    ),
  ),
  tableBookingModes: Type.Optional(Nullable(Tables)),
  bookWholeTables: Type.Optional(Nullable(Type.Boolean())),
  objectCategories: Type.Optional(Nullable(Type.Record(Type.String(), CategoryKeySchema, { maxProperties: MAX_FOR_SALE_OBJECTS }))),
  categories: Type.Optional(Nullable(Type.Array(CategorySchema, { maxItems: 1000 }))),
};

/** One event of POST /events and of create-multiple. */
export const NewEventFields = {
  eventKey: Type.Optional(EventKey),
  ...EventSettingsFields,
  channels: Type.Optional(Nullable(Channels)),
  forSaleConfig: Type.Optional(Nullable(Type.Object({ forSale: Type.Boolean(), ...ForSaleFields }))),
};
