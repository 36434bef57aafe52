import { isCluster, redisOutageAnswer, type RedisClient } from './inventory/redis.js';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { ConcurrencyLimits } from './http/concurrencyLimits.js';
import { Metrics } from './http/metrics.js';
import type { RouteDef } from './http/route.js';
import { ServerStatus } from './http/serverStatus.js';
import { EventConfigStore } from './inventory/eventConfigStore.js';
import { bulkReadsFor } from './inventory/bulkReader.js';
import { EventObjectStore } from './inventory/eventObjectStore.js';
import { HistoryStreams } from './inventory/historyStreams.js';
import { HoldTokenStore } from './inventory/holdTokenStore.js';
import { HistoryDrain } from './jobs/historyDrain.js';
import { HoldExpiry } from './jobs/holdExpiry.js';
import { AtMostOnceCalls } from './inventory/atMostOnce.js';
import { RedisClock } from './inventory/redisClock.js';
import { Scripts } from './inventory/scripts.js';
import { SeasonStore } from './inventory/seasonStore.js';
import { UsedObjects } from './inventory/usedObjects.js';
import type { InvalidationBus } from './metadata/invalidationBus.js';
import { repositories, type Repositories } from './metadata/repositories.js';
import { TenantCache } from './metadata/tenantCache.js';
import type { EventLog } from './metadata/eventLog.js';
import { accountRoutes } from './routes/accounts.js';
import { withApiDescription } from './routes/apiDescription.js';
import { chartCategoryRoutes } from './routes/chartCategories.js';
import { chartRoutes } from './routes/charts.js';
import { chartVersionRoutes } from './routes/chartVersions.js';
import { eventChannelRoutes } from './routes/eventChannels.js';
import { eventForSaleRoutes } from './routes/eventForSale.js';
import { eventObjectRoutes } from './routes/eventObjects.js';
import { eventLogRoutes } from './routes/eventLog.js';
import type { TicketBuyers } from './metadata/ticketBuyers.js';
import { eventReportRoutes } from './routes/eventReports.js';
import { chartReportRoutes } from './routes/chartReports.js';
import { eventRoutes } from './routes/events.js';
import { holdTokenRoutes } from './routes/holdTokens.js';
import { legacyV1Routes } from './routes/legacyV1.js';
import { historyRoutes } from './routes/statusChangeHistory.js';
import { objectStatusRoutes } from './routes/objectStatus.js';
import { AvailabilityViews } from './services/availabilityViews.js';
import { BestAvailableService } from './services/bestAvailableService.js';
import { operationRoutes } from './routes/operations.js';
import { seasonRoutes } from './routes/seasons.js';
import { systemRoutes } from './routes/system.js';
import { ticketBuyerRoutes } from './routes/ticketBuyers.js';
import { boxOfficeRoutes } from './routes/boxOffice.js';
import { usageRoutes } from './routes/usageReports.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { AccountService } from './services/accountService.js';
import { ChartService } from './services/chartService.js';
import { EventCatalog } from './services/eventCatalog.js';
import { EventService } from './services/eventService.js';
import { HealthChecks } from './services/healthChecks.js';
import { HistoryService } from './services/historyService.js';
import { HoldTokenService } from './services/holdTokenService.js';
import { ObjectIndexes } from './services/objectIndexes.js';
import { ObjectInfoService } from './services/objectInfoService.js';
import { EventReportService } from './services/eventReportService.js';
import { ChartReportService } from './services/chartReportService.js';
import { ReportLane } from './services/reportLane.js';
import { SaleConfigSync } from './services/saleConfigSync.js';
import { SeasonService } from './services/seasonService.js';
import { StatusChangeService } from './services/statusChangeService.js';
import { UsageService } from './services/usageService.js';
import { WorkspaceService } from './services/workspaceService.js';
import { StatusStreamHub } from './services/statusStreamHub.js';
import { HistoryFollower, historyRange } from './inventory/historyFollower.js';
import { serveStatusStream } from './http/statusStreamRoute.js';
import type { TemplatedApp } from 'uWebSockets.js';

// The composition root: every store, cache, service and route of the server is built here,
// once, and handed what it uses through its constructor. To find where a request goes,
// follow its route module from the list in routesOf; to find what a service uses, read
// its constructor call here.

export interface Connections {
  /** Commands (scripts, reads, writes) on the inventory Redis. */
  redis: RedisClient;
  /** The status script's own connection, which never re-sends an unanswered command. */
  statusRedis: RedisClient;
  /** The metadata database. */
  db: Db;
  /** Cache invalidation between server processes. */
  bus: InvalidationBus;
  /** BullMQ's producer side (hold expiry jobs): no key prefix, BullMQ puts its own. */
  jobsRedis: RedisClient;
}

