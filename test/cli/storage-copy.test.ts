/**
 * `posthorn storage copy --to URL` moves a SQLite installation to PostgreSQL: every table copied
 * with its progress shown and its row count verified, after which a server on PostgreSQL with the
 * same data directory (its master key) serves the same account, keys and mail. A target holding
 * any row is refused, and the password is never printed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { startServer } from '../../src/server.js';
import { createLogger } from '../../src/platform/log.js';
import { workdir } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { testConfig } from '../helpers/server.js';

async function call(url: string, key: string, method: string, pathname: string, body?: unknown) {
  const res = await fetch(`${url}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('storage copy moves every table to an empty PostgreSQL database, verifies the counts, and refuses a second copy into it', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-copy-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  // A SQLite installation with an account, a key, a domain and mail accepted (from the sandbox sender).
  const sqlite = await startServer(
    testConfig(dataDir, { storage: { engine: 'sqlite' } }),
    createLogger('silent'),
  );
  let sent: string[];
  let key: string;
  try {
    const { projectId } = await sqlite.services.projects.bootstrap(
      { email: 'owner@example.test', organization: 'Copy Org', project: 'Copy' },
      'test',
    );
    key = (await sqlite.services.keys.create({ projectId, scopes: ['full_access'], mode: 'live' }, 'test'))
      .key;
    const domain = await call(sqlite.url, key, 'POST', '/v1/domains', { name: 'copy.example' });
    t.is(domain.status, 201);
    sent = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(sqlite.url, key, 'POST', '/v1/emails', {
        from: 'sandbox@posthorn.test',
        to: ['owner@example.test'],
        subject: `Issue ${i}`,
        text: 'Hello',
      });
      t.is(res.status, 202, JSON.stringify(res.body));
      sent.push(res.body.id);
    }
  } finally {
    await sqlite.stop();
  }

  const { url } = await freshDatabase(t);
  const withPassword = new URL(url);
  withPassword.password = 'never-printed-pw';
  const w = workdir(t);
  const config = path.join(w.dir, 'config.toml');
  writeFileSync(config, `[storage]\ndata_dir = ${JSON.stringify(dataDir)}\n`);
  // The test cluster trusts loopback, so the password is accepted and ignored.
  const copied = await w.runAsync(['storage', 'copy', '--config', config, '--to', withPassword.toString()]);
  t.is(copied.code, 0, copied.stderr + copied.stdout);
  t.regex(copied.stdout, /^Copying .*posthorn\.sqlite into postgres:\/\/postgres:\*\*\*@/m);
  t.regex(copied.stdout, /^messages: copying 3 rows \.\.\.$/m);
  t.regex(copied.stdout, /^messages: 3 rows copied\.$/m);
  t.regex(copied.stdout, /^Verified: \d+ tables, \d+ rows, every count matches/m);
  t.notRegex(copied.stdout + copied.stderr, /never-printed-pw/);

  // The same data directory on PostgreSQL: the key, the domain and the mail are all there.
  const pg = await startServer(
    testConfig(dataDir, { storage: { engine: 'postgresql', url, pool_size: 2 } }),
    createLogger('silent'),
  );
  try {
    const domains = await call(pg.url, key, 'GET', '/v1/domains');
    t.is(domains.status, 200);
    t.deepEqual(
      domains.body.data.map((d: { name: string }) => d.name),
      ['copy.example'],
    );
    for (const id of sent) {
      const message = await call(pg.url, key, 'GET', `/v1/emails/${id}`);
      t.is(message.status, 200, JSON.stringify(message.body));
      t.is(message.body.id, id);
      t.deepEqual(
        message.body.recipients.map((r: { email: string }) => r.email),
        ['owner@example.test'],
      );
    }
    // New rows get new identities after the copied ones.
    const more = await call(pg.url, key, 'POST', '/v1/emails', {
      from: 'sandbox@posthorn.test',
      to: ['owner@example.test'],
      subject: 'After the move',
      text: 'Hello',
    });
    t.is(more.status, 202, JSON.stringify(more.body));
  } finally {
    await pg.stop();
  }

  const again = await w.runAsync(['storage', 'copy', '--config', config, '--to', url]);
  t.is(again.code, 1);
  t.regex(
    again.stderr,
    /the target database is not empty \(rows in .*\); copy only into a new, empty database/,
  );
});

test('storage copy without --to, or from a config already on PostgreSQL, is a usage error', async (t) => {
  const w = workdir(t);
  const config = path.join(w.dir, 'config.toml');
  writeFileSync(config, '[storage]\ndata_dir = "data"\n');
  const missing = w.run(['storage', 'copy', '--config', config]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /--to must name the target database/);
  writeFileSync(
    config,
    '[storage]\ndata_dir = "data"\nengine = "postgresql"\nurl = "postgres://posthorn@127.0.0.1:1/posthorn"\n',
  );
  const fromPg = w.run(['storage', 'copy', '--config', config, '--to', 'postgres://x@127.0.0.1:1/y']);
  t.is(fromPg.code, 2);
  t.regex(fromPg.stderr, /\[storage\] engine is not "sqlite"/);
});
