/**
 * ClamAV as inbound mail uses it: clamd answers on `[clamav]`'s socket or host and port, and its
 * signatures find the EICAR test string (a clamd that answers but cannot scan holds every
 * attachment pending). clamd's VERSION reply carries the date of its signature database: one
 * older than three days means freshclam is not running.
 */
import { connect, type Socket } from 'node:net';
import type { Config } from '../platform/config/schema.js';
import { type Finding, fail, ok, warn } from './finding.js';

const STEP_MS = 5000;
const STALE_DAYS = 3;

/** The public EICAR test string, assembled so that no file of the repository holds it whole. */
const EICAR = Buffer.from(
  ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-ANTIVIRUS-', 'TEST-FILE!$H+H*'].join(''),
);

/** Sends one z-command (NUL-terminated) and reads clamd's NUL-terminated reply. */
function exchange(config: Config['clamav'], request: readonly Buffer[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket =
      config.socket !== ''
        ? connect({ path: config.socket })
        : connect({ host: config.host, port: config.port });
    let reply = '';
    const timer = setTimeout(
      () => socket.destroy(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })),
      STEP_MS,
    );
    socket.on('connect', () => {
      for (const chunk of request) socket.write(chunk);
    });
    socket.on('data', (data: Buffer) => {
      reply += data.toString('utf8');
      if (reply.includes('\0')) socket.end();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(reply.replace(/\0[\s\S]*$/, '').trim());
    });
  });
}

function instream(data: Buffer): Buffer[] {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return [Buffer.from('zINSTREAM\0'), length, data, Buffer.alloc(4)];
}

/** The age in days of the signature database named in a VERSION reply, if it names one. */
export function signatureAgeDays(version: string, now = Date.now()): number | undefined {
  const date = version.split('/')[2];
  const at = date === undefined ? Number.NaN : Date.parse(date);
  return Number.isNaN(at) ? undefined : Math.floor((now - at) / 86_400_000);
}

export async function clamavFindings(config: Pick<Config, 'clamav' | 'smtp_in'>): Promise<Finding[]> {
  if (!config.smtp_in.enabled) return [ok('clamav', 'ClamAV is not used: inbound SMTP is off.')];
  const where =
    config.clamav.socket !== '' ? config.clamav.socket : `${config.clamav.host}:${config.clamav.port}`;
  let version: string;
  let scan: string;
  try {
    version = await exchange(config.clamav, [Buffer.from('zVERSION\0')]);
    scan = await exchange(config.clamav, instream(EICAR));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return [
      fail(
        'clamav',
        `clamd does not answer on ${where} (${code}): received attachments wait unscanned.`,
        'start clamd (systemctl enable --now clamav-daemon), or set clamav.socket, or clamav.host and clamav.port, to where it listens',
        where,
      ),
    ];
  }
  if (!scan.endsWith('FOUND'))
    return [
      fail(
        'clamav',
        `clamd on ${where} answers but did not find the EICAR test string (${scan || 'no reply'}).`,
        'check its signature database (freshclam) and its log',
        where,
      ),
    ];
  const age = signatureAgeDays(version);
  if (age !== undefined && age > STALE_DAYS)
    return [
      warn(
        'clamav',
        `clamd on ${where} scans, but its signatures are ${age} days old (${version}).`,
        'keep them fresh: systemctl enable --now clamav-freshclam',
        where,
      ),
    ];
  return [ok('clamav', `clamd on ${where} scans (${version}).`, where)];
}
