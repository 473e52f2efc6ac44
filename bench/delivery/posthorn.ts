/**
 * Posthorn's side of the delivery benchmark: a data directory with a verified, DKIM-keyed sending
 * domain and N queued messages (accepted through the real send API with the engine off), then a
 * real `posthorn serve` child with the engine on, measured from the first to the last message the
 * sink receives.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { composeMessage } from '../../src/delivery/compose/compose.js';
import { validateConfig } from '../../src/platform/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { type RunningServer, startServer } from '../../src/server.js';
import type { DnsTestServer } from '../../test/helpers/dns-server.js';
import { freePort } from '../lib.js';
import { databaseCpu } from './database-cpu.js';
import { machineCpuMs, mainThreadCpuMs, memoryMb, processCpuMs } from './proc.js';
import type { Sink } from './sink.js';

export const SENDER_DOMAIN = 'acme.bench';
export const RECIPIENT_DOMAIN = 'sink.bench';
const BIN = path.resolve(import.meta.dirname, '../../../bin/posthorn');

export interface Prepared {
  readonly dataDir: string;
  readonly configFile: string;
  readonly port: number;
  readonly apiKey: string;
}

export interface RunResult {
  readonly messages: number;
  readonly seconds: number;
  readonly rate: number;
  /** CPU of the measured process(es), percent of one core. */
  readonly cpuPercent: number;
  /** CPU of the whole machine during the window, percent of one core (200 = both cores busy). */
  readonly machinePercent: number;
  readonly peakRssMb: number | null;
  /**
   * CPU milliseconds of the server's main thread (the event loop) per message delivered in the
   * window (Posthorn only): what bounds its rate once rendering is off the event loop.
   */
  readonly mainThreadMsPerMessage?: number;
  /** Response times (ms) of scheduled sends made while the engine delivered (Posthorn only). */
  readonly apiUnderLoadMs?: readonly number[];
  /** CPU milliseconds of the database's server processes per message (PostgreSQL only). */
  readonly databaseMsPerMessage?: number;
}

/** An HTML body of about `kb` kilobytes: paragraphs, links, a few non-ASCII characters. */
export function htmlBody(kb: number): string {
  const paragraph =
    '<p style="margin:0 0 12px">Thanks for your order n° 4711. Your parcel is on its way; track it at ' +
    '<a href="https://acme.bench/track/4711?utm_source=email">acme.bench/track</a>. Questions? Reply — we read every mail.</p>\n';
  const head = '<!doctype html><html><body style="font-family:sans-serif">\n';
  const tail = '</body></html>\n';
  let body = head;
  while (body.length + paragraph.length + tail.length < kb * 1024) body += paragraph;
  return body + tail;
}

/**
 * The benchmark's message composed by Posthorn's own composer, unsigned: what the Postfix
 * references relay (the delivery benchmark signs it first; the end-to-end one has OpenDKIM sign it).
 */
export function composedMessage(kb: number): Buffer {
  return composeMessage({
    from: `Acme <hello@${SENDER_DOMAIN}>`,
    to: [`user0@${RECIPIENT_DOMAIN}`],
    cc: [],
    replyTo: [],
    subject: 'Order 0',
    html: htmlBody(kb),
    text: null,
    headers: {},
    messageId: `<m0@${SENDER_DOMAIN}>`,
    date: Date.now(),
  }).message;
}

function configToml(
  dataDir: string,
  port: number,
  dns: DnsTestServer,
  sinkPort: number,
  enabled: boolean,
  storageUrl: string | null,
): string {
  const storage = storageUrl === null ? '' : `engine = "postgresql"\nurl = ${JSON.stringify(storageUrl)}\n`;
  return `# written by scripts/bench delivery
[server]
listen = "127.0.0.1:${port}"
[storage]
data_dir = ${JSON.stringify(dataDir)}
${storage}[smtp_in]
enabled = false
[dns]
servers = [${JSON.stringify(dns.address)}]
[log]
level = "warn"
access_log = false
[dkim]
workers = ${renderWorkers}
[limits]
sends_per_minute_per_key = 0
sends_per_hour_per_recipient = 0
[delivery]
enabled = ${enabled}
hostname = "mta.posthorn.bench"
port = ${sinkPort}
sending_ips = ["192.0.2.25"]
[[delivery.lanes]]
name = "default"
max_connections = 16
connections_per_mx = 16
messages_per_connection = 1000
rate_per_second = 1000000
`;
}

