import type { RouteDef } from '../http/route.js';
import type { ChartService } from './chartService.js';
import type { ApiDeps } from './deps.js';
import type { EventCatalog } from './eventCatalog.js';

export function eventRoutes(_deps: ApiDeps, _charts: ChartService, _catalog: EventCatalog): RouteDef[] {
  return [];
}
