/**
 * Builds the OpenAPI 3.1 document from the same RouteSpecs that serve requests. JSON Schemas come
 * from the zod schemas that validate the requests.
 */
import { z } from 'zod';
import type { RouteSpec } from './route.js';

type Json = Record<string, unknown>;

const errorSchema: Json = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'One sentence a person can act on.' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  return out;
}

function parameters(spec: RouteSpec): Json[] {
  const params: Json[] = [];
  const pathNames = [...spec.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] as string);
  const pathShape = spec.params
    ? (jsonSchema(spec.params, 'input').properties as Json | undefined)
    : undefined;
  for (const name of pathNames) {
    params.push({ name, in: 'path', required: true, schema: pathShape?.[name] ?? { type: 'string' } });
  }
  if (spec.query) {
    const query = jsonSchema(spec.query, 'input');
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((query.properties as Json | undefined) ?? {})) {
      params.push({ name, in: 'query', required: required.has(name), schema });
    }
  }
  for (const [name, header] of Object.entries(spec.requestHeaders ?? {})) {
    params.push({
      name,
      in: 'header',
      required: header.required ?? false,
      description: header.description,
      schema: { type: 'string' },
    });
  }
  return params;
}

function operation(spec: RouteSpec): Json {
  const responses: Json = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const entry: Json = { description: response.description };
    if (response.schema) {
      entry.content = {
        [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') },
      };
    } else if (response.contentType) {
      entry.content = { [response.contentType]: { schema: { type: 'string' } } };
    }
    responses[status] = entry;
  }
  const errorRef = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  // Refusals the platform makes before a handler runs, whatever the route: a route without a body
  // schema refuses a body (400), every body is read against limits.max_body_bytes (413), a path
  // parameter may name nothing the caller can see (404), a write meets a full disk (503).
  responses['400'] ??= {
    description:
      spec.body || spec.query || spec.params
        ? 'Invalid request.'
        : 'A request body was sent; this route takes none.',
    ...errorRef,
  };
  if (spec.auth !== 'none')
    responses['401'] ??= { description: 'Missing or invalid credentials.', ...errorRef };
  if (spec.scope) responses['403'] ??= { description: `Missing the \`${spec.scope}\` scope.`, ...errorRef };
  if (spec.path.includes('{'))
    responses['404'] ??= { description: 'Nothing by that identifier in this project.', ...errorRef };
  responses['413'] ??= { description: 'The request body is larger than limits.max_body_bytes.', ...errorRef };
  if (spec.body)
    responses['415'] ??= { description: 'The body is not of a documented media type.', ...errorRef };
  if (spec.method !== 'get')
    responses['503'] ??= {
      description: 'The store cannot take writes now (its disk is full); retry after Retry-After.',
      ...errorRef,
    };
  const op: Json = {
    operationId: `${spec.method}${spec.path.replace(/\{([^}]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    tags: [spec.tag],
    parameters: parameters(spec),
    responses,
  };
  if (spec.body) {
    const content: Json = { 'application/json': { schema: jsonSchema(spec.body, 'input') } };
    if (spec.form) content['application/x-www-form-urlencoded'] = { schema: jsonSchema(spec.body, 'input') };
    op.requestBody = { required: spec.optionalBody !== true, content };
  }
  if (spec.stream) {
    const content: Json = {};
    for (const type of spec.stream.contentTypes) content[type] = { schema: { type: 'string' } };
    op.requestBody = { required: true, description: spec.stream.description, content };
  }
  if (spec.auth === 'key') op.security = [{ apiKey: [] }];
  else if (spec.auth === 'session') op.security = [{ session: [] }];
  else op.security = [];
  if (spec.scope) op['x-posthorn-scope'] = spec.scope;
  return op;
}

export function openApiDocument(routes: readonly RouteSpec[], version: string, serverUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const spec of routes) {
    paths[spec.path] = { ...paths[spec.path], [spec.method]: operation(spec) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Posthorn',
      version,
      description: 'Self-hosted transactional email: send API, domains, suppressions, templates and more.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A project API key (ph_live_... or ph_test_...), or an OAuth access token (pho_...) acting as a key with its granted scopes.',
        },
        session: { type: 'http', scheme: 'bearer', description: 'A dashboard session token: phs_...' },
      },
    },
  };
}
