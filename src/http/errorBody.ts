import type { ApiError } from '../domain/errors.js';

/** The error body every refusal carries (docs/api.md, "Errors"), as JSON text. */
export function errorBodyJson(error: ApiError, requestId: string): string {
  return JSON.stringify({
    status: error.status,
    messages: [...error.errors, ...error.warnings].map((e) => e.message),
    errors: error.errors,
    warnings: error.warnings,
    requestId,
  });
}
