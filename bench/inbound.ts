/**
 * Inbound SMTP: messages/s accepted from concurrent clients (50 KB messages, one attachment), and messages/s fully processed (parsed, authenticated, stored, attachment scanned by clamd), against a bare smtp-server that fsyncs each message, alternating.
 *
 * Usage: scripts/bench inbound [--rounds 3] [--messages 2000] [--connections 8] [--engine sqlite|postgresql]
 *
 * `--engine postgresql` runs each round on SQLite, then on PostgreSQL (a fresh database on the
 * scripts/peers server), beside the floor: one node's inbound on either engine in the same run.
 *
 * Posthorn runs as `bin/posthorn serve` (its own process, with the script's Node flags) on a fresh data dir with a verified domain and
 * a catch-all route, the real clamd of scripts/peers, and a loopback DNS server answering the
 * sender's SPF and DMARC records (what mailauth asks for). The reference is the floor of any
 * durable SMTP receiver in Node: smtp-server in its own process writing each message to a file and
 * fsyncing it before 250, nothing else. The load generator sends one prebuilt message over pooled
 * nodemailer connections. "Processed" is the time until the last attachment has a scan verdict.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { validateConfig } from '../src/platform/config/load.js';
import { openPostgresStore, openStore } from '../src/platform/db/database.js';
import { createLogger } from '../src/platform/log.js';
import { startServer } from '../src/server.js';
import { requireClamd } from '../test/helpers/clamd.js';
import { startDnsServer } from '../test/helpers/dns-server.js';
import { freshDatabase } from '../test/helpers/postgres.js';
import { query } from '../test/helpers/sql.js';
import { freePort, median, stopChild } from './lib.js';
import { benchProject } from './project.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    messages: { type: 'string', default: '2000' },
    connections: { type: 'string', default: '8' },
    synchronous: { type: 'string', default: 'full' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const rounds = Number(values.rounds);
const total = Number(values.messages);
const connections = Number(values.connections);
if (values.engine !== 'sqlite' && values.engine !== 'postgresql')
  throw new Error('--engine is sqlite or postgresql');
const onPostgres = values.engine === 'postgresql';
const root = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(root, 'bin/posthorn');
const DOMAIN = 'bench.example';

interface Result {
  readonly acceptedPerSecond: number;
  readonly processedPerSecond: number | null;
  readonly errors: number;
}

/** One 50 KB message: a short text body and a ~36 KB binary attachment (base64 on the wire). */
async function buildMessage(): Promise<Buffer> {
  const attachment = Buffer.alloc(36 * 1024);
  for (let i = 0; i < attachment.length; i++) attachment[i] = (i * 7919) % 251;
  const composer = new MailComposer({
    from: 'Sender <orders@sender.example>',
    to: `inbox@${DOMAIN}`,
    subject: 'Order confirmation',
    text: 'Please find the confirmation attached.\n'.repeat(40),
    attachments: [{ filename: 'confirmation.pdf', content: attachment, contentType: 'application/pdf' }],
  });
  return composer.compile().build();
}

const floorSource = `
const { SMTPServer } = require('smtp-server');
const fs = require('node:fs');
let n = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['AUTH', 'STARTTLS'], size: 26214400, disableReverseLookup: true,
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => {
      const file = process.env.FLOOR_DIR + '/' + (++n) + '.eml';
      fs.open(file, 'w', 0o600, (err, fd) => {
        if (err) return callback(err);
        fs.writev(fd, chunks, (err) => {
          if (err) return callback(err);
          fs.fsync(fd, (err) => fs.close(fd, () => callback(err, 'Queued')));
        });
      });
    });
  },
});
server.listen(Number(process.env.PORT), '127.0.0.1');
`;

/** User + system CPU seconds of a child process so far (Linux /proc). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function waitSmtp(port: number): Promise<void> {
  const { connect } = await import('node:net');
  const until = Date.now() + 30_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('data', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > until) throw new Error(`no SMTP server on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends `total` copies over `connections` pooled connections; returns messages/s and failures. */
async function drive(port: number, raw: Buffer): Promise<{ seconds: number; errors: number }> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    pool: true,
    maxConnections: connections,
    maxMessages: Number.POSITIVE_INFINITY,
    ignoreTLS: true,
  });
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next += 1;
      try {
        await transport.sendMail({
          envelope: { from: 'orders@sender.example', to: [`inbox@${DOMAIN}`] },
          raw,
        });
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections * 2 }, worker));
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return { seconds, errors };
}

