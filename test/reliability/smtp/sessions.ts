/**
 * Malformed inbound SMTP sessions, one kind per function, each saying what the listener must
 * answer. A session talks over a raw socket (no client library would send these bytes) and
 * returns a problem, or undefined when the listener answered as it should.
 */
import { connect, type Socket } from 'node:net';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

export interface Target {
  readonly port: number;
  readonly rcpt: string;
  readonly maxMessageBytes: number;
  readonly idleTimeoutMs: number;
  readonly maxSessionMs: number;
  readonly maxCommands: number;
  readonly maxRecipients: number;
  /** Subjects of messages answered 250: each must be stored. */
  readonly accepted: Set<string>;
  /** Subjects of messages refused (or never finished): none may be stored. */
  readonly refused: Set<string>;
}

/** A line-reading conversation on one socket. */
export class Conversation {
  readonly #socket: Socket;
  #buffer = '';
  #closed = false;
  #waiters: (() => void)[] = [];

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.#buffer += d;
      this.#wake();
    });
    socket.on('close', () => {
      this.#closed = true;
      this.#wake();
    });
    socket.on('error', () => {});
  }

  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }

  /** The next whole reply (multi-line replies joined), or undefined if the server closed. */
  async reply(timeoutMs = 45_000): Promise<string | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m =
        /^(\d{3})(?:-.*\r\n(?:\1-.*\r\n)*\1)?[ ].*\r\n/.exec(this.#buffer) ??
        /^\d{3} .*\r\n/.exec(this.#buffer);
      if (m) {
        this.#buffer = this.#buffer.slice(m[0].length);
        return m[0];
      }
      if (this.#closed) return undefined;
      if (Date.now() > until)
        throw new Error(`no reply within ${timeoutMs} ms (buffer: ${this.#buffer.slice(0, 80)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.#closed) return resolve();
      this.#socket.write(data, () => resolve());
    });
  }

  async command(line: string): Promise<string | undefined> {
    await this.write(`${line}\r\n`);
    return this.reply();
  }

  async closedWithin(ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (!this.#closed && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return this.#closed;
  }

  get closed(): boolean {
    return this.#closed;
  }

  end() {
    this.#socket.destroy();
  }
}

export async function open(target: Target, localAddress?: string): Promise<Conversation> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ port: target.port, host: '127.0.0.1', localAddress }, () => resolve(s));
    s.once('error', reject);
  });
  const c = new Conversation(socket);
  const greeting = await c.reply();
  if (!greeting?.startsWith('220')) throw new Error(`greeting: ${greeting}`);
  return c;
}

const code = (reply: string | undefined) => (reply === undefined ? 'closed' : reply.slice(0, 3));
const expect = (what: string, reply: string | undefined, ok: (c: string) => boolean) =>
  ok(code(reply))
    ? undefined
    : `${what}: got ${reply === undefined ? 'a closed connection' : reply.trim().slice(0, 120)}`;

async function envelope(c: Conversation, target: Target): Promise<string | undefined> {
  const steps: [string, string][] = [
    ['EHLO hostile.example', '250'],
    ['MAIL FROM:<sender@hostile.example>', '250'],
    [`RCPT TO:<${target.rcpt}>`, '250'],
  ];
  for (const [line, want] of steps) {
    const problem = expect(line, await c.command(line), (x) => x === want);
    if (problem) return problem;
  }
  return undefined;
}

function message(subject: string, body: string): string {
  return `From: <sender@hostile.example>\r\nTo: <x@y>\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@hostile.example>\r\n\r\n${body}\r\n.\r\n`;
}

/** A message the listener must take: a 250, and its subject joins those to be found stored. */
function accepted(
  target: Target,
  subject: string,
  what: string,
  reply: string | undefined,
): string | undefined {
  const problem = expect(what, reply, (x) => x === '250');
  if (!problem) target.accepted.add(subject);
  return problem;
}

export type Kind = (target: Target, n: number) => Promise<string | undefined>;

export const kinds: Record<string, Kind> = {
  async garbage(target) {
    const c = await open(target);
    try {
      const r = expect(
        'garbage command',
        await c.command('XYZZY \u00ff\u00fe plugh'),
        (x) => x === '500' || x === '502',
      );
      return r ?? expect('QUIT', await c.command('QUIT'), (x) => x === '221');
    } finally {
      c.end();
    }
  },
  async longLine(target) {
    const c = await open(target);
    try {
      await c.write(`EHLO ${'a'.repeat(1024 * 1024)}\r\n`);
      // RFC 5321 §4.5.3.1.4: 500 line too long; smtp-server says 421 and closes (its parser
      // dropped the line), which tells the client the same: this line will never be taken.
      const problem = expect(
        'a 1 MB command line',
        await c.reply(),
        (x) => x === '500' || x === '421' || x === 'closed',
      );
      if (problem) return problem;
      return (await c.closedWithin(15_000)) ? undefined : 'a 1 MB command line: the connection stayed open';
    } finally {
      c.end();
    }
  },
  async bareLf(target, n) {
    const c = await open(target);
    try {
      const problem = await envelope(c, target);
      if (problem) return problem;
      const data = await c.command('DATA');
      if (code(data) !== '354') return `DATA: ${data}`;
      // SMTP smuggling: a bare-LF "end of data" with a second transaction behind it.
      await c.write(
        `Subject: lf-${n}\r\n\r\nhello\n.\nMAIL FROM:<smuggled@hostile.example>\nRCPT TO:<${target.rcpt}>\nDATA\nSubject: smuggled\n\nx\n.\n\r\n.\r\n`,
      );
      const end = await c.reply();
      const problemEnd = expect(
        'end of a DATA holding bare LFs',
        end,
        (x) => x === '250' || x.startsWith('5'),
      );
      if (problemEnd) return problemEnd;
      (code(end) === '250' ? target.accepted : target.refused).add(`lf-${n}`);
      target.refused.add('smuggled');
      const more = await c.command('NOOP');
      return expect(
        'the smuggled commands were not run (the next reply answers NOOP)',
        more,
        (x) => x === '250',
      );
    } finally {
      c.end();
    }
  },
  async nulBytes(target) {
    const c = await open(target);
    try {
      await c.command('EHLO hostile.example');
      const r = await c.command('MAIL FROM:<a\u0000b@hostile.example>');
      const problem =
        expect('NUL in MAIL FROM', r, (x) => x.startsWith('5')) ??
        expect('MAIL FROM after it', await c.command('MAIL FROM:<a@hostile.example>'), (x) => x === '250') ??
        expect('NUL in RCPT TO', await c.command(`RCPT TO:<\u0000${target.rcpt}>`), (x) => x.startsWith('5'));
      return problem;
    } finally {
      c.end();
    }
  },
  async pipeliningFlood(target) {
    const c = await open(target);
    try {
      await c.write(`EHLO hostile.example\r\n${'NOOP\r\n'.repeat(1000)}`);
      const codes: string[] = [];
      for (;;) {
        const r = await c.reply();
        if (r === undefined) break;
        codes.push(code(r));
        if (r.startsWith('421')) break;
      }
      // EHLO and NOOPs up to max_commands are answered 250, the next one 421, and nothing more.
      const want = [...Array.from({ length: target.maxCommands }, () => '250'), '421'];
      if (codes.join() !== want.join())
        return `a flood of 1,000 pipelined NOOPs: ${codes.length} replies (${[...new Set(codes)].join(', ')}), ending ${codes.at(-1)}; want ${target.maxCommands} × 250 then 421`;
      return (await c.closedWithin(15_000))
        ? undefined
        : 'a flood of pipelined NOOPs: the connection stayed open after 421';
    } finally {
      c.end();
    }
  },
  async endlessData(target) {
    const c = await open(target);
    try {
      const problem = await envelope(c, target);
      if (problem) return problem;
      await c.command('DATA');
      target.refused.add('never ends');
      await c.write('Subject: never ends\r\n\r\nthe rest never comes\r\n');
      const closed = await c.closedWithin(target.idleTimeoutMs + 10_000);
      return closed
        ? undefined
        : `a DATA that never ends was not cut off within ${target.idleTimeoutMs + 10_000} ms`;
    } finally {
      c.end();
    }
  },
  async oversize(target, n) {
    const c = await open(target);
    try {
      const problem = await envelope(c, target);
      if (problem) return problem;
      await c.command('DATA');
      const line = `${'x'.repeat(998)}\r\n`;
      const body = line.repeat(Math.ceil((target.maxMessageBytes * 1.5) / line.length));
      target.refused.add(`big-${n}`);
      await c.write(message(`big-${n}`, body));
      return expect('a message over the size limit', await c.reply(60_000), (x) => x === '552');
    } finally {
      c.end();
    }
  },
  async brokenMime(target, n) {
    const c = await open(target);
    try {
      const problem = await envelope(c, target);
      if (problem) return problem;
      await c.command('DATA');
      await c.write(
        `From: <s@hostile.example>\r\nSubject: mime-${n}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: multipart/alternative; boundary=\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64%%%\r\n--b1\r\nContent-Type: text/html; charset=x-unknown-\u00ff\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=ZZ=\r\n--b1--garbage\r\n.\r\n`,
      );
      return accepted(target, `mime-${n}`, 'broken MIME (accepted, parsed later)', await c.reply());
    } finally {
      c.end();
    }
  },
  async compressionBombs(target, n) {
    const c = await open(target);
    try {
      const problem = await envelope(c, target);
      if (problem) return problem;
      await c.command('DATA');
      const base64 = (b: Buffer) => b.toString('base64').replace(/.{76}/g, '$&\r\n');
      const part = (type: string, name: string, b: Buffer) =>
        `--b\r\nContent-Type: ${type}; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64(b)}\r\n`;
      await c.write(
        `From: <s@hostile.example>\r\nSubject: bomb-${n}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n${part('application/gzip', 'logs.tar.gz', bombBytes())}${part('application/zip', 'logs.zip', zipBombBytes())}--b--\r\n.\r\n`,
      );
      return accepted(
        target,
        `bomb-${n}`,
        'a gzip and a zip decompression bomb attached (accepted; scanning bounds them)',
        await c.reply(),
      );
    } finally {
      c.end();
    }
  },
  async thousandsOfRecipients(target) {
    const c = await open(target);
    try {
      await c.command('EHLO hostile.example');
      await c.command('MAIL FROM:<sender@hostile.example>');
      await c.write(
        Array.from({ length: 3000 }, (_, i) => `RCPT TO:<r${i}@${target.rcpt.split('@')[1]}>\r\n`).join(''),
      );
      const codes: string[] = [];
      for (;;) {
        const r = await c.reply();
        if (r === undefined) break;
        codes.push(code(r));
        if (r.startsWith('421') || codes.length >= 3000) break;
      }
      // max_recipients are taken, the next ones 452 (RFC 5321 §4.5.3.1.10), until the commands
      // pass max_commands (EHLO and MAIL count): 421 and the connection is closed.
      const taken = target.maxRecipients;
      const refusedBefore421 = target.maxCommands - 2 - taken;
      const want = [
        ...Array.from({ length: taken }, () => '250'),
        ...Array.from({ length: refusedBefore421 }, () => '452'),
        '421',
      ];
      if (codes.join() !== want.join()) {
        const runs = codes.reduce<string[]>((acc, x) => {
          const last = acc.at(-1);
          if (last?.startsWith(`${x}×`)) acc[acc.length - 1] = `${x}×${Number(last.split('×')[1]) + 1}`;
          else acc.push(`${x}×1`);
          return acc;
        }, []);
        return `3,000 pipelined recipients: replies ${runs.join(' ')}; want 250×${taken} 452×${refusedBefore421} 421×1`;
      }
      return undefined;
    } finally {
      c.end();
    }
  },
  async outOfOrder(target) {
    const c = await open(target);
    try {
      return (
        expect('MAIL before EHLO', await c.command('MAIL FROM:<a@hostile.example>'), (x) => x === '503') ??
        expect('EHLO', await c.command('EHLO hostile.example'), (x) => x === '250') ??
        expect('RCPT before MAIL', await c.command(`RCPT TO:<${target.rcpt}>`), (x) => x === '503') ??
        expect('DATA before MAIL', await c.command('DATA'), (x) => x === '503') ??
        expect('MAIL', await c.command('MAIL FROM:<a@hostile.example>'), (x) => x === '250') ??
        expect(
          'a second MAIL in a transaction',
          await c.command('MAIL FROM:<b@hostile.example>'),
          (x) => x === '503',
        ) ??
        expect('DATA before RCPT', await c.command('DATA'), (x) => x === '503') ??
        expect('RCPT without brackets or address', await c.command('RCPT TO:'), (x) => x === '501') ??
        expect('RSET', await c.command('RSET'), (x) => x === '250')
      );
    } finally {
      c.end();
    }
  },
  async bareCr(target) {
    const c = await open(target);
    try {
      await c.command('EHLO hostile.example');
      // A bare CR never ends a command: the line is one (bad) address, not MAIL then RCPT.
      const r = await c.command(`MAIL FROM:<a@hostile.example>\rRCPT TO:<${target.rcpt}>`);
      if (r?.startsWith('250')) {
        return expect(
          'the RCPT hidden behind a bare CR was not run',
          await c.command('DATA'),
          (x) => x === '503' || x === '554',
        );
      }
      return expect('a command holding a bare CR', r, (x) => x.startsWith('5'));
    } finally {
      c.end();
    }
  },
  async nulInData(target, n) {
    const c = await open(target);
    try {
      const problem = await envelope(c, target);
      if (problem) return problem;
      await c.command('DATA');
      await c.write(message(`nul-${n}`, 'before\u0000after\r\n\u0000\u0000\r\nend'));
      const r = await c.reply();
      // Postfix takes NUL bytes in a body by default; refusing them (5xx) is sound too.
      const bad = expect('NUL bytes in a message body', r, (x) => x === '250' || x.startsWith('5'));
      if (bad) return bad;
      (code(r) === '250' ? target.accepted : target.refused).add(`nul-${n}`);
      return undefined;
    } finally {
      c.end();
    }
  },
  async dribble(target) {
    // Slowloris: a byte every 200 ms keeps idle_timeout from firing; max_session still ends it.
    const c = await open(target);
    try {
      await c.command('EHLO hostile.example');
      const started = Date.now();
      const until = started + target.maxSessionMs + 15_000;
      const line = 'NOOP and more words that never end';
      for (let i = 0; !c.closed && Date.now() < until; i++) {
        await c.write(line[i % line.length] as string);
        await new Promise((r) => setTimeout(r, 200));
      }
      const r = await c.reply(1000).catch(() => undefined);
      if (!c.closed)
        return `a client dribbling a byte every 200 ms was still connected after ${Date.now() - started} ms`;
      return expect('a client dribbling a command past max_session', r, (x) => x === '421' || x === 'closed');
    } finally {
      c.end();
    }
  },
};

/**
 * A connection flood: `count` connections opened at once from `addresses` (loopback addresses,
 * each its own client), held open. Returns how many were greeted 220 and how many refused 421;
 * any other outcome is a problem. All are closed before it returns.
 */
export async function flood(
  target: Target,
  addresses: readonly string[],
  count: number,
): Promise<{ greeted: number; refused: number; problems: string[] }> {
  const opened = await Promise.allSettled(
    Array.from({ length: count }, (_, i) => rawOpen(target.port, addresses[i % addresses.length] as string)),
  );
  let greeted = 0;
  let refused = 0;
  const problems: string[] = [];
  for (const result of opened) {
    if (result.status === 'rejected') {
      problems.push(String(result.reason).slice(0, 120));
      continue;
    }
    const { first } = result.value;
    if (first?.startsWith('220')) greeted += 1;
    else if (first?.startsWith('421')) refused += 1;
    else problems.push(`a flooding connection was answered ${first ?? 'by a close'}`);
  }
  for (const result of opened) if (result.status === 'fulfilled') result.value.c.end();
  return { greeted, refused, problems };
}

async function rawOpen(
  port: number,
  localAddress: string,
): Promise<{ c: Conversation; first: string | undefined }> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(s));
    s.once('error', reject);
  });
  const c = new Conversation(socket);
  return { c, first: await c.reply() };
}

let bomb: Buffer | undefined;
/** 64 MB of zeros gzipped (about 64 KB): a small attachment that expands a thousandfold. */
function bombBytes(): Buffer {
  bomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return bomb;
}

let zipBomb: Buffer | undefined;
/** A zip archive of one 64 MB file of zeros, deflated (about 64 KB), built by hand. */
export function zipBombBytes(): Buffer {
  if (zipBomb) return zipBomb;
  const data = Buffer.alloc(64 * 1024 * 1024);
  const packed = deflateRawSync(data, { level: 9 });
  const name = Buffer.from('logs.txt');
  const crc = crc32(data);
  const fields = (size: number, write: (b: Buffer) => void) => {
    const b = Buffer.alloc(size);
    write(b);
    return b;
  };
  // Local file header (APPNOTE 4.3.7): version 2.0, no flags, deflate, 1980-01-01.
  const local = fields(30, (b) => {
    b.writeUInt32LE(0x04034b50, 0);
    b.writeUInt16LE(20, 4);
    b.writeUInt16LE(8, 8);
    b.writeUInt16LE(0x21, 12);
    b.writeUInt32LE(crc, 14);
    b.writeUInt32LE(packed.length, 18);
    b.writeUInt32LE(data.length, 22);
    b.writeUInt16LE(name.length, 26);
  });
  // Central directory header (4.3.12) pointing at offset 0.
  const central = fields(46, (b) => {
    b.writeUInt32LE(0x02014b50, 0);
    b.writeUInt16LE(20, 4);
    b.writeUInt16LE(20, 6);
    b.writeUInt16LE(8, 10);
    b.writeUInt16LE(0x21, 14);
    b.writeUInt32LE(crc, 16);
    b.writeUInt32LE(packed.length, 20);
    b.writeUInt32LE(data.length, 24);
    b.writeUInt16LE(name.length, 28);
  });
  const centralOffset = local.length + name.length + packed.length;
  // End of central directory (4.3.16).
  const end = fields(22, (b) => {
    b.writeUInt32LE(0x06054b50, 0);
    b.writeUInt16LE(1, 8);
    b.writeUInt16LE(1, 10);
    b.writeUInt32LE(central.length + name.length, 12);
    b.writeUInt32LE(centralOffset, 16);
  });
  zipBomb = Buffer.concat([local, name, packed, central, name, end]);
  return zipBomb;
}

/** A good session alongside: a plain message to the routed address, which must be a 250. */
export async function goodSession(target: Target, n: number): Promise<string | undefined> {
  const c = await open(target);
  try {
    const problem = await envelope(c, target);
    if (problem) return `good session: ${problem}`;
    await c.command('DATA');
    await c.write(message(`good-${n}`, 'A well-formed message.'));
    return accepted(target, `good-${n}`, 'a good session alongside', await c.reply());
  } finally {
    c.end();
  }
}
