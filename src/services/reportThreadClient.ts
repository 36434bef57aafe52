import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { SummaryNode } from '../domain/reports.js';
import { builtEntry, REPORT_THREAD_LIMITS, ReaderThread } from '../util/readerThread.js';
import { isAnswer, ThreadCalls, type AnswerMessage, type CallMessage } from '../util/threadCalls.js';
import type { ChartReports } from './chartReportService.js';
import type { EventReports } from './eventReportService.js';
import { reportErrors, reportsUnavailable, type ReportAnswer, type ReportCall, type ReportThreadData } from './reportCalls.js';

// The report routes' side of the report thread (docs/reports.md, "The report thread"): the
// methods the routes call, each a call into the thread (src/reportThread.ts), which reads
// and computes the report on connections of its own at a lower CPU priority. The thread
// starts with the first report; one that dies fails the reports it had with 503 and is
// started again (src/util/readerThread.ts), and a report that comes while it is being
// restarted gets 503 too.


export class ReportThreadClient {
  readonly thread: ReaderThread<CallMessage<ReportCall>, unknown>;
  private readonly calls: ThreadCalls<ReportCall, ReportAnswer>;
  private started = false;

  readonly events: EventReports = {
    detailed: (...args) => this.body({ service: 'event', method: 'detailed', args }),
    flat: (...args) => this.body({ service: 'event', method: 'flat', args }),
    csv: (...args) => this.body({ service: 'event', method: 'csv', args }),
    summary: (...args) => this.summary({ service: 'event', method: 'summary', args }),
  };

  readonly charts: ChartReports = {
    detailed: (...args) => this.body({ service: 'chart', method: 'detailed', args }),
    summary: (...args) => this.summary({ service: 'chart', method: 'summary', args }),
  };

  /**
   * `config` goes to the thread whole: it connects to the same Redis and MongoDB;
   * `inFlight`: the server's count of requests in flight, in shared memory (ServerStatus).
   */
  constructor(config: Config, inFlight: Int32Array, logger?: Logger) {
    this.calls = new ThreadCalls((message) => this.thread.post(message), reportErrors, reportsUnavailable);
    this.thread = new ReaderThread({
      file: builtEntry('reportThread'),
      workerData: { config, inFlight } satisfies ReportThreadData,
      resourceLimits: REPORT_THREAD_LIMITS,
      onMessage: (message) => {
        if (isAnswer(message)) this.calls.answered(message as AnswerMessage<ReportAnswer>);
      },
      onCrash: (error) => {
        logger?.error({ err: error, reports: this.calls.pending }, 'the report thread stopped; its reports answer 503 and it is started again');
        this.calls.failAll();
      },
    });
  }

  /** Reports asked of the thread and not answered yet. */
  get pending(): number {
    return this.calls.pending;
  }

  /** Stops the thread for good (shutdown); reports still waiting for it answer 503. */
  async stop(): Promise<void> {
    await this.thread.stop();
    this.calls.failAll();
  }

  private call(call: ReportCall): Promise<ReportAnswer> {
    // Started here once; afterwards ReaderThread restarts it when it dies.
    if (!this.started) {
      this.started = true;
      this.thread.start();
    }
    return this.calls.call(call);
  }

  private async body(call: ReportCall): Promise<Buffer> {
    const answer = await this.call(call);
    if (!('bytes' in answer)) throw new Error(`report ${call.service}.${call.method} answered a summary, not a body`);
    return Buffer.from(answer.bytes);
  }

  private async summary(call: ReportCall): Promise<Record<string, SummaryNode>> {
    const answer = await this.call(call);
    if (!('summary' in answer)) throw new Error(`report ${call.service}.${call.method} answered a body, not a summary`);
    return answer.summary;
  }
}
