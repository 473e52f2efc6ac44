/**
 * int8 (counts, ms times) and numeric (sums) parsed as numbers, as SQLite hands them (times are
 * integer ms, far below 2^53; counts and sums are small), so one code path reads both engines.
 * Set once per thread: each worker thread has its own `pg` module.
 */
import pg from 'pg';

let typesSet = false;

export function parseNumbers(): void {
  if (typesSet) return;
  typesSet = true;
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));
}
