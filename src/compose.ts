import { isCluster, type RedisClient } from './inventory/redis.js';
import type { Db } from 'mongodb';
import type { Scripts } from './inventory/scripts.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { ConcurrencyLimits } from './http/concurrencyLimits.js';
import { Metrics } from './http/metrics.js';
import type { RouteDef } from './http/route.js';
import { ServerStatus } from './http/serverStatus.js';
import { EventConfigStore } from './inventory/eventConfigStore.js';
import { HistoryStreams } from './inventory/historyStreams.js';
import { HoldTokenStore } from './inventory/holdTokenStore.js';
import { HistoryDrain } from './jobs/historyDrain.js';
import { HoldExpiry } from './jobs/holdExpiry.js';
import { AtMostOnceCalls } from './inventory/atMostOnce.js';
import { RedisClock } from './inventory/redisClock.js';
import { UsedObjects } from './inventory/usedObjects.js';
import type { InvalidationBus } from './metadata/invalidationBus.js';
import type { Repositories } from './metadata/repositories.js';
import { composeReaders } from './readers.js';
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
import { EventService } from './services/eventService.js';
import { HealthChecks } from './services/healthChecks.js';
import { HistoryService } from './services/historyService.js';
import { HoldTokenService } from './services/holdTokenService.js';
import { ObjectInfoService } from './services/objectInfoService.js';
import type { EventReports } from './services/eventReportService.js';
import type { ChartReports } from './services/chartReportService.js';
import { ReportThreadClient } from './services/reportThreadClient.js';
import { SaleConfigSync } from './services/saleConfigSync.js';
import { SeasonService } from './services/seasonService.js';
import { StatusChangeService } from './services/statusChangeService.js';
import { UsageService } from './services/usageService.js';
import { WorkspaceService } from './services/workspaceService.js';
import type { FromStream, ToStream } from './services/streamFollowers.js';
import { StreamSockets } from './services/streamSockets.js';
import { statusStreamRoute } from './routes/statusStream.js';
import type { WebSocketRoute } from './http/webSocketRoute.js';
import { builtEntry, STREAM_THREAD_LIMITS, ReaderThread } from './util/readerThread.js';

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
  /** The live status stream's subscribers, and its thread (docs/status-stream.md). */
  statusStream: StreamSockets;
  /** The report thread, started with the first report (docs/reports.md, "The report thread"). */
  reports: ReportThreadClient;
  /** The WebSocket routes. */
  webSockets: WebSocketRoute<any>[];
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
  eventReports: EventReports;
  chartReports: ChartReports;
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
    ...chartRoutes(s.charts, s.workspaces, s.events, s.seasons, config.publicUrl),
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

/** `config` whole: the report thread gets it, to connect as the server did. */
export function compose(connections: Connections, config: Config, logger?: Logger): AppParts {
  const { redis, statusRedis, db, bus, jobsRedis } = connections;

  // Stores: MongoDB repositories and Redis inventory, and the event catalog.
  const { repos, scripts, eventObjects, indexes, seasonStore, catalog, objectInfo } = composeReaders(connections, config, { bestAvailable: true });
  const redisClock = new RedisClock(statusRedis);
  const statusCalls = new AtMostOnceCalls(scripts, statusRedis, redisClock, {
    timeoutMs: config.redisTimeoutMs,
    maxOutstanding: config.maxPendingStatusChanges,
  });
  const holdTokens = new HoldTokenStore(redis, scripts, config.redisKeyPrefix);
  const usedObjects = new UsedObjects(redis, scripts);
  const historyStreams = new HistoryStreams(redis, config.redisKeyPrefix);
  const historyDrain = new HistoryDrain(historyStreams, repos.statusChanges, usedObjects);
  const eventConfig = new EventConfigStore(redis, scripts, (event) => historyStreams.noteChanged([event]), (event) => historyDrain.countUndrained(event));
  // Idle entries of an expiry change stay past a status call's timeout, and a margin for a stalled process.
  const holdExpiry = new HoldExpiry(jobsRedis, config.redisKeyPrefix, holdTokens, statusCalls, historyStreams, logger, config.redisTimeoutMs + 5_000);

  // Kept coherent across processes through the bus.
  const tenants = new TenantCache(repos.companies, repos.workspaces, bus);

  // What the HTTP server reports about itself (reports rest while other requests are in
  // flight through it), and what it counts against each company's concurrency limits.
  const metrics = new Metrics();
  statusCalls.batches.onSent = (requests) => metrics.observeStatusCall(requests);
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
  const statusChanges = new StatusChangeService(
    catalog, holdTokens, statusCalls, eventObjects, historyStreams, holdExpiry,
    (workspace, eventKey, labels) => objectInfo.describe(workspace, eventKey, labels),
    isCluster(statusRedis),
  );
  const holdTokenService = new HoldTokenService(holdTokens, holdExpiry);
  const bestAvailable = new BestAvailableService(catalog, new AvailabilityViews(eventObjects), statusChanges);
  // Reports are computed in a thread of their own, at a lower CPU priority than the sale's,
  // resting while the server answers other requests.
  const reports = new ReportThreadClient(config, status.inFlightShared, logger);
  const { events: eventReports, charts: chartReports } = reports;
  const usage = new UsageService(usedObjects, repos.events);
  const accounts = new AccountService(repos, tenants);
  const workspaces = new WorkspaceService(repos.workspaces, repos.companies, tenants, repos.eventLog);
  const health = new HealthChecks([redis, statusRedis], db);

  const history = new HistoryService(catalog, repos.statusChanges);
  const routes = routesOf(
    { health, status, metrics, historyStreams, accounts, workspaces, holdTokens: holdTokenService, charts, events, seasons, statusChanges, bestAvailable, objectInfo, history, eventReports, chartReports, usage, eventLog: repos.eventLog, ticketBuyers: repos.ticketBuyers, tenants },
    config,
  );

  // The live status stream: its sockets here, its followers in a thread of their own.
  const statusStream = new StreamSockets({
    limits: config.statusStream,
    thread: (deliver, crashed) =>
      new ReaderThread<ToStream, FromStream>({ file: builtEntry('streamThread'), workerData: config, onMessage: deliver, onCrash: crashed, resourceLimits: STREAM_THREAD_LIMITS }),
    logger,
  });
  // How many watch the seat maps, and how many of them fall behind (docs/status-stream.md, "Limits and close codes").
  metrics.gaugesFrom(() => ({
    status_stream_subscribers: statusStream.subscriberCount,
    status_stream_skipped_subscribers: statusStream.skippedCount,
    status_stream_closed_blocked_total: statusStream.closedBlockedCount,
  }));
  const webSockets = [statusStreamRoute({ sockets: statusStream, tenants, catalog, maxMessageBytes: config.statusStream.maxMessageBytes })];

  return { ...connections, statusStream, reports, webSockets, repos, tenants, metrics, status, concurrency, scripts, redisClock, statusCalls, holdTokens, holdExpiry, charts, events, statusChanges, historyStreams, historyDrain, routes };
}
