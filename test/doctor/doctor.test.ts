/**
 * `posthorn doctor` as an operator runs it, against real peers on loopback: a DNS server holding
 * the host's and the domains' records, the real clamd of scripts/peers, a time server, and a store
 * a running Posthorn wrote (a domain created through the API).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { redactedUrl } from '../../src/platform/db/database-pg.js';
import { publish } from '../domains/env.js';
import { requireClamd } from '../helpers/clamd.js';
import { type Workdir, workdir } from '../helpers/cli.js';
import { type DnsTestServer, startDnsServer } from '../helpers/dns-server.js';
import { type ConfigOverrides, type Posthorn, startPosthorn, storageToml } from '../helpers/server.js';
import { startSntpServer } from '../helpers/sntp-server.js';

interface Check {
  check: string;
  subject?: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  fix?: string;
}
interface Report {
  status: string;
  summary: { ok: number; warn: number; fail: number };
  checks: Check[];
}

const HOST = 'mta.posthorn.dev';
const MX = 'mx.posthorn.dev';

interface World {
  readonly w: Workdir;
  readonly dns: DnsTestServer;
  readonly ph: Posthorn;
  readonly timeServer: string;
  /** Writes the CLI's config (the running server's data dir, resolver and identity) plus `lines`. */
  config(lines?: readonly string[]): string;
}

async function world(t: ExecutionContext, identity: { sending_ips: string[] }): Promise<World> {
  const dns = await startDnsServer();
  t.teardown(() => dns.stop());
  const sntp = await startSntpServer({ offsetMs: 40 });
  t.teardown(() => sntp.stop());
  const clamd = await requireClamd();
  const overrides: ConfigOverrides = {
    dns: { servers: [dns.address], timeout_ms: 1000 },
    delivery: { hostname: HOST, sending_ips: identity.sending_ips },
    smtp_in: { hostname: MX },
    server: { public_url: 'https://mail.posthorn.dev' },
  };
  const ph = await startPosthorn(t, overrides);
  const w = workdir(t);
  const toml = (value: unknown) => JSON.stringify(value);
  return {
    w,
    dns,
    ph,
    timeServer: sntp.address,
    config(lines = []) {
      const file = path.join(w.dir, 'config.toml');
      writeFileSync(
        file,
        [
          '[server]',
          'public_url = "https://mail.posthorn.dev"',
          '[storage]',
          storageToml(ph),
          '[dns]',
          `servers = ${toml([dns.address])}`,
          'timeout_ms = 1000',
          '[delivery]',
          `hostname = ${toml(HOST)}`,
          `sending_ips = ${toml(identity.sending_ips)}`,
          '[smtp_in]',
          `hostname = ${toml(MX)}`,
          '[clamav]',
          `host = ${toml(clamd.host)}`,
          ...(lines.some((line) => line.startsWith('port')) ? [] : [`port = ${clamd.port}`]),
          ...lines,
        ].join('\n'),
      );
      return file;
    },
  };
}

