import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import type { WorkspaceDoc } from '../../src/metadata/workspaces.js';
import { answerReport, reportErrors, type ReportCall, type ReportServices } from '../../src/services/reportCalls.js';

// What crosses between the server's thread and the report thread (src/services/reportCalls.ts):
// bodies as bytes of their own to transfer, errors as plain data made into the same errors again.

const workspace = { _id: 1, key: 'w' } as WorkspaceDoc;

/** A message's way to the other thread: cloned, its transfer list moved. */
const across = <T>(value: T, transfer: Transferable[] = []): T => structuredClone(value, { transfer });

describe('report calls', () => {
  it.each([
    ['a small Buffer, a slice of the pool shared with others', Buffer.from('{"free":[]}')],
    ['a Buffer of its own memory', Buffer.alloc(64 * 1024, 'x')],
  ])('a body crosses as bytes of its own: %s, answered to two identical calls, stays whole and both get it', async (_, body) => {
    const text = body.toString();
    const services = { event: { flat: async () => body } } as unknown as ReportServices;
    const call: ReportCall = { service: 'event', method: 'flat', args: [workspace, 'e1'] };
    for (let i = 0; i < 2; i++) {
      const { result, transfer } = await answerReport(services, call);
      const arrived = across(result, transfer as Transferable[]);
      expect('bytes' in arrived && Buffer.from(arrived.bytes).toString()).toBe(text);
    }
    expect(body.toString()).toBe(text);
  });

  it('a summary crosses as it is', async () => {
    const summary = { free: { count: 3, bySection: { NO_SECTION: 3 } } };
    const services = { event: { summary: async () => summary } } as unknown as ReportServices;
    const { result } = await answerReport(services, { service: 'event', method: 'summary', args: [workspace, 'e1', 'byStatus', false] });
    expect(across(result)).toEqual({ summary });
  });

  it('an ApiError comes back the same: status, codes, messages, data, warnings, headers', () => {
    const error = new ApiError(400, 'DRAWING_VALIDATION_FAILED', 'bad', {
      data: { failedValidations: ['x'] },
      more: [{ code: 'GENERAL_ERROR', message: 'also' }],
      warnings: [{ code: 'DRAWING_VALIDATION_FAILED', message: 'warn' }],
      headers: { 'Retry-After': '2' },
    });
    const back = reportErrors.fromWire(across(reportErrors.toWire(error))) as ApiError;
    expect(back).toBeInstanceOf(ApiError);
    expect({ status: back.status, message: back.message, errors: back.errors, warnings: back.warnings, headers: back.headers }).toEqual({
      status: error.status,
      message: error.message,
      errors: error.errors,
      warnings: error.warnings,
      headers: error.headers,
    });
  });

  it('Redis not answering comes back as the 503 the HTTP layer gives; any other error as itself, for a logged 500', () => {
    const outage = reportErrors.fromWire(across(reportErrors.toWire(new Error('Command timed out')))) as ApiError;
    expect(outage).toBeInstanceOf(ApiError);
    expect(outage.status).toBe(503);
    expect(outage.errors[0]!.code).toBe('SERVICE_UNAVAILABLE');
    expect(outage.headers).toEqual({ 'Retry-After': '1' });
    const bug = new TypeError('x is undefined');
    const back = reportErrors.fromWire(across(reportErrors.toWire(bug)));
    expect(back).not.toBeInstanceOf(ApiError);
    expect(back.message).toBe('x is undefined');
    expect(back.stack).toBe(bug.stack);
  });
});
