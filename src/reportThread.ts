import { workerData } from 'node:worker_threads';
import { ApiError } from './domain/errors.js';
import { storeOutageAnswer } from './services/storeOutage.js';
import { createLogger } from './log.js';
import { ChartReportService } from './services/chartReportService.js';
import { EventReportService } from './services/eventReportService.js';
import { answerReport, reportErrors, type ReportCall, type ReportServices, type ReportThreadData } from './services/reportCalls.js';
import { ReportLane } from './services/reportLane.js';
import { composeReaders, connectReaders } from './readers.js';
import { ON_THIS_THREAD } from './util/gzipStream.js';
import { answerCalls, lowerThisThreadPriority } from './util/threadCalls.js';

// The report thread (docs/reports.md, "The report thread"): event and chart reports,
// computed beside the event loop that serves the sale, at a lower CPU priority
// (READER_THREAD_NICE) and resting while the server answers other requests (it reads the
// server's count in flight from shared memory), on Redis and MongoDB connections of its
// own, with an event catalog of its own kept coherent through the invalidation bus like
// another process's. The server's side is src/services/reportThreadClient.ts; the thread
// is started from the build.

const { config, inFlight } = workerData as ReportThreadData;
lowerThisThreadPriority(config.readerThreadNice);
const logger = createLogger(config.logLevel).child({ thread: 'reports' });

async function start(): Promise<ReportServices> {
  const { connections } = await connectReaders(config, logger);
  const { objectInfo, repos, indexes } = composeReaders(connections, config, { bestAvailable: false });
  // The body is compressed here, at this thread's priority, block by block as it fills: not
  // on libuv's thread pool, whose threads run at the sale's priority.
  const lane = new ReportLane(ON_THIS_THREAD, () => Atomics.load(inFlight, 0));
  return { event: new EventReportService(objectInfo, lane), chart: new ChartReportService(repos.charts, indexes, lane) };
}

// Calls that come while the thread connects wait for it. Failing to connect ends the
// thread: its calls answer 503 and it is started again (src/util/readerThread.ts).
const services = start();
answerCalls<ReportCall, unknown>(async (call) => {
  try {
    return await answerReport(await services, call);
  } catch (error) {
    if (!(error instanceof ApiError) && storeOutageAnswer(error)) logger.warn({ err: (error as Error).message }, 'store unavailable');
    throw error;
  }
}, reportErrors);
await services;
