import { accountRoutes } from '../api/accounts.js';
import { chartCategoryRoutes } from '../api/chartCategories.js';
import { chartRoutes } from '../api/charts.js';
import { ChartService } from '../api/chartService.js';
import { chartVersionRoutes } from '../api/chartVersions.js';
import type { ApiDeps } from '../api/deps.js';
import { EventCatalog } from '../api/eventCatalog.js';
import { eventChannelRoutes } from '../api/eventChannels.js';
import { eventForSaleRoutes } from '../api/eventForSale.js';
import { eventRoutes } from '../api/events.js';
import { EventService } from '../api/eventService.js';
import { objectStatusRoutes } from '../api/objectStatus.js';
import { eventObjectRoutes } from '../api/eventObjects.js';
import { eventReportRoutes } from '../api/eventReports.js';
import { usageRoutes } from '../api/usage.js';
import { holdTokenRoutes } from '../api/holdTokens.js';
import { operationRoutes } from '../api/operations.js';
import { systemRoutes } from '../api/system.js';
import { workspaceRoutes } from '../api/workspaces.js';
import type { RouteDef } from './route.js';
import { RouteTable } from './routeTable.js';

// Every route of the server, by resource. Follow an import from here to find a handler.
export function buildRoutes(deps: ApiDeps): RouteTable<RouteDef> {
  const table = new RouteTable<RouteDef>();
  const charts = new ChartService(deps.repos.charts);
  const catalog = new EventCatalog(deps.repos, charts, deps.bus);
  const events = new EventService(deps, charts, catalog);
  charts.onPublishedChange = async (chartId) => {
    await catalog.chartChanged(chartId);
    await events.chartPublished(chartId);
  };
  const all = [
    ...operationRoutes(deps),
    ...systemRoutes(deps),
    ...accountRoutes(deps),
    ...workspaceRoutes(deps),
    ...holdTokenRoutes(deps),
    ...chartRoutes(deps, charts),
    ...chartVersionRoutes(deps, charts),
    ...chartCategoryRoutes(deps, charts),
    ...eventRoutes(events),
    ...eventChannelRoutes(events),
    ...eventForSaleRoutes(events),
    ...objectStatusRoutes(deps, catalog),
    ...eventObjectRoutes(deps, catalog),
    ...eventReportRoutes(deps, catalog),
    ...usageRoutes(deps),
  ];
  for (const route of all) table.add(route.method, route.path, route);
  return table;
}
