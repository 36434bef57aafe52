import type { Transferable } from 'node:worker_threads';
import type { Config } from '../config.js';
import { ApiError, apiError, type ErrorDetail } from '../domain/errors.js';
import type { SummaryNode } from '../domain/reports.js';
import { storeOutageAnswer } from './storeOutage.js';
import type { ErrorWire } from '../util/threadCalls.js';
import type { ChartReports } from './chartReportService.js';
import type { EventReports } from './eventReportService.js';

// What crosses between the server's thread and the report thread (docs/reports.md, "The
// report thread"): a call names a report service's method and carries the route's arguments
// (the workspace the route authenticated among them, as plain data); the answer is a body's
// bytes, moved rather than copied, or a summary; an error crosses as the ApiError it is or
// the HTTP layer would make of it, else as a message for a logged 500.

type CallsOf<Service extends string, T> = {
  [Method in keyof T]: T[Method] extends (...args: infer Args) => Promise<unknown> ? { service: Service; method: Method; args: Args } : never;
}[keyof T];

/** What the report thread is started with: the server's config, and its count of requests in flight (shared memory). */
export interface ReportThreadData {
  config: Config;
  inFlight: Int32Array;
}

export type ReportCall = CallsOf<'event', EventReports> | CallsOf<'chart', ChartReports>;

export type ReportAnswer = { bytes: ArrayBuffer } | { summary: Record<string, SummaryNode> };

export interface ReportServices {
  event: EventReports;
  chart: ChartReports;
}

/** Runs a call in the report thread; a body's memory goes along in the transfer list. */
export async function answerReport(services: ReportServices, call: ReportCall): Promise<{ result: ReportAnswer; transfer?: Transferable[] }> {
  const service = services[call.service] as unknown as Record<string, (...args: unknown[]) => Promise<Buffer | Record<string, SummaryNode>>>;
  const answer = await service[call.method]!(...call.args);
  if (!Buffer.isBuffer(answer)) return { result: { summary: answer } };
  const bytes = copiedBytes(answer);
  return { result: { bytes }, transfer: [bytes] };
}

/**
 * The Buffer's bytes in an ArrayBuffer of their own, to transfer: the Buffer itself may be
 * a slice of Node's shared pool (transferring that would take it from every other Buffer in
 * it) or the answer of several identical calls the lane ran once (the first transfer would
 * leave the others empty). The copy is made here, at the thread's priority.
 */
function copiedBytes(buffer: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(buffer.byteLength);
  new Uint8Array(copy).set(buffer);
  return copy;
}

type ErrorData = { status: number; errors: ErrorDetail[]; warnings: ErrorDetail[]; headers: Record<string, string> } | { internal: string; stack?: string };

export const reportErrors: ErrorWire = {
  toWire(error: unknown): ErrorData {
    const known = error instanceof ApiError ? error : storeOutageAnswer(error);
    if (known) return { status: known.status, errors: known.errors, warnings: known.warnings, headers: known.headers };
    const failure = error instanceof Error ? error : new Error(String(error));
    return { internal: failure.message, stack: failure.stack };
  },
  fromWire(wire: unknown): Error {
    const data = wire as ErrorData;
    if ('internal' in data) return Object.assign(new Error(data.internal), { stack: data.stack });
    const [first, ...more] = data.errors;
    return new ApiError(data.status, first!.code, first!.message, { data: first!.data, more, warnings: data.warnings, headers: data.headers });
  },
};

/** A report whose thread died before answering, or that came while it was being restarted. */
export const reportsUnavailable = (): ApiError =>
  apiError('SERVICE_UNAVAILABLE', 'Reports are unavailable for a moment (their thread is restarting); try again', { headers: { 'Retry-After': '1' } });
