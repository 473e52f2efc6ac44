import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';
import { workdir } from '../helpers/cli.js';

const barrier = pathToFileURL(path.resolve(import.meta.dirname, '../helpers/key-race-barrier.js')).href;

const exited = (child: ReturnType<ReturnType<typeof workdir>['spawn']>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

test('init and admin commands started at once on a fresh install all succeed; one writes the master key, the others keep it', async (t) => {
  const w = workdir(t, { config: true });
  // No STARTTLS certificate: this is about the key, and six openssl runs would only slow it down.
  writeFileSync(path.join(w.dir, 'config/config.toml'), '[smtp_in]\nenabled = false\n');
  const rendezvous = path.join(w.dir, 'rendezvous');
  mkdirSync(rendezvous);
  const commands = [
    ['init'],
    ['init'],
    ['init'],
    ['admin', 'projects', 'list'],
    ['admin', 'projects', 'list'],
  ];
  const env = {
    NODE_OPTIONS: `--import=${barrier}`,
    KEY_RACE_DIR: rendezvous,
    KEY_RACE_PARTIES: String(commands.length),
  };
  const results = await Promise.all(commands.map((args) => exited(w.spawn(args, env))));

  t.is(readdirSync(rendezvous).length, commands.length, 'every process drew a key of its own');
  for (const [i, result] of results.entries()) {
    t.is(result.code, 0, `${commands[i]?.join(' ')}: ${result.stderr}`);
    t.is(result.stderr, '');
  }
  const inits = results.slice(0, 3).map((r) => r.stdout);
  // The one whose key was linked in says it wrote it (unless an admin command won); the others kept it.
  t.true(
    inits.filter((out) => /Wrote the master key to .*master\.key/.test(out)).length <= 1,
    inits.join('\n'),
  );
  t.true(
    inits.every((out) => /Wrote the master key|Master key: .*master\.key \(kept\)/.test(out)),
    inits.join('\n'),
  );
  const key = path.join(w.dir, 'data/master.key');
  t.regex(readFileSync(key, 'utf8'), /^[0-9a-f]{64}\n$/);
  t.is(statSync(key).mode & 0o777, 0o600);
  t.deepEqual(
    readdirSync(path.join(w.dir, 'data')).filter((name) => name.includes('master')),
    ['master.key'],
    'no temporary key file is left behind',
  );
});