async function runFloor(raw: Buffer): Promise<Result> {
  const dir = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-floor-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['-e', floorSource], {
    cwd: root,
    env: { ...process.env, PORT: String(port), FLOOR_DIR: dir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitSmtp(port);
    const { seconds, errors } = await drive(port, raw);
    return { acceptedPerSecond: total / seconds, processedPerSecond: null, errors };
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runPosthorn(
  raw: Buffer,
  dnsAddress: string,
  clamdPort: number,
  database?: string,
): Promise<Result> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'posthorn-bench-inbound-'));
  const smtpPort = await freePort();
  const httpPort = await freePort();
  const pg = database === undefined ? {} : { engine: 'postgresql', url: database, pool_size: 10 };
  const base = {
    storage: { data_dir: dataDir, ...pg },
    delivery: { enabled: false },
    dns: { servers: [dnsAddress] },
    clamav: { port: clamdPort },
  };
  // Setup as an operator would have done it: a project, a verified domain, a catch-all route.
  const setup = await startServer(
    validateConfig({ ...base, server: { listen: '127.0.0.1:0' }, smtp_in: { enabled: false } }, 'bench'),
    createLogger('silent'),
  );
  const { projectId } = await benchProject(setup, { email: 'ops@bench.example', domain: DOMAIN });
  await setup.services.inbound.createRoute(projectId, { domain_id: 'dom_bench' });
  await setup.stop();

  const config = path.join(dataDir, 'bench.toml');
  writeFileSync(
    config,
    [
      '[server]',
      `listen = "127.0.0.1:${httpPort}"`,
      '[storage]',
      `data_dir = "${dataDir}"`,
      `synchronous = "${values.synchronous === 'normal' ? 'normal' : 'full'}"`,
      ...(database === undefined ? [] : ['engine = "postgresql"', `url = "${database}"`, 'pool_size = 10']),
      '[smtp_in]',
      `listen = "127.0.0.1:${smtpPort}"`,
      'max_connections_per_ip = 100',
      '[delivery]',
      'enabled = false',
      '[dns]',
      `servers = ["${dnsAddress}"]`,
      '[clamav]',
      `port = ${clamdPort}`,
      '[log]',
      'level = "warn"',
      '',
    ].join('\n'),
  );
  // As an operator runs it: through bin/posthorn, with its Node flags. BENCH_NODE_ARGS, when
  // given, replaces them (POSTHORN_NODE_FLAGS), e.g. to add --cpu-prof.
  const flags = process.env.BENCH_NODE_ARGS;
  const child: ChildProcess = spawn(BIN, ['serve', '--config', config], {
    cwd: root,
    env: flags === undefined ? process.env : { ...process.env, POSTHORN_NODE_FLAGS: flags },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // The bench's own connection to the store, to watch the verdicts arrive.
  const db =
    database === undefined
      ? openStore(dataDir)
      : openPostgresStore({ url: database, password_file: '', pool_size: 1 });
  const scannedCount = async () =>
    Number(
      (
        await query<{ n: number }>(
          db,
          "select count(*) as n from inbound_attachments where scan_state <> 'pending'",
        )
      )[0]?.n ?? 0,
    );
  try {
    await waitSmtp(smtpPort);
    const started = performance.now();
    const { seconds, errors } = await drive(smtpPort, raw);
    const until = Date.now() + 300_000;
    while ((await scannedCount()) < total - errors && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const processedSeconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(child.pid);
    console.log(
      `  posthorn CPU: ${cpu.toFixed(1)} s, ${((cpu * 1000) / total).toFixed(1)} ms per message (all threads)`,
    );
    const states = await query(
      db,
      'select scan_state, count(*) as n from inbound_attachments group by scan_state',
    );
    if (errors > 0 || (await scannedCount()) < total) console.error('  states:', JSON.stringify(states));
    return {
      acceptedPerSecond: total / seconds,
      processedPerSecond: (total - errors) / processedSeconds,
      errors,
    };
  } finally {
    await stopChild(child);
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const clamd = await requireClamd();
const dns = await startDnsServer();
dns.set('sender.example', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
dns.set('_dmarc.sender.example', 'TXT', ['v=DMARC1; p=none']);
const raw = await buildMessage();
console.log(
  `inbound: ${total} messages of ${(raw.length / 1024).toFixed(0)} KB, ${connections} connections, ${rounds} rounds`,
);
const floor: Result[] = [];
const posthorn: Result[] = [];
const posthornPg: Result[] = [];
for (let round = 1; round <= rounds; round++) {
  const f = await runFloor(raw);
  floor.push(f);
  console.log(`  round ${round} floor:    ${f.acceptedPerSecond.toFixed(0)} accepted/s (${f.errors} errors)`);
  const p = await runPosthorn(raw, dns.address, clamd.port);
  posthorn.push(p);
  console.log(
    `  round ${round} posthorn: ${p.acceptedPerSecond.toFixed(0)} accepted/s, ${p.processedPerSecond?.toFixed(0)} processed+scanned/s (${p.errors} errors)`,
  );
  if (onPostgres) {
    const database = await freshDatabase(null, { migrated: true });
    try {
      const q = await runPosthorn(raw, dns.address, clamd.port, database.url);
      posthornPg.push(q);
      console.log(
        `  round ${round} posthorn on PostgreSQL: ${q.acceptedPerSecond.toFixed(0)} accepted/s, ${q.processedPerSecond?.toFixed(0)} processed+scanned/s (${q.errors} errors)`,
      );
    } finally {
      await database.drop();
    }
  }
}
await dns.stop();
const acceptedFloor = median(floor.map((r) => r.acceptedPerSecond));
const accepted = median(posthorn.map((r) => r.acceptedPerSecond));
const processed = median(posthorn.map((r) => r.processedPerSecond ?? 0));
console.log('');
console.log('| subject | accepted/s (median) | processed + scanned/s (median) | ratio to floor (accepted) |');
console.log('|---|---|---|---|');
console.log(
  `| posthorn | ${accepted.toFixed(0)} | ${processed.toFixed(0)} | ${(accepted / acceptedFloor).toFixed(2)}x |`,
);
if (onPostgres) {
  const acceptedPg = median(posthornPg.map((r) => r.acceptedPerSecond));
  const processedPg = median(posthornPg.map((r) => r.processedPerSecond ?? 0));
  console.log(
    `| posthorn on PostgreSQL | ${acceptedPg.toFixed(0)} | ${processedPg.toFixed(0)} | ${(acceptedPg / acceptedFloor).toFixed(2)}x (processed ${(processedPg / processed).toFixed(2)}x SQLite's) |`,
  );
}
console.log(`| floor: smtp-server + fsync | ${acceptedFloor.toFixed(0)} | n/a | 1.00x |`);