/** Runs the command without blocking this process: the DNS and time servers answer from here. */
function run(
  w: Workdir,
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = w.spawn(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

async function doctor(world: World, file: string, ...extra: string[]) {
  const result = await run(world.w, [
    'doctor',
    '--json',
    '--config',
    file,
    '--time-server',
    world.timeServer,
    ...extra,
  ]);
  return { code: result.code, report: JSON.parse(result.stdout) as Report, stderr: result.stderr };
}

const find = (report: Report, check: string, subject?: string) =>
  report.checks.filter((c) => c.check === check && (subject === undefined || c.subject === subject));

/** The disk line depends on the machine; every other line is the test's to decide. */
const expectedCode = (report: Report, otherwiseFailing: boolean) =>
  otherwiseFailing || find(report, 'disk')[0]?.status === 'fail' ? 1 : 0;

test('a host set up right passes every check: reverse DNS, SPF, DKIM, DMARC, the bounce MX, inbound MX, clamd and clock', async (t) => {
  const env = await world(t, { sending_ips: ['203.0.114.5'] });
  const created = await env.ph.request('POST', '/v1/domains', { body: { name: 'example.com' } });
  publish(env.dns, created.body);
  env.dns.set(HOST, 'A', ['203.0.114.5']);
  env.dns.set('5.114.0.203.in-addr.arpa', 'PTR', [HOST]);
  env.dns.set(MX, 'A', ['127.0.0.1']);
  // The domain also receives mail: an inbound route, and its MX at this host.
  const verified = await env.ph.request('POST', `/v1/domains/${created.body.id}/verify`);
  t.is(verified.body.status, 'verified', verified.text);
  const route = await env.ph.request('POST', '/v1/inbound/routes', { body: { domain_id: created.body.id } });
  t.is(route.status, 201, route.text);
  env.dns.set('example.com', 'MX', [{ preference: 10, exchange: MX }]);

  const { code, report } = await doctor(env, env.config());
  const statuses = report.checks
    .filter((c) => c.check !== 'disk')
    .map((c) => `${c.status} ${c.check}${c.subject ? ` ${c.subject}` : ''}`);
  t.deepEqual(statuses, [
    `ok config ${path.join(env.w.dir, 'config.toml')}`,
    ...(env.ph.config.storage.engine === 'postgresql'
      ? [
          `ok database ${redactedUrl(env.ph.config.storage.url)}`,
          `ok migrations ${redactedUrl(env.ph.config.storage.url)}`,
        ]
      : [`ok migrations ${path.join(env.ph.dataDir, 'posthorn.sqlite')}`]),
    'ok forward-dns 203.0.114.5',
    'ok ptr 203.0.114.5',
    'ok spf example.com',
    'ok dkim example.com',
    'ok dmarc example.com',
    'ok bounce-mx example.com',
    `ok inbound-mx ${MX}`,
    'ok routed-mx example.com',
    'ok clamav 127.0.0.1:3310'.replace('3310', String((await requireClamd()).port)),
    `ok clock ${env.timeServer}`,
  ]);
  t.regex(find(report, 'ptr')[0]?.message ?? '', /203\.0\.114\.5 → mta\.posthorn\.dev → 203\.0\.114\.5/);
  t.regex(find(report, 'disk')[0]?.message ?? '', /GiB free of .* where the data lives/);
  t.is(code, expectedCode(report, false));

  // Its MX moved elsewhere: the routed mail no longer comes here.
  env.dns.set('example.com', 'MX', [{ preference: 10, exchange: 'mx.elsewhere.example' }]);
  const moved = await doctor(env, env.config());
  t.is(moved.code, 1);
  const routed = find(moved.report, 'routed-mx')[0];
  t.like(routed, { status: 'fail', subject: 'example.com' });
  t.regex(
    routed?.message ?? '',
    /MX of example\.com is mx\.elsewhere\.example, not smtp_in\.hostname mx\.posthorn\.dev/,
  );
  t.is(routed?.fix, 'publish at example.com the MX record 10 mx.posthorn.dev');
});

test('each problem is a fail or warn line saying what to do, and the exit code is 1', async (t) => {
  const env = await world(t, { sending_ips: ['203.0.114.5', '203.0.114.6'] });
  const created = await env.ph.request('POST', '/v1/domains', { body: { name: 'example.com' } });
  publish(env.dns, created.body, ['spf', 'dmarc', 'return_path']);
  env.dns.set(HOST, 'A', ['203.0.114.5']);
  env.dns.set('6.114.0.203.in-addr.arpa', 'PTR', ['other.posthorn.dev']);
  env.dns.set(MX, 'A', ['198.51.100.99']);
  const closed = await closedPort();

  const { code, report } = await doctor(env, env.config([`port = ${closed}`]));
  t.is(code, 1);
  t.is(report.status, 'fail');
  const line = (check: string, subject?: string) => find(report, check, subject)[0];
  t.like(line('ptr', '203.0.114.5'), { status: 'fail' });
  t.regex(line('ptr', '203.0.114.5')?.message ?? '', /has no reverse DNS \(PTR\) record/);
  t.regex(line('ptr', '203.0.114.5')?.fix ?? '', /set its PTR record to mta\.posthorn\.dev/);
  t.like(line('forward-dns', '203.0.114.6'), { status: 'fail' });
  t.regex(
    line('forward-dns', '203.0.114.6')?.fix ?? '',
    /publish an A record mta\.posthorn\.dev → 203\.0\.114\.6/,
  );
  t.regex(
    line('ptr', '203.0.114.6')?.message ?? '',
    /names other\.posthorn\.dev, which does not resolve back/,
  );
  t.like(line('spf'), { status: 'fail' });
  t.regex(
    line('spf')?.fix ?? '',
    /publish at example\.com the TXT record v=spf1 ip4:203\.0\.114\.5 ip4:203\.0\.114\.6 ~all/,
  );
  t.like(line('dkim'), { status: 'ok' });
  t.like(line('dmarc'), { status: 'warn' });
  t.regex(line('dmarc')?.fix ?? '', /_dmarc\.example\.com/);
  t.like(line('bounce-mx'), { status: 'warn' });
  t.like(line('inbound-mx'), { status: 'fail' });
  t.regex(line('inbound-mx')?.message ?? '', /resolves to 198\.51\.100\.99, not to an address of this host/);
  t.like(line('clamav'), { status: 'fail' });
  t.regex(
    line('clamav')?.message ?? '',
    new RegExp(`clamd does not answer on 127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\)`),
  );

  // The same, as a person reads it.
  const text = await run(env.w, [
    'doctor',
    '--config',
    env.config([`port = ${closed}`]),
    '--time-server',
    env.timeServer,
  ]);
  t.is(text.code, 1);
  t.regex(text.stdout, /^fail {2}ptr +203\.0\.114\.5 has no reverse DNS/m);
  t.regex(text.stdout, /^ +→ ask whoever provides 203\.0\.114\.5/m);
  t.regex(text.stdout, /^\d+ failed, \d+ warned, \d+ ok\.$/m);
});

test('warnings alone exit 0, and 1 with --strict', async (t) => {
  const env = await world(t, { sending_ips: ['203.0.114.5'] });
  const created = await env.ph.request('POST', '/v1/domains', { body: { name: 'example.com' } });
  publish(env.dns, created.body, ['dmarc']);
  env.dns.set(HOST, 'A', ['203.0.114.5']);
  env.dns.set('5.114.0.203.in-addr.arpa', 'PTR', [HOST]);
  env.dns.set(MX, 'A', ['127.0.0.1']);
  const file = env.config();
  const plain = await doctor(env, file);
  t.deepEqual(
    plain.report.checks.filter((c) => c.status !== 'ok' && c.check !== 'disk').map((c) => c.check),
    ['dmarc'],
  );
  t.is(plain.code, expectedCode(plain.report, false));
  t.is((await doctor(env, file, '--strict')).code, 1);
});

test('on a fresh install doctor names every key to set and that there is no database yet', async (t) => {
  const w = workdir(t, { config: true });
  const clamd = await requireClamd();
  const sntp = await startSntpServer();
  t.teardown(() => sntp.stop());
  writeFileSync(path.join(w.dir, 'config/config.toml'), `[clamav]\nport = ${clamd.port}\n`);
  const result = await run(w, ['doctor', '--json', '--time-server', sntp.address]);
  t.is(result.code, 1, result.stderr);
  const report = JSON.parse(result.stdout) as Report;
  t.deepEqual(
    find(report, 'identity').map((c) => [c.status, c.subject]),
    [
      ['fail', 'delivery.hostname'],
      ['fail', 'delivery.sending_ips'],
      ['fail', 'smtp_in.hostname'],
      ['fail', 'server.public_url'],
    ],
  );
  t.regex(find(report, 'domains')[0]?.message ?? '', /no database yet/);
  t.like(find(report, 'clamav')[0], { status: 'ok' });
  t.like(find(report, 'clock')[0], { status: 'ok' });
});

test('a config that cannot be read exits 2 with a fail line naming the key', (t) => {
  const w = workdir(t);
  const file = path.join(w.dir, 'bad.toml');
  writeFileSync(file, '[delivery]\nhostname = "not a host"\n');
  const result = w.run(['doctor', '--json', '--config', file]);
  t.is(result.code, 2);
  const report = JSON.parse(result.stdout) as Report;
  t.is(report.status, 'fail');
  t.regex(report.checks[0]?.message ?? '', /delivery\.hostname: must be a host name/);
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
