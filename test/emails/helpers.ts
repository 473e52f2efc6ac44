/**
 * Shared by the send API tests: a verified sending domain for the bootstrapped project, bodies of
 * the usual shapes, and row counts straight from the store.
 */
import type { Posthorn } from '../helpers/server.js';
import { query } from '../helpers/sql.js';

export const SANDBOX = 'sandbox@posthorn.test';

/**
 * Marks `name` verified for the project. Domain verification itself (DNS) is the domains
 * capability's to test; the send path only needs a domain in state `verified`.
 */
export async function verifiedDomain(
  ph: Posthorn,
  name = 'acme.test',
  projectId = ph.owner.projectId,
): Promise<string> {
  const now = Date.now();
  const id = `dom_${Math.random().toString(36).slice(2, 12).toUpperCase()}`;
  const store = ph.server.kernel.store;
  await query(
    store,
    `insert into domains (id, project_id, name, region, status, checks, created_at, updated_at, verified_at)
     values (?, ?, ?, 'eu', 'verified', '{}', ?, ?, ?)`,
    id,
    projectId,
    name,
    now,
    now,
    now,
  );
  // As verifying a domain through the API does: its project leaves the sandbox.
  await query(store, `update projects set status = 'active' where id = ? and status = 'sandbox'`, projectId);
  return name;
}

export function email(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    from: 'Acme <hello@acme.test>',
    to: ['ann@example.com'],
    subject: 'Hello',
    html: '<p>Hello</p>',
    ...overrides,
  };
}

export async function count(
  ph: Posthorn,
  table: string,
  where = '1 = 1',
  ...params: unknown[]
): Promise<number> {
  const [row] = await query<{ n: number }>(
    ph.server.kernel.store,
    `select count(*) as n from ${table} where ${where}`,
    ...params,
  );
  return Number(row?.n);
}

export function rows<T = Record<string, unknown>>(
  ph: Posthorn,
  sql: string,
  ...params: unknown[]
): Promise<T[]> {
  return query<T>(ph.server.kernel.store, sql, ...params);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
