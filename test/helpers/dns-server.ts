/**
 * A real, authoritative DNS server for tests: UDP and TCP on one loopback port, answering from
 * records the test sets. It follows the protocol where resolvers care: an unknown name is
 * NXDOMAIN, a known name without records of the asked type is NOERROR with an empty answer (also
 * for names that only exist as a parent of another, RFC 8020), long TXT strings are split into
 * 255-byte character-strings (RFC 1035 §3.3.14), and a UDP answer larger than the client's
 * buffer is truncated so the client retries over TCP. A name can be made to SERVFAIL, REFUSE or
 * never answer, and every query is counted, so tests can prove what a cache did.
 *
 * It never forwards anything: names it does not hold do not exist.
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import {
  AUTHORITATIVE_ANSWER,
  type Answer,
  type DecodedPacket,
  decode,
  encode,
  type OptAnswer,
  type Packet,
  RECURSION_DESIRED,
  TRUNCATED_RESPONSE,
} from 'dns-packet';

export type DnsRecordType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'CNAME' | 'PTR' | 'NS';

export interface MxValue {
  readonly preference: number;
  readonly exchange: string;
}

/** MX takes `{preference, exchange}`; TXT a string (split as needed) or its chunks; others a string. */
export type DnsRecordValue<T extends DnsRecordType> = T extends 'MX'
  ? MxValue
  : T extends 'TXT'
    ? string | readonly string[]
    : string;

/** How a name misbehaves: answer SERVFAIL, answer REFUSED, or never answer (a timeout). */
export type DnsFailure = 'servfail' | 'refused' | 'timeout';

export interface DnsQueryLogEntry {
  readonly name: string;
  readonly type: string;
  readonly transport: 'udp' | 'tcp';
}

export interface DnsTestServer {
  /** `127.0.0.1:PORT`, ready for `Resolver.setServers` or the `dns.servers` config key. */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  /** Replaces the records of one type at `name`. */
  set<T extends DnsRecordType>(
    name: string,
    type: T,
    values: readonly DnsRecordValue<T>[],
    options?: { readonly ttl?: number },
  ): void;
  /** Makes every query for `name` (or only for `type` there) fail this way until cleared. */
  fail(name: string, failure: DnsFailure, type?: DnsRecordType): void;
  /** Forgets one name's records and failures, or everything (and the query log) without a name. */
  clear(name?: string): void;
  /** How many queries arrived, optionally only those for `name` and `type`. */
  queries(name?: string, type?: DnsRecordType): number;
  readonly log: readonly DnsQueryLogEntry[];
  stop(): Promise<void>;
}

interface StoredRecords {
  readonly ttl: number;
  readonly values: readonly unknown[];
}

