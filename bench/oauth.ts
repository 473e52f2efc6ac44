/**
 * Sends with an OAuth access token against the same sends with an API key (target ≥ 0.9x the key's throughput), alternating on one server.
 *
 * Usage: scripts/bench oauth [--rounds 5] [--duration 15] [--connections 50] [--held]
 *
 * One `bin/posthorn serve` on a fresh data dir (delivery and inbound SMTP off, send limits raised
 * so they are checked but never refuse), a project with a verified domain, a live API key with
 * emails:send and an access token with emails:send of a client its owner connected (registration,
 * consent, PKCE exchange, all through the API). By default the project trusts the client, so both
 * credentials' sends are queued alike; `--held` leaves approval on, so the token's sends are held
 * (recorded without delivery jobs). Each round loads POST /v1/emails with one credential, then the
 * other, the order swapped every round; the table shows medians and the per-round ratio, and the
 * server's CPU time per accepted request (from /proc), which a busy host disturbs far less than
 * the rate.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { validateConfig } from '../src/platform/config/load.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { sendBody } from './floor.js';
import { freePort, median, spawnQuiet, stopChild, waitReady } from './lib.js';
import { hasWrk, load, type LoadResult } from './oauth/load.js';
import { prepareTenant } from './oauth/setup.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    held: { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.duration);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const root = path.resolve(import.meta.dirname, '../..');

const settings = (dataDir: string, port: number) => ({
  server: { listen: `127.0.0.1:${port}` },
  storage: { data_dir: dataDir },
  smtp_in: { enabled: false },
  delivery: { enabled: false },
  dashboard: { enabled: false },
  limits: { sends_per_minute_per_key: 100_000_000, sends_per_hour_per_recipient: 100_000_000 },
  oauth: { access_token_lifetime: '1d' },
});

function toml(values: ReturnType<typeof settings>): string {
  return Object.entries(values)
    .map(
      ([section, keys]) =>
        `[${section}]\n${Object.entries(keys)
          .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
          .join('\n')}`,
    )
    .join('\n\n');
}

const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-oauth-'));
const port = await freePort();
const values0 = settings(dir, port);
const config = validateConfig(values0, 'bench');
const setup = await startServer(
  { ...config, server: { ...config.server, listen: '127.0.0.1:0' } },
  createLogger('silent'),
);
const tenant = await prepareTenant(setup, !values.held);
await setup.stop();
const configFile = path.join(dir, 'bench.toml');
writeFileSync(configFile, toml(values0));

/** The server's user + system CPU time so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

const child = spawnQuiet(
  path.join(root, 'bin/posthorn'),
  ['serve', '--config', configFile],
  process.env,
  root,
);
type Sample = LoadResult & { round: number; cpu: number };
const samples = { access_token: [] as Sample[], api_key: [] as Sample[] };
const wrk = await hasWrk();
try {
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/health`, performance.now());
  const bearer = { access_token: tenant.accessToken, api_key: tenant.apiKey };
  const base = { url, body: sendBody, connections, dir, wrk };
  for (const subject of ['access_token', 'api_key'] as const)
    if (warmup > 0) await load({ ...base, bearer: bearer[subject], seconds: warmup });
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? (['access_token', 'api_key'] as const) : (['api_key', 'access_token'] as const);
    for (const subject of order) {
      const before = cpuMs(child.pid);
      const result = await load({ ...base, bearer: bearer[subject], seconds });
      const cpu = (cpuMs(child.pid) - before) / (result.rps * seconds);
      samples[subject].push({ ...result, round, cpu });
      console.error(
        `round ${round} ${subject}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, errors ${result.errors}, server CPU ${cpu.toFixed(2)} ms/request`,
      );
    }
  }
} finally {
  await stopChild(child);
  rmSync(dir, { recursive: true, force: true });
}

const med = (list: readonly Sample[], field: keyof Sample) => median(list.map((r) => r[field]));
const ratios = samples.access_token.map(
  (s) => s.rps / (samples.api_key.find((k) => k.round === s.round)?.rps ?? Number.NaN),
);
console.log(
  `POST /v1/emails, ${connections} connections, ${seconds} s per run, ${rounds} alternating rounds, ${wrk ? 'wrk -t2' : 'autocannon'}, ` +
    `token sends ${values.held ? 'held for approval' : 'of a trusted client (queued)'}, node ${process.version}`,
);
console.log('| credential | accepted/s (median) | p50 | p99 | errors | server CPU per request |');
console.log('|---|---|---|---|---|---|');
for (const [name, list] of Object.entries(samples)) {
  console.log(
    `| ${name} | ${med(list, 'rps').toFixed(0)} | ${med(list, 'p50').toFixed(1)} ms | ${med(list, 'p99').toFixed(1)} ms | ${list.reduce((a, r) => a + r.errors, 0)} | ${med(list, 'cpu').toFixed(2)} ms |`,
  );
}
console.log(
  `access token / API key: ${(med(samples.access_token, 'rps') / med(samples.api_key, 'rps')).toFixed(2)}x of the medians; per round ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}x); CPU per request ${(med(samples.access_token, 'cpu') / med(samples.api_key, 'cpu')).toFixed(2)}x`,
);