/**
 * Bootstraps a project, a verified DKIM domain, and queues `messages` sends of `kb` KB; with
 * `storageUrl`, in that (empty or migrated) PostgreSQL database instead of the data directory's SQLite.
 */
export async function prepare(
  dir: string,
  dns: DnsTestServer,
  sinkPort: number,
  messages: number,
  kb: number,
  storageUrl: string | null = null,
): Promise<Prepared> {
  const dataDir = path.join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const configFile = path.join(dir, 'posthorn.toml');
  writeFileSync(configFile, configToml(dataDir, port, dns, sinkPort, true, storageUrl));
  const { parse } = await import('smol-toml');
  const config = validateConfig(parse(configToml(dataDir, port, dns, sinkPort, false, storageUrl)), 'bench');
  const server = await startServer(
    { ...config, server: { ...config.server, listen: '127.0.0.1:0' } },
    createLogger('warn'),
  );
  try {
    const { apiKey } = await verifiedTenant(server, dns);
    await queueSends(server.url, apiKey, messages, kb);
    // Accepted mail is composed and signed at admission (delivery/compose/prerender.ts); the queue the
    // engine then drains holds signed messages, as Postfix's holds them after its signing milter.
    await server.services.delivery.prerendered();
    return { dataDir, configFile, port, apiKey };
  } finally {
    await server.stop();
  }
}

/**
 * The benchmarks' tenant on `server`: a project with a full-access live key, and SENDER_DOMAIN
 * verified through the API (its TXT records and the MTA's hostname published on `dns`). Returns
 * the key and `call`, a request with it: JSON in and out, or a string body sent as `type`.
 */