/** What the server is made of; tests reach in here for white-box checks. */
export interface AppParts extends Connections {
  repos: Repositories;
  tenants: TenantCache;
  metrics: Metrics;
  status: ServerStatus;
  /** Requests in flight per company and lane, against the configured limits (docs/operations.md, "Concurrency limits"). */
  concurrency: ConcurrencyLimits;
  scripts: Scripts;
  redisClock: RedisClock;
  statusCalls: AtMostOnceCalls;
  holdTokens: HoldTokenStore;
  /** The hold tokens' expiry jobs; src/jobs/backgroundJobs.ts runs them. */
  holdExpiry: HoldExpiry;
  charts: ChartService;
  events: EventService;
  statusChanges: StatusChangeService;
  historyStreams: HistoryStreams;
  /** Moves the history into MongoDB; src/jobs/backgroundJobs.ts runs it. */
  historyDrain: HistoryDrain;
  /** Every route, by resource. */
  routes: RouteDef[];
  /** The live status stream's subscribers and followers (docs/status-stream.md). */
  statusStream: StatusStreamHub;
  /** Registers the WebSocket routes on the HTTP server's app. */
  webSockets: (app: TemplatedApp) => void;
}

/** What the route modules are built from. */
export interface RouteServices {
  health: HealthChecks;
  status: ServerStatus;
  metrics: Metrics;
  historyStreams: HistoryStreams;
  accounts: AccountService;
  workspaces: WorkspaceService;
  holdTokens: HoldTokenService;
  charts: ChartService;
  events: EventService;
  seasons: SeasonService;
  statusChanges: StatusChangeService;
  bestAvailable: BestAvailableService;
  objectInfo: ObjectInfoService;
  history: HistoryService;
  eventReports: EventReportService;
  chartReports: ChartReportService;
  usage: UsageService;
  eventLog: EventLog;
  ticketBuyers: TicketBuyers;
  tenants: TenantCache;
}

/**
 * Every route, by resource, and the API description of them all. Building a route uses no
 * service (handlers do, when called), so docs/api.md is generated from this list without
 * connections (src/apiReference.ts).
 */
export function routesOf(s: RouteServices, config: Pick<Config, 'publicUrl' | 'legacyV1Prefix'>): RouteDef[] {
  return withApiDescription([
    ...operationRoutes(s.health, s.status, s.metrics, s.historyStreams),
    ...systemRoutes(s.accounts),
    ...accountRoutes(s.accounts),
    ...workspaceRoutes(s.workspaces),
    ...holdTokenRoutes(s.holdTokens),
    ...chartRoutes(s.charts, s.workspaces, config.publicUrl),
    ...chartVersionRoutes(s.charts),
    ...chartCategoryRoutes(s.charts),
    ...eventRoutes(s.events, s.seasons),
    ...seasonRoutes(s.events, s.seasons),
    ...eventChannelRoutes(s.events),
    ...eventForSaleRoutes(s.events),
    ...objectStatusRoutes(s.statusChanges, s.bestAvailable),
    ...eventObjectRoutes(s.objectInfo),
    ...historyRoutes(s.history),
    ...eventReportRoutes(s.eventReports),
    ...chartReportRoutes(s.chartReports),
    ...usageRoutes(s.usage),
    ...eventLogRoutes(s.eventLog),
    ...ticketBuyerRoutes(s.ticketBuyers),
    ...boxOfficeRoutes(),
    ...legacyV1Routes(config.legacyV1Prefix, { tenants: s.tenants, statusChanges: s.statusChanges, bestAvailable: s.bestAvailable, holdTokens: s.holdTokens, objectInfo: s.objectInfo }),
  ]);
}

