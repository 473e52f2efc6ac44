/**
 * The rooms inside the big capabilities: each sub-folder of `src/delivery/` and `src/inbound/` is a
 * stage a message passes through, listed here in pipeline order. A room imports only from itself
 * and the rooms before it, never from a later one, and never from the capability's top (its
 * service, build, engine, routes), which is what puts the rooms together. The one exception is
 * inbound's store at the top: the tables every stage reads and writes.
 *
 * Reads the TypeScript sources, so it checks type-only imports as well as the compiled ones.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';

const ROOT = path.resolve(import.meta.dirname, '../../..');

const CAPABILITIES: Record<
  string,
  { readonly rooms: readonly string[]; readonly shared: readonly string[] }
> = {
  delivery: {
    // replies: what a server said and the closed set of outcomes every later stage returns.
    rooms: ['replies', 'queue', 'routing', 'compose', 'smtp', 'outcomes'],
    shared: [],
  },
  inbound: {
    rooms: ['listener', 'analysis', 'threads', 'reports', 'scanning'],
    shared: ['store.ts', 'store-hot.ts', 'store-threads.ts'],
  },
};

/** Every path a module names: static imports and re-exports, bare and dynamic imports, worker URLs. */
function importedPaths(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s*(['"])([^'"]+)\1/g,
    /\bimport\s*(['"])([^'"]+)\1/g,
    /\bimport\s*\(\s*(['"])([^'"]+)\1/g,
    /\bnew\s+URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url/g,
  ];
  for (const pattern of patterns)
    for (const match of source.matchAll(pattern)) found.push(match[2] as string);
  return found;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourcesUnder(full);
    return name.endsWith('.ts') ? [full] : [];
  });
}

/** Where a file sits in its capability: the room it is in, or null at the top. */
function roomOf(capabilityDir: string, file: string): string | null {
  const parts = path.relative(capabilityDir, file).split(path.sep);
  return parts.length > 1 ? (parts[0] as string) : null;
}

/** The imports that break the rule in one capability, as readable lines. */
function violations(capability: string): string[] {
  const { rooms, shared } = CAPABILITIES[capability]!;
  const dir = path.join(ROOT, 'src', capability);
  const found: string[] = [];
  for (const file of sourcesUnder(dir)) {
    const room = roomOf(dir, file);
    if (room === null) continue;
    for (const spec of importedPaths(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec);
      if (!target.startsWith(dir + path.sep)) continue;
      const from = path.relative(ROOT, file);
      const targetRoom = roomOf(dir, target);
      if (targetRoom === null) {
        if (!shared.includes(path.basename(target).replace(/\.js$/, '.ts')))
          found.push(`${from} imports ${spec}, at the top of ${capability}/ (rooms never import the top)`);
      } else if (rooms.indexOf(targetRoom) > rooms.indexOf(room)) {
        found.push(`${from} imports ${spec}: ${targetRoom}/ comes after ${room}/ in the pipeline`);
      }
    }
  }
  return found;
}

test('the import scanner sees static, type-only, multi-line, bare and dynamic imports and worker URLs', (t) => {
  const source = [
    "import { a } from './one.js';",
    "import type { B } from '../two.js';",
    'import {',
    '  c,',
    '  d,',
    "} from './three.js';",
    "export { e } from './four.js';",
    "import './five.js';",
    "const f = await import('./six.js');",
    "const worker = fileURLToPath(new URL('./seven.js', import.meta.url));",
  ].join('\n');
  t.deepEqual(importedPaths(source).sort(), [
    '../two.js',
    './five.js',
    './four.js',
    './one.js',
    './seven.js',
    './six.js',
    './three.js',
  ]);
});

for (const capability of Object.keys(CAPABILITIES)) {
  test(`every sub-folder of src/${capability} is a room with its place in the pipeline`, (t) => {
    const dir = path.join(ROOT, 'src', capability);
    const folders = readdirSync(dir).filter((name) => statSync(path.join(dir, name)).isDirectory());
    t.deepEqual(folders.sort(), [...CAPABILITIES[capability]!.rooms].sort());
  });

  test(`no room of src/${capability} imports a later room or the capability's top`, (t) => {
    t.deepEqual(violations(capability), []);
  });
}

test('the send API is imported neither by delivery nor by the config schema (addresses are platform)', (t) => {
  const offenders = ['src/delivery', 'src/platform']
    .flatMap((dir) => sourcesUnder(path.join(ROOT, dir)))
    .filter((file) =>
      importedPaths(readFileSync(file, 'utf8')).some(
        (spec) =>
          spec.startsWith('.') &&
          path.resolve(path.dirname(file), spec).startsWith(path.join(ROOT, 'src', 'emails') + path.sep),
      ),
    )
    .map((file) => path.relative(ROOT, file));
  t.deepEqual(offenders, []);
});
