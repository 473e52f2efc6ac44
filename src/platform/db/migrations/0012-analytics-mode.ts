/**
 * Analytics by key mode: `ph_test_` traffic (sandbox bounces and complaints included) was counted
 * with the live traffic. `analytics_recipients` gains `mode`, each record taking its message's
 * (live when the message is gone); `analytics_daily` is rebuilt with `mode` in its primary key,
 * every existing row as live. Then the records that count differently now are moved out of the
 * rows they were counted in, as the projection would have moved them:
 * - a test message's recipients leave the live rows for test ones;
 * - a recipient of a scheduled send cancelled before this migration (no event said so) stops
 *   counting at all;
 * - a recipient bounced after its delivery takes its latency out of the histogram.
 * Days whose records retention already removed keep what they had, test traffic included. The
 * counting rules are written out here as they stand at this migration; the histograms are read
 * and written by their one implementation, which owns their stored form. Last, the day index gives
 * way to one on the last change of settled records, which retention now goes by.
 */
import { type Kysely, sql } from 'kysely';
import { LatencyHistogram } from '../../../analytics/latency-histogram.js';

const COUNTERS = [
  'accepted',
  'queued',
  'deferred',
  'delivered',
  'bounced',
  'complained',
  'failed',
  'suppressed',
  'unique_opens',
  'unique_clicks',
] as const;
type Counters = Record<(typeof COUNTERS)[number], number>;

interface Row {
  message_id: string;
  recipient: string;
  project_id: string;
  mode: string;
  day: number;
  lane: string;
  status: string;
  delivered_at: number | null;
  latency_ms: number | null;
  opened: number;
  clicked: number;
  message_status: string | null;
}

/** A record's place and what it adds there: its counters and the latency in the histogram. */
interface Share {
  readonly key: string;
  readonly counters: Counters;
  readonly latency: number | null;
}

interface Change {
  readonly project_id: string;
  readonly mode: string;
  readonly day: number;
  readonly lane: string;
  readonly counters: Counters;
  readonly added: number[];
  readonly removed: number[];
}

function counted(status: string, opened: number, clicked: number): Counters {
  const c = Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Counters;
  if (status === 'cancelled') return c;
  c.accepted = 1;
  if (status === 'scheduled' || status === 'queued') c.queued = 1;
  else if (status === 'complained') {
    c.delivered = 1;
    c.complained = 1;
  } else if (status in c) c[status as keyof Counters] = 1;
  c.unique_opens = opened;
  c.unique_clicks = clicked;
  return c;
}

/** Before: counted in the live row, its latency in the histogram once delivered. */
function before(row: Row): Share {
  return {
    key: JSON.stringify([row.project_id, 'live', row.day, row.lane]),
    counters: counted(row.status, row.opened, row.clicked),
    latency: row.delivered_at !== null ? row.latency_ms : null,
  };
}

/** Now: in its mode's row, its latency in the histogram only while it counts as delivered. */
function now(row: Row, status: string): Share {
  const delivered = status === 'delivered' || status === 'complained';
  return {
    key: JSON.stringify([row.project_id, row.mode, row.day, row.lane]),
    counters: counted(status, row.opened, row.clicked),
    latency: delivered && row.delivered_at !== null ? row.latency_ms : null,
  };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('analytics_recipients')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live').check(sql`mode in ('live', 'test')`))
    .execute();
  await sql`update analytics_recipients set mode = 'test'
            where message_id in (select id from messages where mode = 'test')`.execute(db);

  await db.schema
    .createTable('analytics_daily_0012')
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('lane', 'text', (c) => c.notNull())
    .$call((table) => {
      let t = table;
      for (const name of COUNTERS) t = t.addColumn(name, 'integer', (c) => c.notNull().defaultTo(0));
      return t;
    })
    .addColumn('latency', 'text', (c) => c.notNull().defaultTo('[]'))
    .addPrimaryKeyConstraint('analytics_daily_pk', ['project_id', 'mode', 'day', 'lane'])
    .modifyEnd(sql`without rowid`)
    .execute();
  const columns = sql.raw(COUNTERS.join(', '));
  await sql`insert into analytics_daily_0012 (project_id, mode, day, lane, ${columns}, latency)
            select project_id, 'live', day, lane, ${columns}, latency from analytics_daily`.execute(db);
  await db.schema.dropTable('analytics_daily').execute();
  await db.schema.alterTable('analytics_daily_0012').renameTo('analytics_daily').execute();

  await moveRecords(db);

  // Retention forgets settled records by their last change (analytics/store.ts), never pending ones.
  await db.schema.dropIndex('analytics_recipients_day').execute();
  await db.schema
    .createIndex('analytics_recipients_settled')
    .on('analytics_recipients')
    .column('updated_at')
    .where(sql<boolean>`status not in ('scheduled', 'queued', 'deferred')`)
    .execute();
}

