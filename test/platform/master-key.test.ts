/**
 * The master key at boot: created for a database that holds nothing sealed, never silently
 * replaced when it holds sealed values, and refused when it does not open them.
 */
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createLogger } from '../../src/platform/log.js';
import { MasterKeyError } from '../../src/platform/master-key.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { testConfig } from '../helpers/server.js';

function dataDir(t: ExecutionContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-key-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const boot = (dir: string) =>
  startServer(testConfig(dir, { webhooks: { allow_http: true } }), createLogger('silent'));

/** Boots once, stores what `seal` makes (sealed under the key), stops, and deletes or replaces the key. */
async function sealThenChangeKey(
  t: ExecutionContext,
  seal: (server: RunningServer, projectId: string) => Promise<unknown>,
  change: 'delete' | 'replace',
): Promise<{ dir: string; keyFile: string }> {
  const dir = dataDir(t);
  const server = await boot(dir);
  const { projectId } = await server.services.projects.bootstrap(
    { email: 'o@example.test', organization: 'O', project: 'P' },
    'test',
  );
  await seal(server, projectId);
  await server.stop();
  const keyFile = path.join(dir, 'master.key');
  if (change === 'delete') rmSync(keyFile);
  else writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  return { dir, keyFile };
}

const domain = (server: RunningServer, projectId: string) =>
  server.services.domains.create(projectId, { name: 'example.com', region: 'eu' });

test('a missing master key is refused, not replaced, while the database holds sealed DKIM keys', async (t) => {
  const { dir, keyFile } = await sealThenChangeKey(t, domain, 'delete');
  const error = await t.throwsAsync(boot(dir), { instanceOf: MasterKeyError });
  t.true(error.message.includes(`the master key file ${keyFile} is missing`), error.message);
  t.regex(error.message, /DKIM private keys \(domain dom_\w+\).*Restore the file from your backup/);
  t.false(existsSync(keyFile), 'no new key was written');
});

test('a missing master key is refused while the database holds a sealed webhook secret', async (t) => {
  const webhook = async (server: RunningServer, projectId: string) => {
    const project = await server.services.projects.get(projectId);
    return server.services.webhooks.service.create(
      { projectId, mode: 'live', organizationId: project?.organizationId ?? '', name: 'test' },
      { url: 'http://hooks.example.com/in', events: ['email.sent'] },
    );
  };
  const { dir, keyFile } = await sealThenChangeKey(t, webhook, 'delete');
  const error = await t.throwsAsync(boot(dir), { instanceOf: MasterKeyError });
  t.regex(error.message, /webhook signing secrets \(endpoint wh_\w+\)/);
  t.false(existsSync(keyFile));
});

test('a master key file that does not open the sealed values stops the boot', async (t) => {
  const { dir, keyFile } = await sealThenChangeKey(t, domain, 'replace');
  const error = await t.throwsAsync(boot(dir), { instanceOf: MasterKeyError });
  t.true(
    error.message.includes(`the master key in ${keyFile} does not open the DKIM private keys`),
    error.message,
  );
});

test('a missing master key is created while nothing is sealed', async (t) => {
  const { dir, keyFile } = await sealThenChangeKey(t, async () => {}, 'delete');
  const server = await boot(dir);
  t.teardown(() => server.stop());
  t.true(existsSync(keyFile));
  const [project] = await server.services.projects.list();
  t.truthy(project);
});

test('a temporary key file left by a process that died is removed at the next boot; one a live process is writing is left to it', async (t) => {
  const dir = dataDir(t);
  // What a crash between writing the temporary key and linking it leaves behind: a PID that is gone.
  const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
  const stray = path.join(dir, `.master.key.${dead}.a1b2c3d4e5f6.tmp`);
  writeFileSync(stray, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  // An old one whose PID happens to be alive again is a stray too.
  const reused = path.join(dir, `.master.key.${process.pid}.0f0f0f0f0f0f.tmp`);
  writeFileSync(reused, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(reused, hourAgo, hourAgo);
  // A concurrent first start, still writing its own.
  const busy = path.join(dir, `.master.key.${process.pid}.abcdefabcdef.tmp`);
  writeFileSync(busy, '', { mode: 0o600 });

  const server = await boot(dir);
  t.teardown(() => server.stop());
  t.false(existsSync(stray), 'the dead process left no key behind');
  t.false(existsSync(reused));
  t.true(existsSync(busy), 'a live process keeps its file');
  t.true(existsSync(path.join(dir, 'master.key')));
  t.deepEqual(
    readdirSync(dir).filter((name) => name.startsWith('.master.key.')),
    [path.basename(busy)],
  );
});
