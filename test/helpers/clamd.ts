/**
 * Finds the real clamd that scanner tests talk to: 127.0.0.1:$CLAMD_PORT (default 3310), as started
 * by `scripts/peers`. When it does not answer PING the test fails with how to start it; tests that
 * need ClamAV never pass by skipping. Speaks clamd's protocol itself, so it does not test the
 * scanner with the scanner.
 */
import { connect } from 'node:net';

export interface ClamdAddress {
  readonly host: string;
  readonly port: number;
}

const PING_TIMEOUT_MS = 2_000;

export async function requireClamd(): Promise<ClamdAddress> {
  const host = '127.0.0.1';
  const port = clamdPort();
  if (await answersPing(host, port)) return { host, port };
  throw new Error(
    `clamd does not answer PING on ${host}:${port}; run scripts/peers (it needs Debian's clamav-daemon)`,
  );
}

function clamdPort(): number {
  const raw = process.env.CLAMD_PORT ?? '3310';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`CLAMD_PORT is not a port: ${raw}`);
  return port;
}

/** Sends `zPING\0` and expects `PONG\0` (clamd's null-terminated command form). */
function answersPing(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(PING_TIMEOUT_MS, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('zPING\0'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\0')) finish(reply === 'PONG\0');
    });
    socket.on('end', () => finish(false));
  });
}
