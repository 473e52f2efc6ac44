/**
 * The reputation center's projection: reads the event log from its own cursor (through the events
 * service), sums each batch's outcomes per project, sending domain or lane, and hour, and writes
 * the sums and the cursor in one transaction, so a crash keeps both or neither. Only live traffic
 * counts: test sends never reach a provider. An event without a lane (an asynchronous DSN, a
 * complaint) takes the lane that carried its message, as analytics recorded it.
 *
 * On SQLite a batch commits with synchronous=NORMAL (durability.ts), as analytics' projection does:
 * the sums derive from the event log and roll back with the cursor, so a power cut only projects
 * the batch again. A FULL commit fsynced on the event loop every time events were appended (every
 * 250 ms under steady traffic, 2 to 20 ms each), stalling the requests in flight.
 */
import type SQLite from 'better-sqlite3';
import type { CursorStore } from '../../events/cursors.js';
import type { EventRecord } from '../../events/service.js';
import type { EventWindow } from '../../events/window.js';
import type { Db } from '../../platform/db/database.js';
import { withRelaxedSyncAsync } from '../../platform/db/durability.js';
import type { KeyMode } from '../../platform/db/tables.js';
import { lockInTransaction } from '../../platform/db/transaction-lock.js';
import { COUNT_NAMES, fromDomain, laneOfEvent, outcomeOf, REPUTATION_EVENT_TYPES } from './outcomes.js';
import type { HourlyDelta, ReputationStore } from './store.js';

export const REPUTATION_CURSOR = 'reputation';
const HOUR = 3_600_000;
const TYPES: ReadonlySet<string> = new Set(REPUTATION_EVENT_TYPES);

/** What a batch looks up about its events: a message's mode, the lane analytics recorded. */
export interface PageLookups {
  readonly messageMode: (messageId: string) => KeyMode | undefined;
  /** The lane analytics recorded for a recipient of a message, if any. */
  readonly laneOf: (messageId: string, recipient: string) => string | undefined;
}

export interface ProjectorDeps {
  readonly db: Db;
  readonly store: ReputationStore;
  readonly cursors: CursorStore;
  /** The event log's window reader (events/window.ts): only the types counted here are read whole. */
  readonly windowAfter: (
    afterId: string,
    limit: number,
    types: readonly string[],
    executor?: Db,
  ) => Promise<EventWindow>;
  /**
   * The lookups, synchronous (SQLite's prepared statements) or read for a whole page at once
   * (PostgreSQL: one query each, given the page's events), as a function of the page.
   */
  readonly lookups: PageLookups | ((rows: readonly EventRecord[]) => Promise<PageLookups>);
  /** SQLite: the connection, whose batches commit without an fsync. */
  readonly sqlite?: SQLite.Database;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function merge(into: Map<string, Mutable<HourlyDelta>>, delta: HourlyDelta): void {
  const key = `${delta.projectId}\u0000${delta.kind}\u0000${delta.name}\u0000${delta.hour}`;
  const known = into.get(key);
  if (!known) {
    into.set(key, { ...delta, counts: { ...delta.counts } });
    return;
  }
  for (const name of COUNT_NAMES) known.counts[name] += delta.counts[name];
  if (delta.block && (!known.block || delta.block.at >= known.block.at)) known.block = delta.block;
}

export function createReputationProjector(deps: ProjectorDeps) {
  const modes = new Map<string, KeyMode>();
  let page: PageLookups =
    typeof deps.lookups === 'function'
      ? { messageMode: () => undefined, laneOf: () => undefined }
      : deps.lookups;
  const modeOf = (messageId: string | null): KeyMode => {
    if (messageId === null) return 'live';
    let mode = modes.get(messageId);
    if (mode === undefined) {
      mode = page.messageMode(messageId) ?? 'live';
      if (modes.size > 10_000) modes.clear();
      modes.set(messageId, mode);
    }
    return mode;
  };

  function deltasOf(row: EventRecord): HourlyDelta[] {
    if (!TYPES.has(row.type)) return [];
    if (modeOf(row.message_id) === 'test') return [];
    const data = JSON.parse(row.data) as Record<string, unknown>;
    const outcome = outcomeOf(row.type, data, row.created_at);
    if (!outcome) return [];
    const hour = Math.floor(row.created_at / HOUR);
    const lane =
      laneOfEvent(data) ??
      (row.message_id && row.recipient ? page.laneOf(row.message_id, row.recipient) : undefined) ??
      'unknown';
    const base = { projectId: row.project_id, hour, counts: outcome.counts, block: outcome.block };
    const domain = fromDomain(data.from);
    return [
      { ...base, kind: 'lane', name: lane },
      ...(domain === '' ? [] : [{ ...base, kind: 'domain' as const, name: domain }]),
    ];
  }

  return {
    /** Projects up to `limit` events; returns how many were read (0: caught up). */
    async runBatch(limit: number): Promise<number> {
      // One transaction from the cursor's read to its move, under a lock of its own on PostgreSQL:
      // a report's catch-up on one node and the engine on another never project a page twice.
      const batch = async (trx: Db): Promise<number> => {
        await lockInTransaction(trx, 'reputation-projection');
        const cursor = await deps.cursors.get(REPUTATION_CURSOR, trx);
        // Only the counted types are read whole (opens and clicks, most of a tracked log, are not).
        const { rows, last, read } = await deps.windowAfter(cursor, limit, REPUTATION_EVENT_TYPES, trx);
        if (last === undefined) return 0;
        if (typeof deps.lookups === 'function' && rows.length > 0) page = await deps.lookups(rows);
        const sums = new Map<string, Mutable<HourlyDelta>>();
        for (const row of rows) for (const delta of deltasOf(row)) merge(sums, delta);
        for (const delta of sums.values()) await deps.store.add(trx, delta);
        await deps.cursors.set(REPUTATION_CURSOR, last, trx);
        return read;
      };
      const { sqlite } = deps;
      if (sqlite === undefined) return deps.db.transaction().execute(batch);
      return deps.db
        .connection()
        .execute((conn) => withRelaxedSyncAsync(sqlite, () => conn.transaction().execute(batch)));
    },
  };
}

export type ReputationProjector = ReturnType<typeof createReputationProjector>;
