/**
 * The message history's status trigger (0001-schema's `message_history_status`) per statement,
 * not per row: a statement that changes the status of many messages (the delivery outcome
 * writer's batch) updates their history rows in one statement and each count row of
 * `message_history_counts` once, by the batch's net change, instead of two count updates per
 * message. Per row, every message of a batch updated the same two hot count rows (project, mode,
 * 'queued' and 'delivered') and took their locks one message after the other; under load each
 * update also walked the row's growing chain of dead versions (`scripts/bench delivery --engine
 * postgresql` measured 4.3 ms per count insert, most of the database's time).
 *
 * What is counted is unchanged: a message counts once indexed (`message_history` has its row); a
 * count row is created by a status arriving, never by one leaving (as the row trigger did). Count
 * rows are written in key order, so two nodes' statements lock them in the same order.
 */
import { type Kysely, sql } from 'kysely';

const statements = [
  'DROP TRIGGER message_history_status ON messages',
  'DROP FUNCTION message_history_status()',
  `CREATE FUNCTION message_history_statuses() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     WITH changed AS (
       SELECT n.rowid, n.project_id, n.mode, o.status AS old_status, n.status AS new_status
         FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.status <> o.status
          AND EXISTS (SELECT 1 FROM message_history h WHERE h.message_rowid = n.rowid)
     ), moved AS (
       UPDATE message_history h SET status = c.new_status FROM changed c WHERE h.message_rowid = c.rowid
     ), deltas AS (
       SELECT project_id, mode, status, sum(d)::bigint AS d, bool_or(d > 0) AS arriving
         FROM (SELECT project_id, mode, new_status AS status, 1 AS d FROM changed
               UNION ALL SELECT project_id, mode, old_status, -1 FROM changed) s
        GROUP BY project_id, mode, status
     )
     INSERT INTO message_history_counts AS c (project_id, mode, status, n)
     SELECT x.project_id, x.mode, x.status, x.d FROM deltas x
      WHERE x.d <> 0
        AND (x.arriving OR EXISTS (SELECT 1 FROM message_history_counts k
              WHERE k.project_id = x.project_id AND k.mode = x.mode AND k.status = x.status))
      ORDER BY x.project_id, x.mode, x.status
     ON CONFLICT (project_id, mode, status) DO UPDATE SET n = c.n + excluded.n;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER message_history_statuses AFTER UPDATE ON messages
   REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
   FOR EACH STATEMENT EXECUTE FUNCTION message_history_statuses()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
