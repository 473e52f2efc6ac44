/**
 * A property-based fuzzer driven by the OpenAPI document the server publishes: for every
 * operation it generates requests (path parameters from real IDs and hostile strings, query
 * parameters, bodies that follow the documented schema or break it on purpose, each credential
 * kind and none) and checks each answer against the same document: never a 5xx, never a status
 * the operation does not document, and a JSON body that matches the documented schema. A route
 * added later is fuzzed without touching this file. fast-check shrinks a failure to a small case.
 */
import { request as httpRequest } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { hostileValue, nastyString, type Schema, schemaValue } from './schema-arbitrary.js';
import type { OpenApi, Operation, Tenant, World } from './world.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface Op {
  readonly method: string;
  readonly path: string;
  readonly op: Operation;
}

export interface FuzzSummary {
  requests: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  violations: string[];
  operations: number;
}

export function operationsOf(document: OpenApi): Op[] {
  const ops: Op[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) ops.push({ method: method.toUpperCase(), path, op });
  }
  return ops;
}

/** Compiles the documented response schemas once each. */
export function responseValidator(document: OpenApi) {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));
  const inline = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(inline);
    if (schema && typeof schema === 'object') {
      const ref = (schema as { $ref?: string }).$ref;
      if (ref?.startsWith('#/components/schemas/')) {
        return inline(document.components.schemas[ref.slice('#/components/schemas/'.length)]);
      }
      return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v)]));
    }
    return schema;
  };
  const cache = new Map<object, ValidateFunction>();
  return (schema: object): ValidateFunction => {
    let fn = cache.get(schema);
    if (!fn) {
      fn = ajv.compile(inline(schema) as object);
      cache.set(schema, fn);
    }
    return fn;
  };
}

type CredentialKind = 'key' | 'testKey' | 'session' | 'none' | 'bogus' | 'revoked-shape';

interface Request {
  readonly credential: CredentialKind;
  readonly params: Record<string, string>;
  readonly query: Record<string, unknown>;
  readonly body:
    | { readonly kind: 'none' }
    | { readonly kind: 'json'; readonly value: unknown }
    | { readonly kind: 'form'; readonly value: unknown };
}

function schemeOf(op: Operation): string | undefined {
  return Object.keys(op.security[0] ?? {})[0];
}

function credentialArb(op: Operation): fc.Arbitrary<CredentialKind> {
  const scheme = schemeOf(op);
  const right: CredentialKind = scheme === 'session' ? 'session' : scheme === 'apiKey' ? 'key' : 'none';
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(right) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<CredentialKind>(
        'key',
        'testKey',
        'session',
        'none',
        'bogus',
        'revoked-shape',
      ),
    },
  );
}

function paramArb(schema: Schema, ids: readonly string[]): fc.Arbitrary<string> {
  const arbs: fc.WeightedArbitrary<string>[] = [
    { weight: 2, arbitrary: nastyString.filter((s) => s.length > 0) },
    {
      weight: 1,
      arbitrary: schemaValue(schema)
        .map(String)
        .filter((s) => s.length > 0),
    },
  ];
  if (ids.length > 0) arbs.push({ weight: 5, arbitrary: fc.constantFrom(...ids) });
  return fc.oneof(...arbs);
}

function queryArb(op: Operation): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const p of op.parameters) {
    if (p.in !== 'query') continue;
    shape[p.name] = fc.oneof(
      { weight: 4, arbitrary: schemaValue(p.schema) },
      { weight: 1, arbitrary: nastyString },
    );
    if (p.required) required.push(p.name);
  }
  return fc.record(shape, { requiredKeys: required });
}

function bodyArb(op: Operation): fc.Arbitrary<Request['body']> {
  const content = op.requestBody?.content ?? {};
  const json = content['application/json']?.schema;
  const form = content['application/x-www-form-urlencoded']?.schema;
  const arbs: fc.WeightedArbitrary<Request['body']>[] = [
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  ];
  if (json) {
    arbs.push({ weight: 6, arbitrary: schemaValue(json).map((value) => ({ kind: 'json' as const, value })) });
    arbs.push({
      weight: 4,
      arbitrary: hostileValue(json).map((value) => ({ kind: 'json' as const, value })),
    });
  } else {
    arbs.push({
      weight: 1,
      arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ({ kind: 'json' as const, value })),
    });
  }
  if (form)
    arbs.push({ weight: 4, arbitrary: schemaValue(form).map((value) => ({ kind: 'form' as const, value })) });
  return fc.oneof(...arbs);
}

export function requestArb(op: Operation, ids: readonly string[]): fc.Arbitrary<Request> {
  const params: Record<string, fc.Arbitrary<string>> = {};
  for (const p of op.parameters) if (p.in === 'path') params[p.name] = paramArb(p.schema, ids);
  return fc.record({
    credential: credentialArb(op),
    params: fc.record(params),
    query: queryArb(op),
    body: bodyArb(op),
  });
}

function credentialFor(kind: CredentialKind, tenant: Tenant): string | null {
  switch (kind) {
    case 'key':
      return tenant.key;
    case 'testKey':
      return tenant.testKey;
    case 'session':
      return tenant.session;
    case 'bogus':
      return 'not-a-credential';
    case 'revoked-shape':
      return `ph_live_${'0'.repeat(40)}`;
    default:
      return null;
  }
}

function formEncode(value: unknown): string {
  if (!value || typeof value !== 'object') return String(value);
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  return form.toString();
}

