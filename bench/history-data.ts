/**
 * Messages written straight into the store behind the server's back, for the benchmarks that need a
 * large history (scripts/bench dashboard, dashboard-ui): one-recipient live messages over the last
 * 30 days, each to its own address (`user<i>@example<i % 1000>.test`), from one of five senders,
 * with a subject from twenty and a number; ~95 % delivered.
 */
import SQLite from 'better-sqlite3';
import { encodeTime } from 'ulid';
import { databaseFile } from '../src/platform/db/database.js';

const DAY = 86_400_000;

const SENDERS = [
  'Acme <hello@acme.example>',
  'Acme Billing <billing@acme.example>',
  'Alerts <alerts@acme.example>',
  'Support <support@acme.example>',
  'News <news@acme.example>',
];
const SUBJECTS = [
  'Your receipt',
  'Password reset',
  'Welcome aboard',
  'Invoice available',
  'Your order shipped',
  'Security alert',
  'Verify your email',
  'Weekly summary',
  'Payment failed',
  'Trial ending soon',
  'New sign-in',
  'Your code',
  'Account updated',
  'Report ready',
  'Subscription renewed',
  'Delivery delayed',
  'Refund issued',
  'Invitation',
  'Reminder',
  'Thanks for your feedback',
];

export function writeHistoryMessages(dataDir: string, projectId: string, messages: number): void {
  const sqlite = new SQLite(databaseFile(dataDir));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  const message = sqlite.prepare(
    `insert into messages (id, project_id, api_key_id, mode, traffic, status, from_header, from_email, from_domain,
       subject, headers, tags, created_at, updated_at) values (?, ?, null, 'live', 'transactional', ?, ?, ?, 'acme.example', ?, '{}', '{}', ?, ?)`,
  );
  const recipient = sqlite.prepare(
    `insert into message_recipients (id, message_id, project_id, kind, email, display, domain, status, attempts, updated_at)
     values (?, ?, ?, 'to', ?, ?, ?, ?, 1, ?)`,
  );
  let lastTime = 0;
  let counter = 0;
  const sortable = (at: number) => {
    lastTime = Math.max(lastTime, at);
    counter += 1;
    return `${encodeTime(lastTime, 10)}${counter.toString(32).toUpperCase().padStart(16, '0')}`;
  };
  const now = Date.now();
  const start = now - 30 * DAY;
  const step = (now - start) / messages;
  const batch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const at = Math.floor(start + i * step);
      const id = `msg_${sortable(at)}`;
      const sender = SENDERS[i % SENDERS.length] as string;
      const email = /<(.+)>/.exec(sender)?.[1] as string;
      const status = i % 20 === 0 ? 'bounced' : 'delivered';
      const subject = `${SUBJECTS[(i * 7) % SUBJECTS.length]} #${i}`;
      message.run(id, projectId, status, sender, email, subject, at, at);
      const address = `user${i}@example${i % 1000}.test`;
      recipient.run(
        `rcp_${sortable(at)}`,
        id,
        projectId,
        address,
        address,
        `example${i % 1000}.test`,
        status,
        at,
      );
    }
  });
  for (let i = 0; i < messages; i += 50_000) batch(i, Math.min(messages, i + 50_000));
  sqlite.close();
}
