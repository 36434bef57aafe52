import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routesOf, type RouteServices } from './compose.js';
import { apiReference } from './http/apiReference.js';
import { DEFAULT_LEGACY_V1_PREFIX } from './config.js';
import { projectDir } from './util/projectDir.js';

// docs/api.md as the route table and src/routes/api.md make it now (src/http/apiReference.ts).
// `npm run docs:api` writes it (src/writeApiDocs.ts); test/unit/apiReference.test.ts fails
// when the file differs.

export const API_DOC_FILE = 'docs/api.md';
export const API_TEMPLATE_FILE = 'src/routes/api.md';

/**
 * Stands for every service: the routes are built, never called. A route module that used a
 * service while building its routes would stop the generation here, saying which.
 */
const noServices = new Proxy({} as RouteServices, {
  get: (_target, service) =>
    new Proxy(
      {},
      {
        get: (_s, member) => {
          throw new Error(`building the routes used ${String(service)}.${String(member)}: route modules may use services only in their handlers`);
        },
      },
    ),
});

/** The route reference for the server's default configuration (the legacy calls under /api). */
export function currentApiReference(): string {
  const routes = routesOf(noServices, { publicUrl: undefined, legacyV1Prefix: DEFAULT_LEGACY_V1_PREFIX });
  return apiReference(routes, readFileSync(join(projectDir(), API_TEMPLATE_FILE), 'utf8'));
}
