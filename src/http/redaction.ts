import type { RouteDef } from './route.js';
import type { Match as RouteMatch } from './routeTable.js';

// What of a request's path may be logged: secret path parameters (RouteDoc.secretParams)
// and key-shaped segments of unmatched paths are hidden.

/** Keys (secret, public, admin) are UUIDs (src/domain/keys.ts). */
const KEY_SHAPED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The path with the values of secret parameters (RouteDoc.secretParams) replaced by `***`.
 * A path no route matches may be a mistyped URL with a key in it: its key-shaped segments
 * are hidden too.
 */
export function redactedPath(path: string, match: RouteMatch<RouteDef>): string {
  if (match.kind === 'notFound') return path.split('/').map((segment) => (KEY_SHAPED.test(segment) ? '***' : segment)).join('/');
  if (match.kind === 'found' && !match.value.secretParams) return path;
  const routes = match.kind === 'found' ? [match.value] : match.values;
  const secret = new Set(routes.flatMap((route) => route.secretParams ?? []));
  if (secret.size === 0) return path;
  const names = match.pattern.split('/');
  return path
    .split('/')
    .map((segment, i) => (names[i]?.startsWith(':') && secret.has(names[i]!.slice(1)) ? '***' : segment))
    .join('/');
}
