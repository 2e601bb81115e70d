// The OpenAPI 3.1 document of a server, made from its route declarations (src/http/routes.ts). OpenAPI
// 3.1 schemas are JSON Schema 2020-12, which is what zod writes, so each schema is converted as it is.
// Pure: the same declarations give the same document.
import { z } from 'zod';
import { ERROR_CODES } from '../core/errors.ts';
import type { Produces, RouteDoc } from './routes.ts';

export interface ApiInfo {
  title: string;
  version: string;
  description?: string;
}

type JsonSchema = Record<string, unknown>;

const ErrorBodySchema = z
  .looseObject({
    error: z.enum(ERROR_CODES).describe('Stable machine-readable code.'),
    message: z.string().describe('What went wrong and what to do next, for people.'),
  })
  .describe('The body of every error answer; some codes add fields (e.g. `field` for VALIDATION_FAILED).');

const MEDIA_TYPES: Record<Produces, string> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  sse: 'text/event-stream',
  websocket: 'application/json',
  file: 'application/octet-stream',
  html: 'text/html',
};

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** `/api/chat-sessions/:id` → `/api/chat-sessions/{id}`; a wildcard becomes a `{path}` parameter. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z_]\w*)/g, '{$1}').replace(/\*$/, '{path}');
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): JsonSchema[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([key, property]) => {
    const { description, ...rest } = property;
    // Fastify names a wildcard's value '*'; the document's path calls it {path}
    const name = key === '*' ? 'path' : key;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

/** Why each error status may be answered, for the document. */
const ERROR_STATUSES: Record<number, string> = {
  400: 'Bad input: a path without a canonical form (BAD_URL), a value outside its schema (VALIDATION_FAILED), malformed JSON, or a refusal of the route\'s own.',
  401: 'A peer that is not trusted sent no valid bearer token.',
  403: 'A Host or Origin this server does not serve, or an action the caller may not take.',
  404: 'Something the request names does not exist.',
  409: 'The request conflicts with the current state.',
  413: 'The body is over the route\'s limit.',
  415: 'The body is not of a type the route takes.',
  422: 'The input is well-formed but cannot be acted on.',
  429: 'Too many requests; retry later.',
  502: 'Something this server relies on answered with a failure.',
  503: 'The server is shutting down, or something it needs is not available.',
  504: 'Something this server waited for did not answer in time.',
};

/**
 * The error statuses of a route: those every route of its shape can answer (the guard's, the
 * canonical path's, the body parser's, an unknown id in its path, shutting down), and its own.
 */
export function errorStatuses(doc: RouteDoc): number[] {
  const statuses = new Set<number>([400, 403, 503, ...(doc.errors ?? [])]);
  // a route that waits on something outside answers 504 once its bound has passed (routes.ts waitsOn)
  if (doc.waitsOn) statuses.add(504);
  if (doc.access !== 'public' && doc.access !== 'capability') statuses.add(401);
  if (doc.params) statuses.add(404);
  if (doc.body || doc.rawBody) statuses.add(413).add(415);
  return [...statuses].sort((a, b) => a - b);
}

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } };

function responses(doc: RouteDoc): JsonSchema {
  const status = String(doc.status ?? (doc.produces === 'websocket' ? 101 : 200));
  const type = MEDIA_TYPES[doc.produces];
  const schema = doc.produces === 'ndjson' || doc.produces === 'sse' ? doc.item : doc.response;
  const description = {
    json: 'The answer.',
    ndjson: 'A stream of JSON lines, one per step; the schema is that of one line.',
    sse: 'A stream of server-sent events; the schema is that of one event\'s data.',
    websocket: 'Switches to a WebSocket carrying the same JSON events as the SSE stream.',
    file: 'The file\'s bytes, with its media type.',
    html: 'An HTML page.',
  }[doc.produces];
  return {
    [status]: {
      description,
      ...(doc.produces !== 'websocket' ? { content: { [type]: { schema: schema ? toSchema(schema, 'output') : {} } } } : {}),
    },
    ...Object.fromEntries(errorStatuses(doc).map((code) => [String(code), { description: ERROR_STATUSES[code] ?? 'An error.', content: errorContent }])),
    default: { description: 'Any other error, in the same shape: `{"error": CODE, "message": …}`.', content: errorContent },
  };
}

function operation(doc: RouteDoc): JsonSchema {
  const pathParameters = parameters(doc.params, 'path');
  return {
    operationId: `${doc.method.toLowerCase()}${openApiPath(doc.url).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: doc.summary,
    tags: [doc.group],
    // public routes need nothing from anyone, capability routes the capability in their body; the
    // others take the document's default (below)
    ...(doc.access === 'public' || doc.access === 'capability' ? { security: [] } : {}),
    parameters: [...pathParameters, ...parameters(doc.query, 'query')],
    ...(doc.body || doc.rawBody
      ? {
          requestBody: {
            required: true,
            content: doc.rawBody
              ? { [doc.rawBody]: { schema: { type: 'string', contentMediaType: doc.rawBody } } }
              : { 'application/json': { schema: toSchema(doc.body!, 'input') } },
          },
        }
      : {}),
    responses: responses(doc),
  };
}

export function openApiDocument(docs: readonly RouteDoc[], info: ApiInfo): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const doc of docs) {
    const path = openApiPath(doc.url);
    (paths[path] ??= {})[doc.method.toLowerCase()] = operation(doc);
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: [...new Set(docs.map((d) => d.group))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ErrorBody: toSchema(ErrorBodySchema, 'output') },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Needed from other machines; loopback callers need none (`svc token` prints it). Event streams also take it as `?token=`.' } },
    },
    // a loopback caller needs nothing, any other the bearer token (operations with `security: []` are public)
    security: [{}, { bearer: [] }],
  };
}
