import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../http/openapi.js';
import { publicRoute, type RouteDef } from '../http/route.js';

// GET /openapi.json: the OpenAPI 3.1 description of every route, this one included, built
// once at start-up from the route definitions (docs/api.md, "API description").

/** The project's version, from the package.json above this file (src/ in tests, dist/src/ built). */
function projectVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return '0.0.0';
}

/** The routes with the description route added, which describes them all. */
export function withApiDescription(routes: RouteDef[]): RouteDef[] {
  let document = '';
  const description = publicRoute({
    method: 'GET',
    path: '/openapi.json',
    summary: 'This API description (OpenAPI 3.1), generated from the route table',
    answers: { 200: 'the OpenAPI document' },
    handler: () => ({ status: 200, body: document, contentType: 'application/json' }),
  });
  const all = [...routes, description];
  document = JSON.stringify(openApiDocument(all, { title: 'Seat inventory server', version: projectVersion() }));
  return all;
}
