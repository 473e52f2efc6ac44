import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { workdir } from '../helpers/cli.js';

const bootstrap = ['admin', 'bootstrap', '--email', 'a@example.test', '--org', 'Acme', '--json'];

test('admin commands refuse to run on embedded defaults when no config file exists, and create nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  const bare = await w.runAsync(bootstrap);
  t.is(bare.code, 2);
  t.regex(bare.stderr, /No config file at .*config\/config\.toml/);
  t.regex(bare.stderr, /sudo -u posthorn POSTHORN_CONFIG=\/etc\/posthorn\/config\.toml/);
  t.is((await w.runAsync(['admin', 'projects', 'list'])).code, 2);
  t.false(existsSync(path.join(w.dir, 'data')), 'no stray database or master key');

  const named = await w.runAsync(bootstrap, { POSTHORN_CONFIG: path.join(w.dir, 'missing.toml') });
  t.is(named.code, 2);
  t.regex(named.stderr, /Config file .*missing\.toml does not exist/);

  // The README's way: the config `posthorn serve` (or init) wrote, or one named by POSTHORN_CONFIG.
  const file = path.join(w.dir, 'etc.toml');
  writeFileSync(file, `[storage]\ndata_dir = ${JSON.stringify(path.join(w.dir, 'var'))}\n`);
  t.regex((await w.jsonAsync(bootstrap, { POSTHORN_CONFIG: file })).project_id, /^prj_/);
  t.true(existsSync(path.join(w.dir, 'var/posthorn.sqlite')));
  t.false(existsSync(path.join(w.dir, 'data')));
});

test('migrate refuses like the admin commands when no config file exists, with the same message, and creates nothing', async (t) => {
  t.timeout(120_000);
  const w = workdir(t);
  const bare = await w.runAsync(['migrate']);
  t.is(bare.code, 2);
  const firstLine = (text: string) => text.split('\n')[0];
  t.is(
    firstLine(bare.stderr),
    firstLine((await w.runAsync(bootstrap)).stderr),
    "the admin commands' message",
  );
  t.regex(bare.stderr, /No config file at .*config\/config\.toml/);
  t.false(existsSync(path.join(w.dir, 'data')), 'no stray database');

  const named = await w.runAsync(['migrate'], { POSTHORN_CONFIG: path.join(w.dir, 'missing.toml') });
  t.is(named.code, 2);
  t.regex(named.stderr, /Config file .*missing\.toml does not exist/);
  t.false(existsSync(path.join(w.dir, 'data')));

  // With the config that serve or init writes, it migrates the database that config names.
  const file = path.join(w.dir, 'etc.toml');
  writeFileSync(file, `[storage]\ndata_dir = ${JSON.stringify(path.join(w.dir, 'var'))}\n`);
  const migrated = await w.runAsync(['migrate', '--config', file]);
  t.is(migrated.code, 0, migrated.stderr);
  t.regex(migrated.stdout, /Applied: 0001-foundation/);
  t.true(existsSync(path.join(w.dir, 'var/posthorn.sqlite')));
  t.false(existsSync(path.join(w.dir, 'data')));
});
