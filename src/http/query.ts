import { badRequest } from '../domain/errors.js';

/**
 * Query string access with the checks every list route needs. A route reads only the
 * parameters it declares (its `query` schema, which the API description shows); reading
 * another one is a bug in the route and throws.
 */
export class Query {
  private parsed: URLSearchParams | undefined;

  constructor(
    private readonly raw: string,
    private readonly declared: ReadonlySet<string>,
  ) {}

  /** Parsed on first use: most priority-lane requests have no query string. */
  private params(name: string): URLSearchParams {
    if (!this.declared.has(name)) throw new Error(`query parameter ${name} is read but not declared by the route`);
    return (this.parsed ??= new URLSearchParams(this.raw));
  }

  /** All values of a repeatable parameter (`expand=a&expand=b`). */
  all(name: string): string[] {
    // No query string (most priority-lane requests): nothing to parse.
    if (this.raw === '' && this.declared.has(name)) return [];
    return this.params(name).getAll(name);
  }

  /** A parameter that may appear at most once. */
  one(name: string): string | undefined {
    const values = this.params(name).getAll(name);
    if (values.length > 1) throw badRequest('GENERAL_ERROR', `query parameter ${name} may be given only once`);
    return values[0];
  }

  integer(name: string, range: { min: number; max: number }): number | undefined {
    const raw = this.one(name);
    if (raw === undefined || raw === '') return undefined;
    if (!/^-?\d+$/.test(raw)) throw badRequest('GENERAL_ERROR', `query parameter ${name} must be a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < range.min || value > range.max) {
      throw badRequest('GENERAL_ERROR', `query parameter ${name} must be between ${range.min} and ${range.max}, got ${value}`);
    }
    return value;
  }
}