interface NameEntry {
  readonly records: Map<string, StoredRecords>;
  readonly failures: Map<string, DnsFailure>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const ANY_TYPE = '*';
const CLASSIC_UDP_LIMIT = 512;
/** The EDNS0 record answered to clients that sent one (RFC 6891). */
const OUR_OPT: OptAnswer = {
  type: 'OPT',
  name: '.',
  udpPayloadSize: 1232,
  extendedRcode: 0,
  ednsVersion: 0,
  flags: 0,
  flag_do: false,
  options: [],
};

function normalize(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** RFC 1035 §3.3.14: a character-string holds at most 255 bytes; longer text becomes several. */
function characterStrings(value: string | readonly string[]): Buffer[] {
  const parts = typeof value === 'string' ? [value] : value;
  const out: Buffer[] = [];
  for (const part of parts) {
    const bytes = Buffer.from(part, 'utf8');
    if (bytes.length === 0) out.push(bytes);
    for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  }
  return out;
}

class Zone {
  readonly names = new Map<string, NameEntry>();

  entry(name: string): NameEntry {
    const key = normalize(name);
    let entry = this.names.get(key);
    if (!entry) {
      entry = { records: new Map(), failures: new Map() };
      this.names.set(key, entry);
    }
    return entry;
  }

  /** A name exists if it was set, or if a name below it was (an empty non-terminal). */
  exists(name: string): boolean {
    if (this.names.has(name)) return true;
    const suffix = `.${name}`;
    for (const known of this.names.keys()) if (known.endsWith(suffix)) return true;
    return false;
  }
}

function toAnswers(qname: string, type: string, stored: StoredRecords): Answer[] {
  return stored.values.map((value): Answer => {
    switch (type) {
      case 'MX':
        return { name: qname, type: 'MX', ttl: stored.ttl, data: value as MxValue };
      case 'TXT':
        return {
          name: qname,
          type: 'TXT',
          ttl: stored.ttl,
          data: characterStrings(value as string | string[]),
        };
      default:
        return { name: qname, type: type as 'A', ttl: stored.ttl, data: value as string };
    }
  });
}

/** The reply to one query, or null when the name is set to time out. */
function answer(zone: Zone, query: DecodedPacket): Packet | null {
  const question = query.questions?.[0];
  const reply = (rcode: number, answers: Answer[] = []): Packet => ({
    type: 'response',
    id: query.id ?? 0,
    flags: AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & RECURSION_DESIRED) | rcode,
    questions: question ? [question] : [],
    answers,
  });
  if (!question) return reply(RCODE.REFUSED);

  const name = normalize(question.name);
  const entry = zone.names.get(name);
  const failure = entry?.failures.get(question.type) ?? entry?.failures.get(ANY_TYPE);
  if (failure === 'timeout') return null;
  if (failure === 'servfail') return reply(RCODE.SERVFAIL);
  if (failure === 'refused') return reply(RCODE.REFUSED);
  if (!zone.exists(name)) return reply(RCODE.NXDOMAIN);

  const stored = entry?.records.get(question.type);
  if (stored) return reply(RCODE.NOERROR, toAnswers(question.name, question.type, stored));
  // RFC 1034 §4.3.2: a CNAME at the name answers for every type.
  const alias = entry?.records.get('CNAME');
  if (alias) return reply(RCODE.NOERROR, toAnswers(question.name, 'CNAME', alias));
  return reply(RCODE.NOERROR);
}

/** Encodes a UDP reply, truncating it (TC set, no answers) when it exceeds the client's buffer. */
function encodeUdp(reply: Packet, query: DecodedPacket): Buffer {
  const opt = query.additionals?.find((a): a is OptAnswer => a.type === 'OPT');
  const limit = Math.max(CLASSIC_UDP_LIMIT, opt?.udpPayloadSize ?? CLASSIC_UDP_LIMIT);
  const withOpt: Packet = opt ? { ...reply, additionals: [{ ...OUR_OPT }] } : reply;
  const full = encode(withOpt);
  if (full.length <= limit) return full;
  return encode({ ...withOpt, flags: (reply.flags ?? 0) | TRUNCATED_RESPONSE, answers: [] });
}

function tryDecode(buf: Buffer): DecodedPacket | null {
  try {
    return decode(buf);
  } catch {
    return null;
  }
}

async function bindBoth(): Promise<{ udp: UdpSocket; tcp: Server; port: number }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    const port = udp.address().port;
    const tcp = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return { udp, tcp, port };
    udp.close();
  }
  throw new Error('could not bind UDP and TCP on one loopback port for the test DNS server');
}

/**
 * Starts the server on 127.0.0.1 with an ephemeral port.
 *
 * @example
 * const dns = await startDnsServer();
 * dns.set('example.test', 'MX', [{ preference: 10, exchange: 'mx.example.test' }]);
 * const resolver = new Resolver(); resolver.setServers([dns.address]);
 * await dns.stop();
 */
export async function startDnsServer(options: { readonly defaultTtl?: number } = {}): Promise<DnsTestServer> {
  const defaultTtl = options.defaultTtl ?? 300;
  const zone = new Zone();
  const log: DnsQueryLogEntry[] = [];
  const { udp, tcp, port } = await bindBoth();
  const connections = new Set<TcpSocket>();

  const handle = (
    buf: Buffer,
    transport: 'udp' | 'tcp',
  ): { query: DecodedPacket; reply: Packet | null } | null => {
    const query = tryDecode(buf);
    if (query?.type !== 'query') return null;
    const question = query.questions?.[0];
    if (question) log.push({ name: normalize(question.name), type: question.type, transport });
    return { query, reply: answer(zone, query) };
  };

  udp.on('message', (msg: Buffer, peer: RemoteInfo) => {
    const handled = handle(msg, 'udp');
    if (!handled?.reply) return;
    udp.send(encodeUdp(handled.reply, handled.query), peer.port, peer.address);
  });

  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // RFC 1035 §4.2.2: each message over TCP is preceded by its two-byte length.
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (pending.length < length + 2) break;
        const handled = handle(pending.subarray(2, length + 2), 'tcp');
        pending = pending.subarray(length + 2);
        if (!handled?.reply) continue;
        const body = encode(handled.reply);
        const prefix = Buffer.alloc(2);
        prefix.writeUInt16BE(body.length);
        socket.write(Buffer.concat([prefix, body]));
      }
    });
  });

  return {
    address: `127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    log,
    set(name, type, values, setOptions) {
      zone.entry(name).records.set(type, { ttl: setOptions?.ttl ?? defaultTtl, values: [...values] });
    },
    fail(name, failure, type) {
      zone.entry(name).failures.set(type ?? ANY_TYPE, failure);
    },
    clear(name) {
      if (name === undefined) {
        zone.names.clear();
        log.length = 0;
      } else {
        zone.names.delete(normalize(name));
      }
    },
    queries(name, type) {
      const wanted = name === undefined ? undefined : normalize(name);
      return log.filter(
        (q) => (wanted === undefined || q.name === wanted) && (type === undefined || q.type === type),
      ).length;
    },
    async stop() {
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
