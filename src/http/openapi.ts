import type { TSchema } from 'typebox';
import { CONCURRENCY_ERROR } from './concurrencyLimits.js';
import type { AuthKind, RouteDef } from './route.js';

// The OpenAPI 3.1 description of the API, built from the route table at start-up: paths,
// auth kinds, body and query schemas and answers all come from the RouteDefs the server
// routes by, so the description cannot drift from what the server does. Served as
// GET /openapi.json (docs/api.md, "API description").

type JsonObject = Record<string, unknown>;

const ERROR_BODY = { $ref: '#/components/schemas/Error' };

/** TypeBox schemas are JSON Schema; a JSON round trip leaves only the plain keywords. */
const plain = (schema: TSchema): JsonObject => JSON.parse(JSON.stringify(schema)) as JsonObject;

const AUTH_ERRORS: Record<AuthKind, Record<string, string>> = {
  public: {},
  system: { 401: 'missing or wrong system API secret' },
  company: { 401: 'missing or unknown key', 403: 'not the company admin key' },
  workspace: { 401: 'missing or unknown key', 403: 'the workspace is inactive, or the key may not act on it' },
};

function operationId(route: RouteDef): string {
  const words = route.path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => (segment.startsWith(':') ? `by-${segment.slice(1)}` : segment))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '');
  return [route.method.toLowerCase(), ...words].map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
}

function parameters(route: RouteDef): JsonObject[] {
  const inPath = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((match) => ({
    name: match[1]!,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const query = route.query ? plain(route.query) : undefined;
  const required = new Set((query?.required as string[] | undefined) ?? []);
  const inQuery = Object.entries((query?.properties as Record<string, JsonObject> | undefined) ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema;
    return { name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest };
  });
  const workspaceHeader =
    route.auth === 'workspace'
      ? [{ name: 'X-Workspace-Key', in: 'header', required: false, description: 'with the company admin key: the workspace to act on', schema: { type: 'string' } }]
      : [];
  return [...inPath, ...inQuery, ...workspaceHeader];
}

function responses(route: RouteDef): JsonObject {
  const answers: JsonObject = {};
  for (const [status, description] of Object.entries(route.answers)) {
    const code = Number(status);
    answers[status] =
      code === 204 || code === 304
        ? { description }
        : { description, content: { [route.produces ?? 'application/json']: { schema: {} } } };
  }
  const errors: Record<string, string> = { ...AUTH_ERRORS[route.auth], ...route.errors };
  const body = route.bodySchema ?? route.bodyDoc;
  if (body || route.query || route.path.includes(':')) errors[400] = 'bad input: the error body names what is wrong';
  if (route.path.includes(':')) errors[404] = 'something named in the path does not exist';
  if (body) {
    errors[413] = 'the body is too large';
    errors[415] = 'the body is not JSON';
  }
  if (route.auth === 'company' || route.auth === 'workspace') errors[429] = CONCURRENCY_ERROR;
  errors[500] = 'unexpected failure; the request id identifies it in the logs';
  for (const [status, description] of Object.entries(errors)) {
    answers[status] = { description, content: { 'application/json': { schema: ERROR_BODY } } };
  }
  return answers;
}

function operation(route: RouteDef): JsonObject {
  const op: JsonObject = {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.path.split('/')[1] ?? ''],
    security: route.auth === 'public' ? [] : [{ basicAuth: [] }],
    parameters: parameters(route),
    responses: responses(route),
    // Which concurrency limit the call counts against (docs/operations.md, "Concurrency limits").
    'x-lane': route.lane ?? 'regular',
  };
  const body = route.bodySchema ?? route.bodyDoc;
  if (body) op.requestBody = { required: false, content: { 'application/json': { schema: plain(body) } } };
  return op;
}

export function openApiDocument(routes: readonly RouteDef[], info: { title: string; version: string }): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      ...info,
      description:
        'A self-hostable, seats.io-compatible seat inventory server. Authenticate with HTTP Basic: the secret key is the user name, the password is ignored.',
    },
    paths,
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['status', 'messages', 'errors', 'warnings', 'requestId'],
          properties: {
            status: { type: 'integer' },
            messages: { type: 'array', items: { type: 'string' } },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['code', 'message'],
                properties: { code: { type: 'string' }, message: { type: 'string' }, data: {} },
              },
            },
            warnings: { type: 'array', items: {} },
            requestId: { type: 'string' },
          },
        },
      },
    },
  };
}
