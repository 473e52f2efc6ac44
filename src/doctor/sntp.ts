/**
 * One SNTP query (RFC 4330): how far this host's clock is from a time server's. A 48-byte UDP
 * request carries our transmit time; the server copies it into the originate field, so a reply to
 * some other request is refused. offset = ((T2 - T1) + (T3 - T4)) / 2 (RFC 4330 §5).
 */
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';

/** Seconds from 1900 (NTP's era 0) to 1970. */
const NTP_EPOCH_OFFSET = 2_208_988_800;

function writeTimestamp(buffer: Buffer, offset: number, ms: number): void {
  const seconds = Math.floor(ms / 1000) + NTP_EPOCH_OFFSET;
  const fraction = Math.round(((ms % 1000) / 1000) * 2 ** 32);
  buffer.writeUInt32BE(seconds >>> 0, offset);
  buffer.writeUInt32BE(Math.min(fraction, 2 ** 32 - 1), offset + 4);
}

function readTimestamp(buffer: Buffer, offset: number): number {
  const seconds = buffer.readUInt32BE(offset) - NTP_EPOCH_OFFSET;
  const fraction = buffer.readUInt32BE(offset + 4) / 2 ** 32;
  return (seconds + fraction) * 1000;
}

export interface SntpResult {
  /** Milliseconds to add to this host's clock to reach the server's. */
  readonly offsetMs: number;
  readonly roundTripMs: number;
  /** The server says its own clock is not synchronized (leap indicator 3, or stratum 0 or 16+). */
  readonly unsynchronized: boolean;
}

export class SntpError extends Error {}

/**
 * @example const { offsetMs } = await querySntp('pool.ntp.org', 123, 2000);
 */
export function querySntp(host: string, port: number, timeoutMs: number): Promise<SntpResult> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
    const request = Buffer.alloc(48);
    request[0] = (0 << 6) | (4 << 3) | 3; // LI 0, version 4, mode 3 (client)
    const sentAt = Date.now();
    writeTimestamp(request, 40, sentAt);
    const done = (error: Error | undefined, result?: SntpResult) => {
      clearTimeout(timer);
      socket.close();
      if (error) reject(error);
      else resolve(result as SntpResult);
    };
    const timer = setTimeout(() => done(new SntpError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (error) => done(error));
    socket.on('message', (reply) => {
      const receivedAt = Date.now();
      if (reply.length < 48) return;
      const mode = (reply[0] as number) & 7;
      if (mode !== 4 || !reply.subarray(24, 32).equals(request.subarray(40, 48))) return;
      const leap = (reply[0] as number) >> 6;
      const stratum = reply[1] as number;
      const t2 = readTimestamp(reply, 32);
      const t3 = readTimestamp(reply, 40);
      done(undefined, {
        offsetMs: (t2 - sentAt + (t3 - receivedAt)) / 2,
        roundTripMs: receivedAt - sentAt - (t3 - t2),
        unsynchronized: leap === 3 || stratum === 0 || stratum >= 16,
      });
    });
    socket.send(request, port, host, (error) => {
      if (error) done(error);
    });
  });
}
