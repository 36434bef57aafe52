import Type from 'typebox';
import { parsePageRequest, type PageLimits, type PageRequest } from '../domain/pagination.js';
import type { Query } from '../http/query.js';

// Query parameters shared by several routes. Every value is a string on the wire; the
// handlers check and convert them (src/http/query.ts), these say which exist.

const Text = (description: string) => Type.Optional(Type.String({ description }));

const pageFields = {
  limit: Text('page size'),
  start_after_id: Text('the page of items after this id'),
  end_before_id: Text('the page of items before this id'),
};

/** A page of a list (docs/seatsio-behaviour.md, "Pagination"). */
export const PageQuery = Type.Object(pageFields);

/** The page a list request asks for (PageQuery's fields). */
export const pageRequestOf = (query: Query, limits: PageLimits): PageRequest =>
  parsePageRequest({ limit: query.one('limit'), start_after_id: query.one('start_after_id'), end_before_id: query.one('end_before_id') }, limits);

/** A page of an event's (or one object's) status changes (docs/history.md, "Routes"). */
export const HistoryListQuery = Type.Object({
  ...pageFields,
  filter: Text('only objects whose label contains this'),
  filterType: Text('CONTAINS (the only filter there is; the SDKs send it)'),
  sort: Text('objectLabel, status or date, optionally with :asc or :desc (default date:desc)'),
});

/** A page of a list filtered by name. */
export const FilteredPageQuery = Type.Object({ ...pageFields, filter: Text('only items whose name contains this') });

const chartExpandFields = {
  expand: Text('comma-separated: events, validation, venueType, zones, or all of them with all; repeatable'),
  validation: Text('true: include the validation'),
  eventsLimit: Text('how many events with expand=events (1..10)'),
};

/** One chart. */
export const ChartQuery = Type.Object(chartExpandFields);

/** A page of charts. */
export const ChartListQuery = Type.Object({
  ...pageFields,
  ...chartExpandFields,
  filter: Text('only charts whose name contains this'),
  tag: Text('only charts with this tag'),
});

/** `expand=objects` on status changes. */
export const ExpandQuery = Type.Object({ expand: Text('objects: answer with the objects changed') });

/** The objects of an event to describe. */
export const LabelsQuery = Type.Object({ label: Text('an object label; repeatable') });