/** Percent-encodes every byte but the unreserved ones (lone surrogates become U+FFFD's bytes). */
export function encodeSegment(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** One HTTP request over node:http (fetch refuses a body on GET; the fuzzer sends one anyway). */
export function rawRequest(
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: pathAndQuery,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    // A server that refuses a body early (413) answers and closes while the body is still being
    // written: the write fails, and the answer, already on its way, is what counts.
    req.on('error', (error) => setTimeout(() => reject(error), 1000));
    req.end(body);
  });
}

export function urlOf(path: string, req: Request): string {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeSegment(req.params[name] ?? ''));
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query)) {
    if (v === undefined) continue;
    search.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

/** Sends one generated request and returns what is wrong with the answer (empty when nothing). */
export async function sendAndCheck(
  world: World,
  tenant: Tenant,
  target: Op,
  req: Request,
  validator: ReturnType<typeof responseValidator>,
  summary: FuzzSummary,
): Promise<string[]> {
  const headers: Record<string, string> = {};
  const credential = credentialFor(req.credential, tenant);
  if (credential) headers.authorization = `Bearer ${credential}`;
  let body: string | undefined;
  if (req.body.kind === 'json') {
    body = JSON.stringify(req.body.value) ?? 'null';
    headers['content-type'] = 'application/json';
  } else if (req.body.kind === 'form') {
    body = formEncode(req.body.value);
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await rawRequest(world.ph.url, target.method, urlOf(target.path, req), headers, body);
  const text = res.text;
  summary.requests += 1;
  summary.byStatus[res.status] = (summary.byStatus[res.status] ?? 0) + 1;
  const problems: string[] = [];
  const where = `${target.method} ${target.path} → ${res.status}`;
  if (res.status >= 500 && !(res.status === 503 && target.op.responses['503'])) {
    summary.serverErrors += 1;
    problems.push(`${where}: a server error: ${text.slice(0, 300)}`);
  }
  const documented = target.op.responses[String(res.status)] ?? target.op.responses.default;
  if (!documented) {
    problems.push(
      `${where}: status not documented (documented: ${Object.keys(target.op.responses).join(', ')}): ${text.slice(0, 200)}`,
    );
    return problems;
  }
  const mediaType =
    String(res.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim() ?? '';
  if (res.status === 204 || res.status === 304) {
    if (text.length > 0) problems.push(`${where}: a body on a ${res.status}`);
    return problems;
  }
  const content = documented.content;
  if (!content) return problems;
  const byType = Object.fromEntries(
    Object.entries(content).map(([type, v]) => [type.split(';')[0]?.trim() ?? type, v]),
  );
  const entry = byType[mediaType] ?? (mediaType.endsWith('+json') ? byType['application/json'] : undefined);
  if (!entry) {
    problems.push(
      `${where}: content type ${mediaType || '(none)'} not documented (${Object.keys(content).join(', ')}): ${text.slice(0, 200)}`,
    );
    return problems;
  }
  if (mediaType === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      problems.push(`${where}: a JSON content type with a body that is not JSON: ${text.slice(0, 200)}`);
      return problems;
    }
    const validate = validator(entry.schema);
    if (!validate(parsed)) {
      problems.push(
        `${where}: the body contradicts its schema: ${JSON.stringify(validate.errors?.slice(0, 3))} body ${text.slice(0, 300)}`,
      );
    }
  }
  return problems;
}

export function emptySummary(): FuzzSummary {
  return { requests: 0, byStatus: {}, serverErrors: 0, violations: [], operations: 0 };
}

export interface FuzzOptions {
  readonly runsPerOperation: number;
  readonly timeLimitMs: number;
  readonly seed?: number;
  /** Renews credentials a fuzzed request revoked (a logout, a deleted key). */
  readonly renew: () => Promise<void>;
}

/** Fuzzes every operation; returns the summary (violations hold the shrunk counterexamples). */
export async function fuzzAll(
  world: World,
  tenant: Tenant,
  ops: readonly Op[],
  options: FuzzOptions,
): Promise<FuzzSummary> {
  const summary = emptySummary();
  const validator = responseValidator(world.document);
  const deadline = Date.now() + options.timeLimitMs;
  const perOp = Math.max(1_000, Math.floor(options.timeLimitMs / Math.max(1, ops.length)));
  for (const target of ops) {
    if (Date.now() > deadline) {
      summary.violations.push(`time ran out before ${target.method} ${target.path}`);
      break;
    }
    summary.operations += 1;
    const ids = [...tenant.ids];
    const result = await fc.check(
      fc.asyncProperty(requestArb(target.op, ids), async (req) => {
        const problems = await sendAndCheck(world, tenant, target, req, validator, summary);
        return problems.length === 0
          ? true
          : (() => {
              throw new Error(problems.join('\n'));
            })();
      }),
      {
        numRuns: options.runsPerOperation,
        interruptAfterTimeLimit: perOp * 2,
        seed: options.seed,
        endOnFailure: false,
        maxSkipsPerRun: 10,
      },
    );
    if (result.failed) {
      const error =
        result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      summary.violations.push(
        `${error}\n  counterexample: ${JSON.stringify(result.counterexample)} (seed ${result.seed}, path ${result.counterexamplePath})`,
      );
    }
    await options.renew();
  }
  return summary;
}

export function printSummary(label: string, summary: FuzzSummary, started: number): string {
  const statuses = Object.entries(summary.byStatus)
    .map(([s, n]) => `${s}:${n}`)
    .join(' ');
  return `${label}: operations ${summary.operations}, requests ${summary.requests}, 5xx ${summary.serverErrors}, violations ${summary.violations.length}, statuses {${statuses}}, ${((Date.now() - started) / 1000).toFixed(1)} s`;
}
