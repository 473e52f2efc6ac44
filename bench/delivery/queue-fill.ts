/**
 * Fills a data directory's queue directly (no API): `count` messages of about 1 KB, each with one
 * recipient and one queued job, written in large transactions. This is how the benchmark gets a
 * million-job queue in seconds, to show that the engine's memory does not grow with it.
 */
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { newId } from '../../src/platform/ids.js';
import { htmlBody, RECIPIENT_DOMAIN, SENDER_DOMAIN } from './posthorn.js';

export async function fillQueue(dataDir: string, count: number): Promise<void> {
  const db = new SQLite(path.join(dataDir, 'posthorn.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const project = db.prepare('select id from projects limit 1').get() as { id: string };
  const message = db.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       reply_to, subject, headers, tags, created_at, updated_at)
     values (?, ?, null, 'live', 'transactional', 'queued', ?, ?, ?, null, ?, '{}', '{}', ?, ?)`,
  );
  const body = db.prepare('insert into message_bodies (message_id, html, text) values (?, ?, null)');
  const recipient = db.prepare(
    `insert into message_recipients (id, message_id, project_id, kind, email, display, domain, status, attempts, updated_at)
     values (?, ?, ?, 'to', ?, ?, ?, 'queued', 0, ?)`,
  );
  const job = db.prepare(
    `insert into delivery_jobs (id, message_id, project_id, domain, traffic, mode, state, lane, due_at, locked_until,
       attempts, last_error, created_at, updated_at)
     values (?, ?, ?, ?, 'transactional', 'live', 'queued', null, ?, null, 0, null, ?, ?)`,
  );
  const html = htmlBody(1);
  const from = `hello@${SENDER_DOMAIN}`;
  const chunk = 50_000;
  for (let start = 0; start < count; start += chunk) {
    db.transaction(() => {
      const now = Date.now();
      for (let i = start; i < Math.min(count, start + chunk); i++) {
        const id = newId('msg', now);
        const email = `q${i}@${RECIPIENT_DOMAIN}`;
        message.run(id, project.id, `Acme <${from}>`, from, SENDER_DOMAIN, `Queued ${i}`, now, now);
        body.run(id, html);
        recipient.run(newId('rcp', now), id, project.id, email, email, RECIPIENT_DOMAIN, now);
        job.run(newId('job', now), id, project.id, RECIPIENT_DOMAIN, now, now, now);
      }
    })();
    await new Promise((resolve) => setImmediate(resolve));
  }
  db.close();
}
