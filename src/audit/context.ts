/**
 * The actor of the request in progress, carried through its async calls, so that a service deep
 * below a route records who acted without every call passing it down, and so that the HTTP layer
 * knows whether the request already wrote an audit record.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Actor } from './actor.js';

export interface AuditScope {
  readonly actor: Actor;
  readonly organizationId: string | null;
  readonly projectId: string | null;
  /** Set once an audit record was written in this scope. */
  recorded: boolean;
}

const storage = new AsyncLocalStorage<AuditScope>();

export function runInAuditScope<T>(scope: AuditScope, work: () => Promise<T>): Promise<T> {
  return storage.run(scope, work);
}

export function currentAuditScope(): AuditScope | undefined {
  return storage.getStore();
}
