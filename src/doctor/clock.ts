/**
 * Clock skew. DKIM signatures carry their time (`t=`), TOTP codes last 30 seconds and webhook
 * receivers refuse a `webhook-timestamp` minutes off, so the clock must be right. With
 * `--time-server`, the skew is measured against that server (SNTP); without, the system is asked
 * whether NTP keeps its clock (`timedatectl`), and where it cannot say, pool.ntp.org is asked. A
 * host that reaches no time server gets a warning saying so, never a guess.
 */
import { spawnSync } from 'node:child_process';
import { type Finding, fail, ok, warn } from './finding.js';
import { querySntp } from './sntp.js';

const QUERY_MS = 2000;
const DEFAULT_SERVER = 'pool.ntp.org';

/** `host`, `host:port`, `[v6]:port` or a bare IPv6 address; port 123 unless given. */
export function parseTimeServer(value: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) return { host: bracketed[1] as string, port: Number(bracketed[2] ?? 123) };
  const colons = value.split(':').length - 1;
  if (colons === 1) {
    const [host, port] = value.split(':') as [string, string];
    return { host, port: Number(port) };
  }
  return { host: value, port: 123 };
}

export function skewVerdict(offsetMs: number): 'ok' | 'warn' | 'fail' {
  const skew = Math.abs(offsetMs);
  return skew < 1000 ? 'ok' : skew < 30_000 ? 'warn' : 'fail';
}

const SYNC_FIX = 'keep the clock synchronized: timedatectl set-ntp true, or install chrony';

async function measured(server: string): Promise<Finding> {
  const { host, port } = parseTimeServer(server);
  let result: Awaited<ReturnType<typeof querySntp>>;
  try {
    result = await querySntp(host, port, QUERY_MS);
  } catch (error) {
    return warn(
      'clock',
      `The clock could not be compared with ${server}: ${(error as Error).message}.`,
      `${SYNC_FIX}; name a time server this host reaches with --time-server`,
      server,
    );
  }
  const seconds = (result.offsetMs / 1000).toFixed(3);
  const message = `This host's clock is ${seconds} s from ${server}'s (round trip ${Math.round(result.roundTripMs)} ms).`;
  if (result.unsynchronized)
    return warn(
      'clock',
      `${message} That server says its own clock is not synchronized.`,
      'use another time server',
      server,
    );
  switch (skewVerdict(result.offsetMs)) {
    case 'ok':
      return ok('clock', message, server);
    case 'warn':
      return warn('clock', message, SYNC_FIX, server);
    default:
      return fail(
        'clock',
        `${message} DKIM, TOTP and webhook timestamps break at this skew.`,
        SYNC_FIX,
        server,
      );
  }
}

/** What systemd says of the clock: synchronized, not, or nothing (no systemd, no timedatectl). */
function timedatectl(): 'yes' | 'no' | undefined {
  const result = spawnSync('timedatectl', ['show', '--property=NTPSynchronized', '--value'], {
    encoding: 'utf8',
    timeout: 3000,
  });
  const answer = result.status === 0 ? result.stdout.trim() : '';
  return answer === 'yes' || answer === 'no' ? answer : undefined;
}

export async function clockFindings(options: { readonly timeServer?: string }): Promise<Finding[]> {
  if (options.timeServer !== undefined) return [await measured(options.timeServer)];
  const synchronized = timedatectl();
  if (synchronized === 'yes') return [ok('clock', 'The system clock is synchronized by NTP (timedatectl).')];
  if (synchronized === 'no')
    return [warn('clock', 'The system clock is not synchronized by NTP (timedatectl).', SYNC_FIX)];
  return [await measured(DEFAULT_SERVER)];
}
