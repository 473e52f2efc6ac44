/**
 * The real HTTP core (createApp) on 127.0.0.1:0 with a few test routes, authenticating against a
 * real server's key store; optionally with its access log captured as parsed JSON lines.
 *
 * @example
 *   const { call, url, logs } = await startCore(t, { maxBodyBytes: 1024, accessLog: true });
 */
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { ExecutionContext } from 'ava';
import { z } from 'zod';
import { createAuthenticators } from '../../src/auth/authenticators.js';
import { createApp } from '../../src/platform/http/app.js';
import { defineRoute, type RouteSpec } from '../../src/platform/http/route.js';
import { createLogger } from '../../src/platform/log.js';
import { startPosthorn } from './server.js';

const routes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/v1/things',
    summary: 'test',
    tag: 'Test',
    auth: 'key',
    scope: 'domains:write',
    body: z.strictObject({ name: z.string().min(1), size: z.int().optional() }),
    responses: { 201: { description: 'ok' } },
    handler: (req) => ({ status: 201, body: { name: req.body.name } }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/things/{id}',
    summary: 'test',
    tag: 'Test',
    auth: 'key',
    responses: { 200: { description: 'ok' } },
    handler: (req) => ({ status: 200, body: { id: (req.params as { id: string }).id } }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/things/{id}/poke',
    summary: 'test: an action that takes no body',
    tag: 'Test',
    auth: 'key',
    responses: { 200: { description: 'ok' } },
    handler: (req) => ({ status: 200, body: { poked: (req.params as { id: string }).id } }),
  }),
];

export interface CoreOptions {
  readonly maxBodyBytes?: number;
  readonly accessLog?: boolean;
}

export async function startCore(t: ExecutionContext, options: CoreOptions | number = {}) {
  const { maxBodyBytes = 1024, accessLog = false } =
    typeof options === 'number' ? { maxBodyBytes: options } : options;
  const ph = await startPosthorn(t);
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line));
      callback();
    },
  });
  const app = createApp({
    log: createLogger(accessLog ? 'info' : 'silent', sink),
    accessLog,
    maxBodyBytes,
    trustProxy: false,
    routes,
    authenticators: createAuthenticators(ph.server.services),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (
    method: string,
    path: string,
    init: { body?: string; key?: string | null; type?: string } = {},
  ) => {
    const headers: Record<string, string> = {};
    const key = init.key === undefined ? ph.owner.apiKey : init.key;
    if (key) headers.authorization = `Bearer ${key}`;
    if (init.body !== undefined) headers['content-type'] = init.type ?? 'application/json';
    const res = await fetch(`${url}${path}`, { method, headers, body: init.body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  return { ph, call, url, logs };
}
