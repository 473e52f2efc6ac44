/**
 * Finds the real clamd that scanner tests talk to: 127.0.0.1:$CLAMD_PORT (default 3310), as started
 * by `scripts/peers`. It must answer PING and find EICAR in an INSTREAM scan, as `scripts/peers`
 * requires before it reuses a clamd: one started from a checkout since deleted answers PING but
 * fails every scan. Otherwise the test fails saying which and what to do; tests that need ClamAV
 * never pass by skipping. Speaks clamd's protocol itself, so it does not test the scanner with the
 * scanner.
 */
import { connect } from 'node:net';

export interface ClamdAddress {
  readonly host: string;
  readonly port: number;
}

const REPLY_TIMEOUT_MS = 5_000;

// The public EICAR test string, assembled so that no file in the repository holds it whole.
const EICAR = Buffer.from(
  ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-ANTI', 'VIRUS-TEST-FILE!$H+H*'].join(''),
);

export async function requireClamd(): Promise<ClamdAddress> {
  const host = '127.0.0.1';
  const port = clamdPort();
  if ((await ask(host, port, [Buffer.from('zPING\0')])) !== 'PONG')
    throw new Error(
      `clamd does not answer PING on ${host}:${port}; run scripts/peers (it needs Debian's clamav-daemon)`,
    );
  const scan = await ask(host, port, instream(EICAR));
  if (scan === undefined || !scan.endsWith(' FOUND'))
    throw new Error(
      `clamd on ${host}:${port} answers PING but cannot scan (EICAR: '${scan ?? 'no answer'}'), e.g. it was started from a checkout since deleted; scripts/peers status names it: stop it and run scripts/peers, or set CLAMD_PORT to another port`,
    );
  return { host, port };
}

function clamdPort(): number {
  const raw = process.env.CLAMD_PORT ?? '3310';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`CLAMD_PORT is not a port: ${raw}`);
  return port;
}

/** `zINSTREAM\0`, then `bytes` as one chunk (a 4-byte big-endian length first), then a zero length. */
function instream(bytes: Buffer): Buffer[] {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return [Buffer.from('zINSTREAM\0'), length, bytes, Buffer.alloc(4)];
}

/**
 * Sends a null-terminated clamd command and resolves with its null-terminated reply, without the
 * NUL; undefined when there is none within `REPLY_TIMEOUT_MS` (refused, closed, silent).
 */
function ask(host: string, port: number, request: readonly Buffer[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const finish = (answer: string | undefined): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(REPLY_TIMEOUT_MS, () => finish(undefined));
    socket.on('error', () => finish(undefined));
    socket.on('connect', () => socket.write(Buffer.concat(request)));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      const end = reply.indexOf('\0');
      if (end >= 0) finish(reply.slice(0, end));
    });
    socket.on('end', () => finish(reply === '' ? undefined : reply));
  });
}
