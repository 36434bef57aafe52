// Errors that reach the client. Domain code throws them; the HTTP layer turns them into
// the error body of docs/seatsio-behaviour.md, "Errors": {status, messages, errors: [{code, message, data?}], warnings, requestId}.

export interface ErrorDetail {
  code: string;
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
    code: string,
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

export const badRequest = (code: string, message: string, data?: unknown) => new ApiError(400, code, message, { data });
export const notFound = (code: string, message: string) => new ApiError(404, code, message);

/**
 * 429 RATE_LIMIT_EXCEEDED ("Rate limit exceeded", as seats.io words it) with `Retry-After` in
 * whole seconds (at least 1): the for-sale config's calls per day past their limit
 * (docs/seatsio-behaviour.md, "For-sale config") and a company's requests past its
 * concurrency limit (docs/operations.md, "Concurrency limits") answer it.
 */
export function rateLimitExceeded(retryAfterSeconds: number): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', { headers: { 'Retry-After': String(seconds) } });
}