export async function verifiedTenant(server: RunningServer, dns: DnsTestServer) {
  const owner = await server.services.projects.bootstrap(
    { email: 'bench@acme.bench', organization: 'Bench', project: 'Bench' },
    'bench',
  );
  const apiKey = (
    await server.services.keys.create(
      { projectId: owner.projectId, scopes: ['full_access'], mode: 'live' },
      'bench',
    )
  ).key;
  const call = async (method: string, pathname: string, body?: unknown, type = 'application/json') => {
    const res = await fetch(`${server.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': type },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const domain = await call('POST', '/v1/domains', { name: SENDER_DOMAIN });
  for (const record of domain.records as {
    type: string;
    host: string;
    value: string;
    value_strings?: string[];
  }[]) {
    if (record.type === 'TXT') dns.set(record.host, 'TXT', [record.value_strings ?? record.value]);
  }
  dns.set('mta.posthorn.bench', 'A', ['127.0.0.1']);
  const verified = await call('POST', `/v1/domains/${domain.id}/verify`);
  if (verified.status !== 'verified') throw new Error(`domain not verified: ${JSON.stringify(verified)}`);
  return { apiKey, call };
}

/**
 * Queues `messages` one-recipient sends of `kb` KB at `url`: `POST /v1/emails/batch` with as many
 * as fit in 4 MB (under limits.max_body_bytes, 5 MB by default), or with `perRequest: 1` one
 * `POST /v1/emails` per message; `concurrency` requests at a time.
 */
export async function queueSends(
  url: string,
  apiKey: string,
  messages: number,
  kb: number,
  { perRequest = Math.max(1, Math.min(100, Math.floor(4000 / kb))), concurrency = 4 } = {},
): Promise<void> {
  const html = htmlBody(kb);
  const email = (i: number) => ({
    from: `Acme <hello@${SENDER_DOMAIN}>`,
    to: [`user${i}@${RECIPIENT_DOMAIN}`],
    subject: `Order ${i}`,
    html,
  });
  const [pathname, body] =
    perRequest === 1
      ? ['/v1/emails', (start: number) => email(start)]
      : ['/v1/emails/batch', (start: number, end: number) => ({ emails: range(start, end).map(email) })];
  let next = 0;
  const worker = async () => {
    while (next < messages) {
      const start = next;
      next = Math.min(messages, next + perRequest);
      const res = await fetch(`${url}${pathname}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body(start, next)),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`POST ${pathname}: ${res.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const range = (start: number, end: number) => Array.from({ length: end - start }, (_, k) => start + k);

/**
 * V8 flags of the measured server: undefined runs it with bin/posthorn's own (what ships), a
 * string replaces them (`--node-flags ""` measures Node's defaults).
 */
let nodeFlags: string | undefined;

export function setNodeFlags(flags: string | undefined): void {
  nodeFlags = flags;
}

/** `dkim.workers` of the measured server; 0 is the shipped default (one render worker per CPU). */
let renderWorkers = 0;

export function setRenderWorkers(workers: number): void {
  if (!Number.isInteger(workers) || workers < 0) throw new Error('--render-workers is a whole number >= 0');
  renderWorkers = workers;
}

/** `bin/posthorn serve`, as an operator runs it (it execs Node, so the PID is the server's). */
export function spawnPosthorn(prepared: Prepared): ChildProcess {
  // The benchmark's own variables (POSTHORN_TEST_PG_URL) are not the server's configuration keys.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('POSTHORN_TEST_')),
  );
  if (nodeFlags !== undefined) env.POSTHORN_NODE_FLAGS = nodeFlags;
  // BENCH_SERVER_STDOUT=<file> keeps the server's stdout (e.g. --trace-gc output via --node-flags).
  const stdout = process.env.BENCH_SERVER_STDOUT ? openSync(process.env.BENCH_SERVER_STDOUT, 'w') : 'ignore';
  return spawn(BIN, ['serve', '--config', prepared.configFile], {
    env,
    stdio: ['ignore', stdout, 'inherit'],
  });
}

/**
 * Starts the engine and measures the sink from its first to its last message; with `databaseUrl`
 * (PostgreSQL), the CPU of the database's backends too.
 */
export async function measure(
  prepared: Prepared,
  sink: Sink,
  messages: number,
  databaseUrl?: string,
): Promise<{ result: RunResult; child: ChildProcess }> {
  const base = sink.count;
  const child = spawnPosthorn(prepared);
  const pid = child.pid as number;
  const t0 = await sink.waitFor(base + 1, 60_000);
  const cpu0 = processCpuMs(pid);
  const main0 = mainThreadCpuMs(pid);
  const machine0 = machineCpuMs();
  const database = databaseUrl === undefined ? undefined : await databaseCpu(databaseUrl);
  const probe = apiProbe(prepared);
  const t1 = await sink.waitFor(base + messages, 600_000);
  const cpu1 = processCpuMs(pid);
  const main1 = mainThreadCpuMs(pid);
  const machine1 = machineCpuMs();
  const databaseMs = await database?.sample();
  await database?.close();
  const apiUnderLoadMs = await probe.stop();
  const seconds = (t1 - t0) / 1000;
  return {
    child,
    result: {
      messages,
      seconds,
      rate: (messages - 1) / seconds,
      cpuPercent: ((cpu1 - cpu0) / (t1 - t0)) * 100,
      machinePercent: ((machine1.busy - machine0.busy) / (t1 - t0)) * 100,
      peakRssMb: memoryMb(pid).peak,
      mainThreadMsPerMessage: (main1 - main0) / (messages - 1),
      apiUnderLoadMs,
      ...(databaseMs === undefined ? {} : { databaseMsPerMessage: databaseMs / (messages - 1) }),
    },
  };
}

/** One `POST /v1/emails` to `local`@the recipient domain; throws unless it is accepted (202). */
async function send(prepared: Prepared, local: string, fields: Record<string, string>): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${prepared.port}/v1/emails`, {
    method: 'POST',
    headers: { authorization: `Bearer ${prepared.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: `hello@${SENDER_DOMAIN}`, to: [`${local}@${RECIPIENT_DOMAIN}`], ...fields }),
  });
  await res.text();
  if (res.status !== 202) throw new Error(`send to ${local}: ${res.status}`);
}

/**
 * What an application sees while the engine delivers flat out: a send every 100 ms, one at a time,
 * timed from request to 202. Scheduled a day ahead, so they add nothing to the delivery measured.
 */
function apiProbe(prepared: Prepared): { stop(): Promise<number[]> } {
  const times: number[] = [];
  let running = true;
  const sendAt = new Date(Date.now() + 86_400_000).toISOString();
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const start = performance.now();
      await send(prepared, `probe${i}`, { subject: 'Probe', html: '<p>Probe</p>', send_at: sendAt });
      times.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return times;
    },
  };
}

/** API-to-MX latency with an empty queue: one send at a time, from the request to the sink's count. */
export async function latency(
  prepared: Prepared,
  sink: Sink,
  samples: number,
  kb: number,
): Promise<number[]> {
  const html = htmlBody(kb);
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const base = sink.count;
    const start = performance.now();
    await send(prepared, `late${i}`, { subject: 'Latency', html });
    out.push((await sink.waitFor(base + 1, 10_000)) - start);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return out;
}

export { memoryMb };

/**
 * `nodes` serve processes on `prepared`'s PostgreSQL database (the first with its own config, the
 * others with a copy listening elsewhere, each with a data directory of its own holding the same
 * master key), measured from the first to the last message the sink receives: the rate of them all
 * together, and the CPU of the whole machine.
 */
export async function measureNodes(
  prepared: Prepared,
  sink: Sink,
  messages: number,
  nodes: number,
): Promise<{ result: RunResult; children: ChildProcess[] }> {
  const configs = [prepared.configFile];
  for (let n = 2; n <= nodes; n++) {
    const dataDir = `${prepared.dataDir}-${n}`;
    mkdirSync(dataDir, { recursive: true });
    copyFileSync(path.join(prepared.dataDir, 'master.key'), path.join(dataDir, 'master.key'));
    const port = await freePort();
    const file = `${prepared.configFile}.${n}.toml`;
    writeFileSync(
      file,
      readFileSync(prepared.configFile, 'utf8')
        .replace(`listen = "127.0.0.1:${prepared.port}"`, `listen = "127.0.0.1:${port}"`)
        .replace(`data_dir = ${JSON.stringify(prepared.dataDir)}`, `data_dir = ${JSON.stringify(dataDir)}`),
    );
    configs.push(file);
  }
  const base = sink.count;
  const children = configs.map((configFile) => spawnPosthorn({ ...prepared, configFile }));
  const t0 = await sink.waitFor(base + 1, 60_000);
  const cpu0 = children.reduce((sum, child) => sum + processCpuMs(child.pid as number), 0);
  const machine0 = machineCpuMs();
  const t1 = await sink.waitFor(base + messages, 600_000);
  const cpu1 = children.reduce((sum, child) => sum + processCpuMs(child.pid as number), 0);
  const machine1 = machineCpuMs();
  const seconds = (t1 - t0) / 1000;
  return {
    children,
    result: {
      messages,
      seconds,
      rate: (messages - 1) / seconds,
      cpuPercent: ((cpu1 - cpu0) / (t1 - t0)) * 100,
      machinePercent: ((machine1.busy - machine0.busy) / (t1 - t0)) * 100,
      peakRssMb: Math.max(...children.map((child) => memoryMb(child.pid as number).peak)),
    },
  };
}
