import Type from 'typebox';

// Request body parts shared by the chart and event routes.

/** A whole chart drawing (docs/seatsio-behaviour.md, "Chart drawings"), checked by the domain. */
export const DrawingSchema = Type.Object({}, { additionalProperties: true, description: 'a whole chart drawing, with subChart or subChartFloors' });

export const CategoryKeySchema = Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 200 })]);
export const CategorySchema = Type.Object({
  key: CategoryKeySchema,
  label: Type.String({ maxLength: 200 }),
  color: Type.Optional(Type.String({ maxLength: 100 })),
  accessible: Type.Optional(Type.Boolean()),
});
