// Errors that reach the client. Domain code throws them; the HTTP layer turns them into
// the error body of docs/seatsio-behaviour.md, "Errors": {status, messages, errors: [{code, message, data?}], warnings, requestId}.

import { ERROR_CODES, type ErrorCode } from './errorCodes.js';

export type { ErrorCode } from './errorCodes.js';

export interface ErrorDetail {
  /** One of the registry's (src/domain/errorCodes.ts). */
  code: ErrorCode;
  message: string;
  data?: unknown;
}

export class ApiError extends Error {
  readonly errors: ErrorDetail[];
  /** Problems that did not by themselves fail the request (publish reports both kinds). */
  readonly warnings: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    code: ErrorCode,
    message: string,
    options: { data?: unknown; more?: ErrorDetail[]; warnings?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    const first: ErrorDetail = options.data === undefined ? { code, message } : { code, message, data: options.data };
    this.errors = [first, ...(options.more ?? [])];
    this.warnings = options.warnings ?? [];
    this.headers = options.headers ?? {};
  }
}

/**
 * The error of a registered code (src/domain/errorCodes.ts) with the registry's status, and
 * its message unless the site words one for its case.
 */
export function apiError(code: keyof typeof ERROR_CODES, message?: string, options?: ConstructorParameters<typeof ApiError>[3]): ApiError {
  const kind = ERROR_CODES[code];
  return new ApiError(kind.status, code, message ?? kind.message, options);
}

export const badRequest = (code: ErrorCode, message: string, data?: unknown) => new ApiError(400, code, message, { data });
export const notFound = (code: ErrorCode, message: string) => new ApiError(404, code, message);

/**
 * 429 RATE_LIMIT_EXCEEDED ("Rate limit exceeded", as seats.io words it) with `Retry-After` in
 * whole seconds (at least 1): the for-sale config's calls per day past their limit
 * (docs/seatsio-behaviour.md, "For-sale config") and a company's requests past its
 * concurrency limit (docs/operations.md, "Concurrency limits") answer it.
 */
export function rateLimitExceeded(retryAfterSeconds: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return apiError('RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', { headers: { 'Retry-After': String(seconds) } });
}
