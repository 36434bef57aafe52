import type { RouteDef } from '../http/route.js';
import type { ApiDeps } from './deps.js';
import type { EventCatalog } from './eventCatalog.js';

export function objectStatusRoutes(_deps: ApiDeps, _catalog: EventCatalog): RouteDef[] {
  return [];
}
