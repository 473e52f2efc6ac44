/**
 * Mailbox-provider connections: a credential is checked against the provider before it is stored
 * (a refused one is a 400 and nothing is kept), sealed with the master key bound to the
 * connection's ID, and never returned or logged. A sync fetches the provider's latest data and
 * keeps it; when the provider is down or refuses, the error is recorded on the connection and the
 * data fetched before stays. The daily run (sync-engine.ts) syncs every connection.
 */
import { seal, unseal } from '../../platform/crypto.js';
import { AppError, badRequest, notFound } from '../../platform/http/errors.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/log.js';
import {
  PROVIDER_TITLES,
  type ProviderClient,
  type ProviderItem,
  type ProviderName,
  ProviderRefused,
  ProviderUnavailable,
} from './providers/http.js';
import type { ConnectionView } from './schemas.js';
import type { ConnectionRow, ConnectionStore } from './store.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const REPORT_DAYS = 7;

export function connectionView(row: ConnectionRow): ConnectionView {
  const failing = row.last_error !== null && (row.last_synced_at ?? 0) <= (row.last_error_at ?? 0);
  return {
    id: row.id,
    provider: row.provider,
    status: failing ? 'failing' : row.last_synced_at === null ? 'pending' : 'ok',
    created_at: new Date(row.created_at).toISOString(),
    last_synced_at: iso(row.last_synced_at),
    last_error: row.last_error,
    last_error_at: iso(row.last_error_at),
  };
}

const itemView = (row: { kind: string; subject: string; day: string; data: string }) => ({
  kind: row.kind as ProviderItem['kind'],
  subject: row.subject,
  day: row.day,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

export interface ConnectionDeps {
  readonly store: ConnectionStore;
  readonly masterKey: Buffer;
  readonly clients: Readonly<Record<ProviderName, ProviderClient>>;
  readonly log: Logger;
}

export function createConnectionService(deps: ConnectionDeps) {
  const { store } = deps;
  const credentialOf = (row: ConnectionRow) => unseal(deps.masterKey, row.credential_sealed, row.id);

  async function fetchAndKeep(row: ConnectionRow, now: number): Promise<ProviderItem[]> {
    try {
      const items = await deps.clients[row.provider].fetch(credentialOf(row), now);
      await store.saveSync(row.id, items, now);
      return items;
    } catch (error) {
      const message =
        error instanceof ProviderRefused || error instanceof ProviderUnavailable
          ? error.message
          : `${PROVIDER_TITLES[row.provider]}: the sync failed.`;
      await store.saveError(row.id, message, now);
      if (!(error instanceof ProviderRefused || error instanceof ProviderUnavailable))
        deps.log.error({ err: error, connection_id: row.id }, 'provider sync failed');
      throw error;
    }
  }

  return {
    async list(projectId: string): Promise<ConnectionView[]> {
      return (await store.list(projectId)).map(connectionView);
    },

    async create(
      projectId: string,
      userId: string | null,
      input: { provider: ProviderName; credential: string },
      now = Date.now(),
    ): Promise<ConnectionView> {
      const title = PROVIDER_TITLES[input.provider];
      try {
        await deps.clients[input.provider].verify(input.credential);
      } catch (error) {
        if (error instanceof ProviderRefused)
          throw badRequest(`${error.message} Nothing was stored.`, [
            { path: 'credential', message: `was refused by ${title}` },
          ]);
        if (error instanceof ProviderUnavailable)
          throw new AppError('unavailable', `${error.message} Nothing was stored; try again later.`);
        throw error;
      }
      const id = newId('rep', now);
      const row: ConnectionRow = {
        id,
        project_id: projectId,
        provider: input.provider,
        credential_sealed: seal(deps.masterKey, input.credential, id),
        created_by: userId,
        last_synced_at: null,
        last_error: null,
        last_error_at: null,
        created_at: now,
      };
      await store.insert(row);
      return connectionView(row);
    },

    /** Fetches the latest data now: 200 with what came; 503 when the provider is down, 422 when it refuses. */
    async sync(projectId: string, id: string, now = Date.now()) {
      const row = await store.get(projectId, id);
      if (!row) throw notFound(`Connection ${id}`);
      let items: ProviderItem[];
      try {
        items = await fetchAndKeep(row, now);
      } catch (error) {
        if (error instanceof ProviderUnavailable)
          throw new AppError('unavailable', `${error.message} The data fetched before is kept.`);
        if (error instanceof ProviderRefused)
          throw new AppError(
            'unprocessable',
            `${error.message} Connect again with a new credential; the data fetched before is kept.`,
          );
        throw error;
      }
      const synced = (await store.get(projectId, id)) ?? row;
      return {
        connection: connectionView(synced),
        fetched: {
          items: items.length,
          subjects: [...new Set(items.map((item) => item.subject))].sort(),
          days: [...new Set(items.map((item) => item.day))].sort(),
        },
        data: items.map((item) => ({ ...item, data: { ...item.data } })),
      };
    },

    /** Erases the connection, its sealed credential and its data; 404 when there is none. */
    async remove(projectId: string, id: string): Promise<void> {
      if (!(await store.remove(projectId, id))) throw notFound(`Connection ${id}`);
    },

    /** Syncs every connection (the daily run); one's failure is recorded and the next goes on. */
    async syncAll(signal: AbortSignal, now = Date.now()): Promise<{ synced: number; failed: number }> {
      let synced = 0;
      let failed = 0;
      for (const row of await store.list()) {
        if (signal.aborted) break;
        try {
          await fetchAndKeep(row, now);
          synced += 1;
        } catch {
          failed += 1;
        }
      }
      return { synced, failed };
    },

    /** The project's connections with their last 7 days of data (GET /v1/reputation). */
    async report(projectId: string, now = Date.now()) {
      const first = new Date(now - REPORT_DAYS * 86_400_000).toISOString().slice(0, 10);
      return Promise.all(
        (await store.list(projectId)).map(async (row) => ({
          ...connectionView(row),
          data: (await store.data(row.id, first)).map(itemView),
        })),
      );
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
