/**
 * Starts the real Posthorn server in-process on 127.0.0.1:0 with a fresh data directory, and
 * bootstraps an organization, a project and a full-access key. Tests talk to it over HTTP.
 * With POSTHORN_TEST_ENGINE=postgresql the server stores in a fresh database of its own on the
 * PostgreSQL of scripts/peers (./postgres.ts), dropped when it stops; overrides of `storage` win.
 *
 * @example
 *   const ph = await startPosthorn(t, { webhooks: { allow_http: true } });
 *   const res = await ph.request('POST', '/v1/emails', { body: {...} });
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { validateConfig } from '../../src/platform/config/load.js';
import type { Config } from '../../src/platform/config/schema.js';
import { createLogger } from '../../src/platform/log.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { freshDatabase, testEngine } from './postgres.js';

export type ConfigOverrides = { [S in keyof Config]?: Partial<Config[S]> };

export interface Bootstrapped {
  readonly organizationId: string;
  readonly projectId: string;
  readonly userId: string;
  readonly apiKey: string;
}

export interface Response<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

export interface RequestOptions {
  readonly body?: unknown;
  readonly rawBody?: string | Buffer;
  readonly key?: string | null;
  readonly headers?: Record<string, string>;
}

export interface Posthorn {
  readonly url: string;
  readonly server: RunningServer;
  readonly dataDir: string;
  readonly config: Config;
  /** The bootstrapped owner's organization, sandbox project and full-access key. */
  readonly owner: Bootstrapped;
  request<T = any>(method: string, pathname: string, options?: RequestOptions): Promise<Response<T>>;
  /** Another organization/project/key, for isolation tests. */
  bootstrap(email?: string): Promise<Bootstrapped>;
  createKey(projectId: string, scopes: string[], mode?: 'live' | 'test'): Promise<string>;
  stop(): Promise<void>;
}

export function testConfig(dataDir: string, overrides: ConfigOverrides = {}): Config {
  const raw: Record<string, Record<string, unknown>> = {
    server: { listen: '127.0.0.1:0' },
    storage: { data_dir: dataDir, synchronous: 'normal' },
    smtp_in: { listen: '127.0.0.1:0', enabled: false },
    delivery: { enabled: false },
    log: { level: process.env.POSTHORN_TEST_LOG ?? 'silent' },
  };
  for (const [section, values] of Object.entries(overrides)) raw[section] = { ...raw[section], ...values };
  return validateConfig(raw, 'test config');
}

/**
 * The `[storage]` keys naming the store of `ph` (its data directory, and on PostgreSQL its
 * database), one per line: for a config file of a command run beside the server.
 */
export function storageToml(ph: Posthorn): string {
  const { engine, url } = ph.config.storage;
  const lines = [`data_dir = ${JSON.stringify(ph.dataDir)}`];
  if (engine === 'postgresql') lines.push('engine = "postgresql"', `url = ${JSON.stringify(url)}`);
  return lines.join('\n');
}

export async function startPosthorn(
  t: ExecutionContext | null,
  overrides: ConfigOverrides = {},
): Promise<Posthorn> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-test-'));
  const database =
    testEngine() === 'postgresql' && overrides.storage?.engine === undefined
      ? await freshDatabase(null, { migrated: true })
      : undefined;
  const storage = database ? { engine: 'postgresql' as const, url: database.url, pool_size: 4 } : {};
  const config = testConfig(dataDir, { ...overrides, storage: { ...storage, ...overrides.storage } });
  const log = createLogger(config.log.level);
  let server: RunningServer;
  try {
    server = await startServer(config, log);
  } catch (error) {
    await database?.drop();
    throw error;
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  t?.teardown(stop);

  const bootstrap = async (email = `owner-${Math.random().toString(36).slice(2, 8)}@example.test`) => {
    const ids = await server.services.projects.bootstrap(
      // Organization names are unique, like the owners' addresses here.
      { email, organization: `Test Org (${email})`, project: 'Test' },
      'test',
    );
    const key = await server.services.keys.create(
      { projectId: ids.projectId, scopes: ['full_access'], mode: 'live' },
      'test',
    );
    return { ...ids, apiKey: key.key };
  };
  const owner = await bootstrap('owner@example.test');

  const request = async <T>(
    method: string,
    pathname: string,
    options: RequestOptions = {},
  ): Promise<Response<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? owner.apiKey : options.key;
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${server.url}${pathname}`, { method, headers, body }).catch((error: unknown) => {
      // undici says only "fetch failed"; its cause (a reset, a refused or timed-out connect) is what
      // tells a dropped connection from a server that was not there.
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`${method} ${pathname}: fetch failed: ${cause?.code ?? ''} ${cause?.message ?? ''}`, {
        cause: error,
      });
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  const createKey = async (projectId: string, scopes: string[], mode: 'live' | 'test' = 'live') =>
    (await server.services.keys.create({ projectId, scopes, mode }, 'test')).key;

  return { url: server.url, server, dataDir, config, owner, request, bootstrap, createKey, stop };
}
