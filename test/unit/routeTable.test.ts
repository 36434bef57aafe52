import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/http/routeTable.js';

describe('RouteTable', () => {
  const table = new RouteTable<string>();
  table.add('GET', '/workspaces', 'list');
  table.add('POST', '/workspaces', 'create');
  table.add('GET', '/workspaces/active', 'listActive');
  table.add('GET', '/workspaces/:key', 'retrieve');
  table.add('POST', '/workspaces/:key/actions/deactivate', 'deactivate');
  table.add('POST', '/workspaces/actions/set-default/:key', 'setDefault');
  table.add('POST', '/charts/:chartKey/tags/:tag', 'addTag');

  it('prefers static segments over parameters', () => {
    expect(table.match('GET', '/workspaces/active')).toMatchObject({ kind: 'found', value: 'listActive' });
    expect(table.match('GET', '/workspaces/abc')).toMatchObject({ kind: 'found', value: 'retrieve', params: { key: 'abc' } });
  });

  it('backtracks from a static branch into a parameter', () => {
    expect(table.match('POST', '/workspaces/actions/actions/deactivate')).toMatchObject({
      kind: 'found',
      value: 'deactivate',
      params: { key: 'actions' },
    });
    expect(table.match('POST', '/workspaces/actions/set-default/k1')).toMatchObject({ value: 'setDefault', params: { key: 'k1' } });
  });

  it('decodes parameters after splitting, so an encoded slash stays inside', () => {
    const match = table.match('POST', '/charts/c%201/tags/tag1%2F%3A%22-%3C%3E');
    expect(match).toMatchObject({ kind: 'found', params: { chartKey: 'c 1', tag: 'tag1/:"-<>' }, pattern: '/charts/:chartKey/tags/:tag' });
  });

  it('tolerates a trailing slash', () => {
    expect(table.match('GET', '/workspaces/')).toMatchObject({ kind: 'found', value: 'list' });
  });

  it('tells 405 from 404', () => {
    expect(table.match('DELETE', '/workspaces')).toEqual({ kind: 'methodNotAllowed', allowed: ['GET', 'POST'], pattern: '/workspaces', values: ['list', 'create'] });
    expect(table.match('GET', '/nothing/here')).toEqual({ kind: 'notFound' });
    expect(table.match('GET', '/workspaces/a/b')).toEqual({ kind: 'notFound' });
    expect(table.match('GET', '/workspaces//')).toEqual({ kind: 'notFound' });
  });

  it('refuses a route registered twice or conflicting parameter names', () => {
    expect(() => table.add('GET', '/workspaces', 'again')).toThrow(/twice/);
    expect(() => table.add('GET', '/workspaces/:id/x', 'x')).toThrow(/conflicts/);
  });

  it('keeps what it found: the same path again is the same match, with frozen params; a method or path of its own is matched anew', () => {
    const kept = new RouteTable<string>();
    kept.add('GET', '/events/:key', 'event');
    kept.add('POST', '/events/:key', 'update');
    const first = kept.match('GET', '/events/e%201');
    expect(kept.match('GET', '/events/e%201')).toBe(first);
    expect(first).toMatchObject({ kind: 'found', value: 'event', params: { key: 'e 1' } });
    expect(Object.isFrozen((first as { params: object }).params)).toBe(true);
    expect(kept.match('POST', '/events/e%201')).toMatchObject({ value: 'update', params: { key: 'e 1' } });
    expect(kept.match('GET', '/events/e%202')).toMatchObject({ value: 'event', params: { key: 'e 2' } });
    // Not found and wrong-method answers are worked out each time (they are not kept).
    expect(kept.match('DELETE', '/events/e1')).toMatchObject({ kind: 'methodNotAllowed' });
    // A route added later is found on a path matched before.
    expect(kept.match('GET', '/events/special')).toMatchObject({ value: 'event', params: { key: 'special' } });
    kept.add('GET', '/events/special', 'special');
    expect(kept.match('GET', '/events/special')).toMatchObject({ value: 'special' });
    // Past 4,096 kept paths it starts again, and still answers right.
    for (let i = 0; i < 5_000; i++) expect(kept.match('GET', `/events/k${i}`)).toMatchObject({ value: 'event', params: { key: `k${i}` } });
    expect(kept.match('GET', '/events/k4999')).toMatchObject({ params: { key: 'k4999' } });
  });
});
