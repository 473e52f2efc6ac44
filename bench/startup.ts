/**
 * Startup to ready: spawn `posthorn serve` until /health answers 200, on a fresh data dir (first start: master key, migrations) and on an existing one, against a bare node:http server as the reference.
 *
 * Usage: scripts/bench startup [--runs 15]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fmt, freePort, median, spawnQuiet, stopChild, waitReady } from './lib.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const runs = Number(values.runs);
const main = path.resolve(import.meta.dirname, '../src/main.js');

const reference = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')`;

async function once(kind: 'fresh' | 'warm' | 'reference', dataDir: string): Promise<number> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    POSTHORN_SERVER_LISTEN: `127.0.0.1:${port}`,
    POSTHORN_SMTP_IN_LISTEN: '127.0.0.1:0',
    POSTHORN_STORAGE_DATA_DIR: dataDir,
    POSTHORN_LOG_LEVEL: 'warn',
    POSTHORN_CONFIG: path.join(dataDir, 'none.toml'),
  };
  if (kind === 'fresh') rmSync(dataDir, { recursive: true, force: true });
  const start = performance.now();
  const child =
    kind === 'reference'
      ? spawnQuiet(process.execPath, ['-e', reference], env)
      : spawnQuiet(
          process.execPath,
          [main, 'serve', '--config', path.join(dataDir, '..', 'bench.toml')],
          env,
        );
  try {
    return await waitReady(`http://127.0.0.1:${port}/health`, start);
  } finally {
    await stopChild(child);
  }
}

const base = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-startup-'));
const { writeFileSync } = await import('node:fs');
writeFileSync(path.join(base, 'bench.toml'), '# all defaults; the environment sets the rest\n');
const dataDir = path.join(base, 'data');
const samples = { fresh: [] as number[], warm: [] as number[], reference: [] as number[] };
try {
  for (let i = 0; i < runs; i++) {
    samples.fresh.push(await once('fresh', dataDir));
    samples.warm.push(await once('warm', dataDir));
    samples.reference.push(await once('reference', dataDir));
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const ref = median(samples.reference);
console.log(`startup to /health 200, ${runs} alternating runs each, node ${process.version}`);
console.log('| subject | median | min | max | ratio to reference |');
console.log('|---|---|---|---|---|');
for (const [name, list] of Object.entries(samples)) {
  console.log(
    `| ${name} | ${fmt(median(list))} | ${fmt(Math.min(...list))} | ${fmt(Math.max(...list))} | ${(median(list) / ref).toFixed(2)}x |`,
  );
}
