/**
 * Contact import: many contacts in one upload, as CSV (a header line naming the columns) or JSON
 * lines (one contact object per line), read as a stream so an upload of any number of rows holds
 * one batch in memory. Every row is checked as a single `POST .../contacts` body is (its consent
 * source and time required) and written by the same rules (contact-writes.ts), except that an
 * import never subscribes again someone who unsubscribed. Rows are written in batches of
 * `BATCH` per transaction, each with its events; a refused row is reported (line, address, why)
 * and never stops the others.
 *
 * CSV columns: `email`, `consent_source`, `consent_at`, `first_name`, `last_name`; any other
 * column becomes a metadata field of that name (an empty cell is left out).
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import type { EventService } from '../events/service.js';
import type { Db } from '../platform/db/database.js';
import { AppError } from '../platform/http/errors.js';
import { formatPath } from '../platform/http/validate.js';
import { insertNewContacts, newContact, writeContact } from './contact-writes.js';
import { type ContactRequest, contactRequest } from './schemas.js';
import type { AudienceStore, ContactRow } from './store.js';

export const BATCH = 500;
const MAX_REPORTED = 1000;
const KNOWN = new Set(['email', 'consent_source', 'consent_at', 'first_name', 'last_name', 'metadata']);

export type ImportFormat = 'csv' | 'jsonl';

export interface ImportReport {
  rows: number;
  created: number;
  updated: number;
  refused: number;
  errors: { line: number; email: string | null; error: string }[];
  errors_truncated: boolean;
}

interface Row {
  readonly line: number;
  readonly value: unknown;
  /** A row that could not even be read (bad JSON). */
  readonly unreadable?: string;
}

/** The format a Content-Type names, or undefined. */
export function importFormat(contentType: string | undefined): ImportFormat | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'text/csv') return 'csv';
  if (type === 'application/x-ndjson' || type === 'application/jsonl' || type === 'application/x-jsonlines')
    return 'jsonl';
  return undefined;
}

async function* jsonLines(input: Readable): AsyncGenerator<Row> {
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    line++;
    if (text.trim() === '') continue;
    try {
      yield { line, value: JSON.parse(text) as unknown };
    } catch (error) {
      yield { line, value: null, unreadable: `not valid JSON: ${(error as Error).message}` };
    }
  }
}

async function* csvRows(input: Readable): AsyncGenerator<Row> {
  const parser = input.pipe(
    parseCsv({
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    }),
  );
  for await (const record of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    const fields: Record<string, unknown> = {};
    const metadata: Record<string, string> = {};
    for (const [column, cell] of Object.entries(record.record)) {
      if (cell === '' || cell === undefined) continue;
      if (KNOWN.has(column) && column !== 'metadata') fields[column] = cell;
      else metadata[column] = cell;
    }
    if (Object.keys(metadata).length > 0) fields.metadata = metadata;
    yield { line: record.info.lines, value: fields };
  }
}

function problemOf(value: unknown): { request?: ContactRequest; error?: string; email: string | null } {
  const email =
    value !== null && typeof value === 'object' && typeof (value as { email?: unknown }).email === 'string'
      ? ((value as { email: string }).email as string)
      : null;
  const parsed = contactRequest.safeParse(value);
  if (parsed.success) return { request: parsed.data, email: parsed.data.email };
  const issue = parsed.error.issues[0];
  const where = issue ? formatPath(issue.path) : '';
  const message =
    issue?.code === 'unrecognized_keys'
      ? `${issue.keys.join(', ')}: not a supported field`
      : `${where || 'row'}: ${issue?.message ?? 'invalid'}`;
  return { error: message, email };
}

export async function importContacts(
  deps: { readonly db: Db; readonly store: AudienceStore; readonly events: EventService },
  target: { readonly projectId: string; readonly audienceId: string },
  input: Readable,
  format: ImportFormat,
): Promise<ImportReport> {
  const report: ImportReport = {
    rows: 0,
    created: 0,
    updated: 0,
    refused: 0,
    errors: [],
    errors_truncated: false,
  };
  const refuse = (line: number, email: string | null, error: string) => {
    report.refused++;
    if (report.errors.length < MAX_REPORTED) report.errors.push({ line, email, error });
    else report.errors_truncated = true;
  };
  let batch: { line: number; request: ContactRequest }[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    const now = Date.now();
    const ctx = { ...deps, ...target, via: 'import' as const, now };
    await deps.db.transaction().execute(async (trx) => {
      const existing = new Map<string, ContactRow>();
      const found = await deps.store.contactsByEmail(
        target.audienceId,
        [...new Set(rows.map((r) => r.request.email))],
        trx,
      );
      for (const row of found) existing.set(row.email, row);
      // New addresses go in together; a row for an address already known goes through the rules.
      const created: ReturnType<typeof newContact>[] = [];
      const later: typeof rows = [];
      for (const entry of rows) {
        if (existing.has(entry.request.email)) {
          later.push(entry);
          continue;
        }
        const fresh = newContact(ctx, entry.request);
        created.push(fresh);
        existing.set(entry.request.email, fresh.row);
      }
      await insertNewContacts(trx, ctx, created);
      report.created += created.length;
      for (const { line, request } of later) {
        const outcome = await writeContact(trx, ctx, request, existing.get(request.email));
        if (outcome.kind === 'refused') refuse(line, request.email, outcome.reason);
        else {
          existing.set(request.email, outcome.row);
          if (outcome.kind === 'created') report.created++;
          else report.updated++;
        }
      }
    });
    deps.events.notify();
  };

  try {
    for await (const row of format === 'csv' ? csvRows(input) : jsonLines(input)) {
      report.rows++;
      if (row.unreadable) {
        refuse(row.line, null, row.unreadable);
        continue;
      }
      const checked = problemOf(row.value);
      if (checked.request) batch.push({ line: row.line, request: checked.request });
      else refuse(row.line, checked.email, checked.error ?? 'invalid');
      if (batch.length >= BATCH) await flush();
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    // csv-parse reports malformed CSV (an unclosed quote) with the line it stopped at.
    const message = error instanceof Error ? error.message : String(error);
    await flush();
    throw new AppError(
      'invalid_request',
      `The upload could not be read past row ${report.rows}: ${message}. Rows before it were imported (${report.created} created, ${report.updated} updated).`,
    );
  }
  await flush();
  return report;
}
