import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { openConfiguredStore } from '../../src/platform/db/database.js';

const src = path.resolve(import.meta.dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

test('the configured store applies storage.synchronous and storage.busy_timeout_ms', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [synchronous, level] of [
    ['normal', 1],
    ['full', 2],
  ] as const) {
    const store = openConfiguredStore({ data_dir: dir, busy_timeout_ms: 1234, synchronous });
    t.is(store.sqlite.pragma('synchronous', { simple: true }), level, synchronous);
    t.is(store.sqlite.pragma('busy_timeout', { simple: true }), 1234);
    t.is(store.sqlite.pragma('journal_mode', { simple: true }), 'wal');
    store.sqlite.close();
  }
});

test('every command opens the store through openConfiguredStore, so none skips a storage setting', (t) => {
  // `migrate` and `init` opened it without storage.synchronous (serve applied it); a connection's
  // pragmas cannot be read from outside its process, so the rule is checked where it is written.
  const bypassing = sourceFiles(src)
    .filter((file) => !file.endsWith(path.join('platform', 'db', 'database.ts')))
    .filter((file) => /\bopenStore\(/.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(src, file));
  t.deepEqual(bypassing, []);
});
