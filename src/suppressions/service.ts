/**
 * The suppression list: addresses a project may not send to, and why. The send path asks
 * `findSuppressed` once per request (one indexed query); delivery and inbound add addresses
 * with `addWithin` inside their own transaction, so a bounce and its suppression commit together.
 *
 * A project has two lists, one per key mode (DESIGN.md §4a): what a `ph_test_` send's bounce or a
 * test key adds applies to test sends only, and the live list to live sends only; every method
 * takes the mode and defaults to live. The reserved test recipients (`bounce@`, `complaint@`,
 * `delay@` at `sandbox.test_domain`) are never suppressed: their outcomes add nothing, the API
 * refuses them, and a row left from before is never a hit.
 */
import type { Db } from '../platform/db/database.js';
import type { KeyMode, SuppressionReason } from '../platform/db/tables.js';
import { badRequest } from '../platform/http/errors.js';
import { newId } from '../platform/ids.js';
import { isTestRecipient } from '../platform/test-recipients.js';
import { normalizeEmail } from '../platform/normalize-email.js';
import type { SUPPRESSION_SOURCES, SuppressionRecord } from './schemas.js';
import { LOOKUP_CHUNK, type SuppressionRow, type SuppressionStore } from './store.js';

export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];

export interface SuppressionInput {
  readonly projectId: string;
  /** The list: that of the key mode of the send or key that caused it; live by default. */
  readonly mode?: KeyMode;
  /** Any spelling of the address; it is normalized with `normalizeEmail`. */
  readonly email: string;
  readonly reason: SuppressionReason;
  /** Defaults from the reason: bounces → `bounce`, `spam_complaint` → `complaint`, ... else `api`. */
  readonly source?: SuppressionSource;
  /** The message whose outcome caused this, for the record. */
  readonly messageId?: string | null;
  readonly at?: number;
}

const DEFAULT_SOURCE: Record<SuppressionReason, SuppressionSource> = {
  hard_bounce: 'bounce',
  repeated_soft_bounce: 'bounce',
  spam_complaint: 'complaint',
  unsubscribe: 'unsubscribe',
  manual_block: 'api',
  abuse_decision: 'operator',
  invalid_address: 'validation',
};

const iso = (ms: number) => new Date(ms).toISOString();

