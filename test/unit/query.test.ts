import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { Query } from '../../src/http/query.js';

// A route reads only the query parameters it declares (and the API description shows).

describe('Query', () => {
  const query = new Query('limit=5&expand=a&expand=b&other=1', new Set(['limit', 'expand', 'filter']));

  it('reads declared parameters', () => {
    expect(query.one('limit')).toBe('5');
    expect(query.all('expand')).toEqual(['a', 'b']);
    expect(query.one('filter')).toBeUndefined();
    expect(query.integer('limit', { min: 1, max: 10 })).toBe(5);
  });

  it('refuses to read a parameter the route did not declare, even one that was sent', () => {
    expect(() => query.one('other')).toThrow(/not declared/);
    expect(() => query.all('unknown')).toThrow(/not declared/);
  });

  it('a declared parameter given twice where one is expected is a 400', () => {
    expect(() => query.one('expand')).toThrow(ApiError);
  });
});
