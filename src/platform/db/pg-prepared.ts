/**
 * The PostgreSQL pool's client: a statement the node sends again (the same SQL text, with
 * parameters) is prepared once per connection under a name of its own and then only bound and
 * executed. Sent unnamed, every execution was parsed and planned again: `pg_stat_statements`
 * with `track_planning` over a `scripts/bench delivery --engine postgresql` round counted 1.8 s of
 * planning against 6.0 s of execution, the batched message load planning longer (370 ms) than it
 * ran (341 ms), the outcome statement about 1 ms of planning per batch.
 *
 * Bounded on both sides: the texts remembered (a text is named at its second use, so a one-off
 * statement is never prepared) and the statements prepared per connection (past the limit a
 * connection sends the rest unnamed). The name is a hash of the text, so one name is never two
 * statements. PostgreSQL's plan cache keeps a custom plan per execution until a generic one is
 * as cheap, so a statement whose plan depends on its values is planned as before.
 *
 * A connection whose prepared statement no longer fits the schema (a migration changed a table
 * under a running node: "cached plan must not change result type") fails that query and sends
 * every later one unnamed. docs/decisions/storage.md, "Prepared statements on PostgreSQL".
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

/** SQL texts remembered with their use count; the oldest is forgotten first. */
const TEXTS = 2000;
/** Statements one connection prepares at most. */
const PER_CONNECTION = 256;
/** Errors after which a connection stops naming statements (feature_not_supported: the schema changed). */
const STALE = new Set(['0A000']);

const seen = new Map<string, { uses: number; name: string }>();

/** The statement name of `text` from its second use on; undefined before. */
export function statementName(text: string): string | undefined {
  let entry = seen.get(text);
  if (entry === undefined) {
    if (seen.size >= TEXTS) seen.delete(seen.keys().next().value as string);
    entry = { uses: 0, name: '' };
    seen.set(text, entry);
  }
  entry.uses += 1;
  if (entry.uses < 2) return undefined;
  if (entry.name === '') entry.name = `ph_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
  return entry.name;
}

type Query = pg.Client['query'];

export class PreparingClient extends pg.Client {
  readonly #prepared = new Set<string>();
  #naming = true;

  // Kysely's driver calls query(text, values) and awaits the promise; every other form passes through.
  override query: Query = ((config: unknown, values?: unknown, callback?: unknown) => {
    if (
      this.#naming &&
      typeof config === 'string' &&
      Array.isArray(values) &&
      values.length > 0 &&
      callback === undefined
    ) {
      const name = statementName(config);
      if (name !== undefined && (this.#prepared.has(name) || this.#prepared.size < PER_CONNECTION)) {
        this.#prepared.add(name);
        return (super.query({ name, text: config, values }) as Promise<pg.QueryResult>).catch(
          (error: unknown) => {
            if (STALE.has((error as { code?: string } | null)?.code ?? '')) this.#naming = false;
            throw error;
          },
        );
      }
    }
    return (super.query as (...args: unknown[]) => unknown).call(this, config, values, callback);
  }) as Query;
}
