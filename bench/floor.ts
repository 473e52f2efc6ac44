/**
 * The floor of `scripts/bench api`, shared with the benchmarks measured against it: a minimal Koa +
 * better-sqlite3 server that reads the body, parses the JSON and inserts one row per request (WAL,
 * the given `synchronous`), and the send body it is loaded with.
 */

/** One recipient, a 5 KB HTML part: the body `scripts/bench api` posts. */
export const sendBody = JSON.stringify({
  from: 'Acme <hello@acme.test>',
  to: ['ann@example.com'],
  subject: 'Your receipt',
  html: `<html><body>${'<p>Thank you for your order. Here is your receipt.</p>'.repeat(90)}</body></html>`.slice(
    0,
    5120,
  ),
});

/** The floor server's source, run with `node -e` (env: PORT, FLOOR_DB). */
export function floorServerSource(synchronous: 'full' | 'normal'): string {
  return `
const Koa = require('koa');
const Database = require('better-sqlite3');
const db = new Database(process.env.FLOOR_DB);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ${synchronous.toUpperCase()}');
db.exec('create table messages (id integer primary key, from_header text, to_list text, subject text, html text, created_at integer)');
const insert = db.prepare('insert into messages (from_header, to_list, subject, html, created_at) values (?, ?, ?, ?, ?)');
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === '/health') { ctx.body = 'ok'; return; }
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const email = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const now = Date.now();
  const info = insert.run(email.from, JSON.stringify(email.to), email.subject, email.html, now);
  ctx.status = 202;
  ctx.body = { id: 'msg_' + info.lastInsertRowid, status: 'queued', created_at: new Date(now).toISOString() };
});
app.listen(Number(process.env.PORT), '127.0.0.1');
`;
}
