/**
 * The reference of the delivery benchmark: Postfix (Debian's package, as shipped apart from the
 * paths) relaying the same messages to the same sink. Messages are submitted over SMTP and held
 * (a header_checks HOLD rule), so the queue is full before the clock starts; then they are
 * released and flushed, and the sink times the first and last delivery, as for Posthorn.
 *
 * Postfix runs as root in a private config and queue directory under the benchmark's temp dir.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { waitForPort } from '../lib.js';
import type { RunResult } from './posthorn.js';
import { machineCpuMs } from './proc.js';
import type { Sink } from './sink.js';

export const SMTPD_PORT = 10025;

export interface Postfix {
  readonly dir: string;
  stop(): void;
}

function run(dir: string, command: string, args: readonly string[]): string {
  // Postfix's commands report errors to syslog unless they think they have a terminal.
  return execFileSync('script', ['-qc', [command, ...args].join(' '), '/dev/null'], {
    env: { ...process.env, MAIL_CONFIG: path.join(dir, 'conf') },
    encoding: 'utf8',
  });
}

/** `milter`, when given, is an smtpd milter (e.g. OpenDKIM's `inet:127.0.0.1:PORT`) every message passes. */
export function startPostfix(dir: string, sinkPort: number, milter?: string): Postfix {
  const conf = path.join(dir, 'conf');
  mkdirSync(conf, { recursive: true });
  mkdirSync(path.join(dir, 'queue'), { recursive: true });
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  // Postfix's daemons run as the postfix user: they must be able to walk down to their directories.
  for (let up = dir; up !== path.dirname(up); up = path.dirname(up)) {
    if (up.startsWith('/tmp/')) chmodSync(up, 0o755);
  }
  writeFileSync(
    path.join(conf, 'main.cf'),
    `compatibility_level = 3.6
queue_directory = ${dir}/queue
data_directory = ${dir}/data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
meta_directory = /etc/postfix
shlib_directory = /usr/lib/postfix
mail_owner = postfix
setgid_group = postdrop
myhostname = relay.postfix.bench
mydomain = postfix.bench
myorigin = postfix.bench
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relayhost = [127.0.0.1]:${sinkPort}
smtpd_relay_restrictions = permit_mynetworks, reject
maillog_file_prefixes = ${dir}
maillog_file = ${dir}/maillog
header_checks = regexp:${conf}/hold
alias_maps =
alias_database =
local_recipient_maps =
smtp_tls_security_level = none
${milter === undefined ? '' : `smtpd_milters = ${milter}\n# A milter that is not there fails the submission, never passes it unsigned.\nmilter_default_action = tempfail\n`}`,
  );
  writeFileSync(path.join(conf, 'hold'), '/^X-Bench-Hold:/ HOLD\n');
  // The stock master.cf, with smtpd on a loopback port and no chroot (no /etc copies needed).
  const master = readFileSync('/etc/postfix/master.cf', 'utf8')
    .replace(/^smtp\s+inet\s+n\s+-\s+y\s+-\s+-\s+smtpd$/m, `127.0.0.1:${SMTPD_PORT} inet n - n - - smtpd`)
    .replace(/^(\S+\s+\S+\s+\S+\s+\S+\s+)y(\s)/gm, '$1n$2');
  writeFileSync(path.join(conf, 'master.cf'), master);
  run(dir, 'postfix', ['-c', conf, 'set-permissions']);
  const started = run(dir, 'postfix', ['-c', conf, 'start']);
  if (!/starting the Postfix mail system/.test(started)) throw new Error(`postfix did not start: ${started}`);
  return {
    dir,
    stop() {
      run(dir, 'postfix', ['-c', conf, 'stop']);
    },
  };
}

/**
 * Submits `count` copies of `message` (each with its own Message-ID and recipient) over SMTP,
 * held in Postfix's hold queue unless `hold` is false.
 */
export async function submit(
  postfix: Postfix,
  message: Buffer,
  count: number,
  { hold = true, connections = 8 }: { hold?: boolean; connections?: number } = {},
): Promise<void> {
  try {
    await waitForPort(SMTPD_PORT, "postfix's smtpd");
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\n${readFileSync(path.join(postfix.dir, 'maillog'), 'utf8').slice(-3000)}`,
    );
  }
  const text = message.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const head = text
    .slice(0, split)
    // Whole lines, line break included: a blank line left behind would end the header section.
    .replace(/^Message-ID: .*(\r\n|$)/im, '')
    .replace(/^To: .*(\r\n|$)/im, '');
  const body = text.slice(split);
  let next = 0;
  const worker = async () => {
    const smtp = new SMTPConnection({ host: '127.0.0.1', port: SMTPD_PORT, name: 'bench' });
    smtp.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      smtp.once('error', reject);
      smtp.connect(() => resolve());
    });
    while (next < count) {
      const i = next++;
      const rcpt = `user${i}@sink.bench`;
      const bytes = Buffer.from(
        `${hold ? 'X-Bench-Hold: 1\r\n' : ''}Message-ID: <pf${i}@acme.bench>\r\nTo: ${rcpt}\r\n${head}${body}`,
        'latin1',
      );
      await new Promise<void>((resolve, reject) =>
        smtp.send({ from: 'hello@acme.bench', to: [rcpt] }, bytes, (err) => (err ? reject(err) : resolve())),
      );
    }
    smtp.quit();
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

function heldCount(dir: string): number {
  const hold = path.join(dir, 'queue', 'hold');
  try {
    return readdirSync(hold).length;
  } catch {
    return 0;
  }
}

/** Releases the held queue and measures the sink from the first to the last delivery. */
export async function measurePostfix(postfix: Postfix, sink: Sink, messages: number): Promise<RunResult> {
  while (heldCount(postfix.dir) < messages) await new Promise((resolve) => setTimeout(resolve, 100));
  const base = sink.count;
  run(postfix.dir, 'postsuper', ['-H', 'ALL']);
  run(postfix.dir, 'postqueue', ['-f']);
  const t0 = await sink.waitFor(base + 1, 60_000);
  const machine0 = machineCpuMs();
  const t1 = await sink.waitFor(base + messages, 600_000);
  const machine1 = machineCpuMs();
  const seconds = (t1 - t0) / 1000;
  const machinePercent = ((machine1.busy - machine0.busy) / (t1 - t0)) * 100;
  return {
    messages,
    seconds,
    rate: (messages - 1) / seconds,
    cpuPercent: Number.NaN,
    machinePercent,
    peakRssMb: null,
  };
}