export function suppressionRecord(row: SuppressionRow): SuppressionRecord {
  return {
    id: row.id,
    email: row.email,
    reason: row.reason,
    source: row.source as SuppressionSource,
    message_id: row.message_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function normalizedOrThrow(email: string, field = 'email'): string {
  const normalized = normalizeEmail(email);
  if (normalized === undefined) {
    throw badRequest(`${field}: "${email}" is not an email address.`, [
      { path: field, message: 'is not an email address' },
    ]);
  }
  return normalized;
}

export function createSuppressionService(store: SuppressionStore, options: { readonly testDomain: string }) {
  const reserved = (normalized: string) => isTestRecipient(normalized, options.testDomain);

  const upsert = async (executor: Db | undefined, input: SuppressionInput): Promise<SuppressionRecord> => {
    const at = input.at ?? Date.now();
    const row = await store.upsert(
      {
        id: newId('sup', at),
        project_id: input.projectId,
        mode: input.mode ?? 'live',
        email: normalizedOrThrow(input.email),
        reason: input.reason,
        source: input.source ?? DEFAULT_SOURCE[input.reason],
        message_id: input.messageId ?? null,
        created_at: at,
        updated_at: at,
      },
      executor,
    );
    return suppressionRecord(row);
  };

  return {
    /**
     * Adds the address, or updates the reason of an address already listed. 400 for a non-address
     * or a reserved test recipient.
     */
    add(input: SuppressionInput): Promise<SuppressionRecord> {
      if (reserved(normalizedOrThrow(input.email))) {
        const problem = `is a reserved test recipient of ${options.testDomain}, which is never suppressed`;
        throw badRequest(`email: "${input.email}" ${problem}.`, [{ path: 'email', message: problem }]);
      }
      return upsert(undefined, input);
    },

    /**
     * `add` inside the caller's transaction (delivery: hard_bounce, repeated_soft_bounce; inbound:
     * spam_complaint, unsubscribe), so the outcome and the suppression commit together.
     *
     * @example
     * await db.transaction().execute(async (trx) => {
     *   await services.suppressions.addWithin(trx, { projectId, email, reason: 'hard_bounce', messageId });
     * });
     */
    addWithin(trx: Db, input: SuppressionInput): Promise<SuppressionRecord | undefined> {
      const normalized = normalizeEmail(input.email);
      if (normalized !== undefined && reserved(normalized)) return Promise.resolve(undefined);
      return upsert(trx, input);
    },

    /** The record for one address, or undefined when it is not suppressed (or is no address). */
    async get(
      projectId: string,
      email: string,
      mode: KeyMode = 'live',
    ): Promise<SuppressionRecord | undefined> {
      const normalized = normalizeEmail(email);
      if (normalized === undefined || reserved(normalized)) return undefined;
      const row = await store.find(projectId, mode, normalized);
      return row ? suppressionRecord(row) : undefined;
    },

    /**
     * `get` for an address already in `normalizeEmail`'s form (as the validation cache keeps it):
     * it is not normalized again, which cost more than the lookup on every validation.
     */
    async getNormalized(
      projectId: string,
      normalized: string,
      mode: KeyMode = 'live',
    ): Promise<SuppressionRecord | undefined> {
      if (reserved(normalized)) return undefined;
      const row = await store.find(projectId, mode, normalized);
      return row ? suppressionRecord(row) : undefined;
    },

    /** True when the address was listed and is now removed. */
    async remove(projectId: string, email: string, mode: KeyMode = 'live', executor?: Db): Promise<boolean> {
      const normalized = normalizeEmail(email);
      if (normalized === undefined) return false;
      return store.remove(projectId, mode, normalized, executor);
    },

    async list(
      projectId: string,
      page: {
        limit: number;
        after?: string | undefined;
        reason?: SuppressionReason | undefined;
        mode?: KeyMode | undefined;
      },
    ): Promise<{ data: SuppressionRecord[]; has_more: boolean }> {
      const { mode = 'live', ...rest } = page;
      const rows = await store.list(projectId, mode, { ...rest, limit: page.limit + 1 });
      return {
        data: rows.slice(0, page.limit).map(suppressionRecord),
        has_more: rows.length > page.limit,
      };
    },

    /**
     * Which of `emails` are suppressed in the project: a map from `normalizeEmail(address)` to its
     * record; addresses absent from the map may be sent to. Up to 1,000 addresses (a send has at
     * most 300) are answered by ONE query over the unique (project_id, mode, email) index. Strings that
     * are not addresses are never suppressed; the caller's validation refuses them.
     *
     * @example
     * const hits = await services.suppressions.findSuppressed(projectId, ['A@x.com', 'b@y.org']);
     * if (hits.size > 0) throw new AppError('suppressed', `${[...hits.keys()][0]} is on the suppression list.`);
     */
    async findSuppressed(
      projectId: string,
      emails: readonly string[],
      executor?: Db,
      mode: KeyMode = 'live',
    ): Promise<Map<string, SuppressionRecord>> {
      const wanted = new Set<string>();
      for (const email of emails) {
        const normalized = normalizeEmail(email);
        if (normalized !== undefined && !reserved(normalized)) wanted.add(normalized);
      }
      const list = [...wanted];
      const found = new Map<string, SuppressionRecord>();
      for (let i = 0; i < list.length; i += LOOKUP_CHUNK) {
        const rows = await store.findMany(projectId, mode, list.slice(i, i + LOOKUP_CHUNK), executor);
        for (const row of rows) found.set(row.email, suppressionRecord(row));
      }
      return found;
    },
  };
}

export type SuppressionService = ReturnType<typeof createSuppressionService>;