export function compose(
  connections: Connections,
  config: Pick<Config, 'publicUrl' | 'redisTimeoutMs' | 'maxPendingStatusChanges' | 'redisKeyPrefix' | 'legacyV1Prefix' | 'concurrencyLimits' | 'statusStream'>,
  logger?: Logger,
): AppParts {
  const { redis, statusRedis, db, bus, jobsRedis } = connections;

  // Stores: MongoDB repositories and Redis inventory.
  const repos = repositories(db);
  const scripts = new Scripts(redis, statusRedis);
  const redisClock = new RedisClock(statusRedis);
  const statusCalls = new AtMostOnceCalls(scripts, statusRedis, redisClock, {
    timeoutMs: config.redisTimeoutMs,
    maxOutstanding: config.maxPendingStatusChanges,
  });
  const holdTokens = new HoldTokenStore(redis, scripts, config.redisKeyPrefix);
  const eventObjects = new EventObjectStore(redis, bulkReadsFor(redis, config.redisTimeoutMs));
  const usedObjects = new UsedObjects(redis, scripts);
  const historyStreams = new HistoryStreams(redis, config.redisKeyPrefix);
  const historyDrain = new HistoryDrain(historyStreams, repos.statusChanges, usedObjects);
  const eventConfig = new EventConfigStore(redis, scripts, (event) => historyStreams.noteChanged([event]), (event) => historyDrain.countUndrained(event));
  // Idle entries of an expiry change stay past a status call's timeout, and a margin for a stalled process.
  const holdExpiry = new HoldExpiry(jobsRedis, config.redisKeyPrefix, holdTokens, statusCalls, historyStreams, logger, config.redisTimeoutMs + 5_000);

  // Caches kept coherent across processes through the bus.
  const tenants = new TenantCache(repos.companies, repos.workspaces, bus);
  const indexes = new ObjectIndexes(repos.charts);
  const seasonStore = new SeasonStore(redis, scripts);
  const catalog = new EventCatalog(repos, indexes, bus, seasonStore);

  // What the HTTP server reports about itself (reports yield to other requests through it),
  // and what it counts against each company's concurrency limits.
  const metrics = new Metrics();
  const status = new ServerStatus();
  const concurrency = new ConcurrencyLimits(config.concurrencyLimits);

  // Services.
  const saleConfig = new SaleConfigSync(repos.events, repos.charts, indexes, eventConfig);
  const charts = new ChartService(
    repos.charts,
    repos.events,
    indexes,
    async (chartId) => {
      await catalog.chartChanged(chartId);
      await saleConfig.chartPublished(chartId);
    },
    repos.eventLog,
  );
  const events = new EventService(repos.events, repos.charts, charts, indexes, catalog, saleConfig, eventConfig, repos.eventLog);
  const seasons = new SeasonService(repos.events, events, catalog, saleConfig, seasonStore);
  const objectInfo = new ObjectInfoService(catalog, eventObjects);
  const statusChanges = new StatusChangeService(
    catalog, holdTokens, statusCalls, eventObjects, historyStreams, holdExpiry,
    (workspace, eventKey, labels) => objectInfo.describe(workspace, eventKey, labels),
    isCluster(statusRedis),
  );
  const holdTokenService = new HoldTokenService(holdTokens, holdExpiry);
  const bestAvailable = new BestAvailableService(catalog, new AvailabilityViews(eventObjects), statusChanges);
  const reportLane = new ReportLane(() => status.inFlight);
  const eventReports = new EventReportService(objectInfo, reportLane);
  const chartReports = new ChartReportService(charts, indexes, reportLane);
  const usage = new UsageService(usedObjects, repos.events);
  const accounts = new AccountService(repos, tenants);
  const workspaces = new WorkspaceService(repos.workspaces, repos.companies, tenants, repos.eventLog);
  const health = new HealthChecks([redis, statusRedis], db);

  const history = new HistoryService(catalog, repos.statusChanges);
  const routes = routesOf(
    { health, status, metrics, historyStreams, accounts, workspaces, holdTokens: holdTokenService, charts, events, seasons, statusChanges, bestAvailable, objectInfo, history, eventReports, chartReports, usage, eventLog: repos.eventLog, ticketBuyers: repos.ticketBuyers, tenants },
    config,
  );

  // The live status stream: each followed event's history is read as it is written.
  const statusStream = new StatusStreamHub(
    {
      objects: eventObjects,
      follow: (loaded) => new HistoryFollower(scripts, loaded.event),
      range: historyRange(redis, repos.statusChanges),
      reload: (loaded) => catalog.reload(loaded.event.workspaceId, loaded.event.key),
      logger,
    },
    config.statusStream,
  );
  const webSockets = (app: TemplatedApp) => {
    serveStatusStream(app, { hub: statusStream, tenants, catalog, maxMessageBytes: config.statusStream.maxMessageBytes, outageAnswer: redisOutageAnswer });
  };

  return { ...connections, statusStream, webSockets, repos, tenants, metrics, status, concurrency, scripts, redisClock, statusCalls, holdTokens, holdExpiry, charts, events, statusChanges, historyStreams, historyDrain, routes };
}