/** Moves the contribution of every record that counts differently now; see the header. */
async function moveRecords(db: Kysely<unknown>): Promise<void> {
  const changes = new Map<string, Change>();
  const change = (key: string): Change => {
    let entry = changes.get(key);
    if (!entry) {
      const [project_id, mode, day, lane] = JSON.parse(key) as [string, string, number, string];
      const counters = Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Counters;
      entry = { project_id, mode, day, lane, counters, added: [], removed: [] };
      changes.set(key, entry);
    }
    return entry;
  };
  let after: [string, string] = ['', ''];
  for (;;) {
    const { rows } = await sql<Row>`
      select r.message_id, r.recipient, r.project_id, r.mode, r.day, r.lane, r.status, r.delivered_at,
             r.latency_ms, r.opened, r.clicked, m.status as message_status
      from analytics_recipients r left join messages m on m.id = r.message_id
      where (r.message_id, r.recipient) > (${after[0]}, ${after[1]})
        and (r.mode = 'test' or r.status in ('scheduled', 'bounced'))
      order by r.message_id, r.recipient limit 1000`.execute(db);
    for (const row of rows) {
      const cancelled = row.status === 'scheduled' && row.message_status === 'cancelled';
      const was = before(row);
      const is = now(row, cancelled ? 'cancelled' : row.status);
      const same = COUNTERS.every((name) => was.counters[name] === is.counters[name]);
      if (was.key === is.key && was.latency === is.latency && same) continue;
      if (cancelled) {
        await sql`update analytics_recipients set status = 'cancelled'
                  where message_id = ${row.message_id} and recipient = ${row.recipient}`.execute(db);
      }
      for (const name of COUNTERS) {
        change(was.key).counters[name] -= was.counters[name];
        change(is.key).counters[name] += is.counters[name];
      }
      if (was.latency !== null) change(was.key).removed.push(was.latency);
      if (is.latency !== null) change(is.key).added.push(is.latency);
    }
    const last = rows.at(-1);
    if (!last) break;
    after = [last.message_id, last.recipient];
  }
  for (const entry of changes.values()) await apply(db, entry);
}

async function apply(db: Kysely<unknown>, entry: Change): Promise<void> {
  const { project_id, mode, day, lane } = entry;
  const { rows } = await sql<Counters & { latency: string }>`
    select * from analytics_daily
    where project_id = ${project_id} and mode = ${mode} and day = ${day} and lane = ${lane}`.execute(db);
  const current = rows[0];
  const histogram = LatencyHistogram.parse(current?.latency ?? '[]');
  for (const latency of entry.removed) histogram.remove(latency);
  for (const latency of entry.added) histogram.add(latency);
  const values = COUNTERS.map((name) => (current?.[name] ?? 0) + entry.counters[name]);
  await sql`insert or replace into analytics_daily (project_id, mode, day, lane, ${sql.raw(COUNTERS.join(', '))}, latency)
            values (${project_id}, ${mode}, ${day}, ${lane}, ${sql.join(values)}, ${histogram.serialize()})`.execute(
    db,
  );
}
