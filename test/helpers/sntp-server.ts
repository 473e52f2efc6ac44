/**
 * A time server for tests: answers SNTP requests (RFC 4330) on a loopback UDP port with a clock
 * `offsetMs` away from this host's, as an NTP server with a skewed view would; it can say its own
 * clock is unsynchronized, or stay silent. No Debian package serves a chosen offset (chrony and
 * ntpsec serve the host's own clock), hence this peer, written like the DNS server beside it.
 */
import { createSocket } from 'node:dgram';

const NTP_EPOCH_OFFSET = 2_208_988_800;

export interface SntpServerOptions {
  /** Milliseconds the server's clock is ahead of this host's (negative: behind). */
  offsetMs?: number;
  /** Answer with leap indicator 3 (clock not synchronized). */
  unsynchronized?: boolean;
  /** Never answer. */
  silent?: boolean;
}

export interface SntpServer {
  /** `127.0.0.1:PORT`, for `posthorn doctor --time-server`. */
  readonly address: string;
  readonly port: number;
  /** Requests received. */
  readonly requests: number;
  stop(): Promise<void>;
}

function writeTimestamp(buffer: Buffer, offset: number, ms: number): void {
  buffer.writeUInt32BE(Math.floor(ms / 1000) + NTP_EPOCH_OFFSET, offset);
  buffer.writeUInt32BE(Math.floor(((ms % 1000) / 1000) * 2 ** 32), offset + 4);
}

export async function startSntpServer(options: SntpServerOptions = {}): Promise<SntpServer> {
  const socket = createSocket('udp4');
  let requests = 0;
  socket.on('message', (request, from) => {
    requests++;
    if (options.silent || request.length < 48) return;
    const reply = Buffer.alloc(48);
    const leap = options.unsynchronized ? 3 : 0;
    reply[0] = (leap << 6) | (4 << 3) | 4; // version 4, mode 4 (server)
    reply[1] = 2; // stratum 2
    const now = Date.now() + (options.offsetMs ?? 0);
    request.copy(reply, 24, 40, 48); // originate = the client's transmit time
    writeTimestamp(reply, 16, now); // reference
    writeTimestamp(reply, 32, now); // receive
    writeTimestamp(reply, 40, now); // transmit
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
