/**
 * A lean SMTP sink, run as its own process: `node dist/bench/delivery/lean-sink.js <port>`. It
 * answers every command with success (EHLO offers PIPELINING, SIZE and 8BITMIME; no STARTTLS, as
 * smtp-sink), finds the end of each message's DATA with a native byte search instead of reading it
 * line by line, and prints `mesg=N` on stdout when its count grows (the format of smtp-sink -c).
 *
 * Why: the benchmark's MX shares the two CPUs with the subject. Postfix's smtp-sink reads DATA a
 * character at a time and spent ~40 % of a CPU receiving 100 KB messages at ~600/s; on a real
 * deployment the MX is another machine. Both subjects are measured against the same sink.
 */
import { createServer, type Socket } from 'node:net';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: lean-sink <port>\n');
  process.exit(2);
}

const END_OF_DATA = Buffer.from('\r\n.\r\n', 'latin1');
const EHLO_REPLY = '250-sink\r\n250-PIPELINING\r\n250-SIZE\r\n250-8BITMIME\r\n250 ENHANCEDSTATUSCODES\r\n';
let count = 0;

function reply(line: string): { text: string; data?: boolean; quit?: boolean } {
  const verb = line.slice(0, 4).toUpperCase();
  switch (verb) {
    case 'EHLO':
      return { text: EHLO_REPLY };
    case 'HELO':
      return { text: '250 sink\r\n' };
    case 'MAIL':
      return { text: '250 2.1.0 Ok\r\n' };
    case 'RCPT':
      return { text: '250 2.1.5 Ok\r\n' };
    case 'DATA':
      return { text: '354 End data with <CR><LF>.<CR><LF>\r\n', data: true };
    case 'RSET':
    case 'NOOP':
      return { text: '250 2.0.0 Ok\r\n' };
    case 'QUIT':
      return { text: '221 2.0.0 Bye\r\n', quit: true };
    default:
      return { text: '502 5.5.2 Error: command not recognized\r\n' };
  }
}

function session(socket: Socket): void {
  socket.setNoDelay(true);
  let inData = false;
  // The last bytes of DATA seen so far (up to 4), to find an end marker split across reads. DATA
  // starts as if after a line break, so an empty message (".\r\n" at once) ends at once too.
  let carry = Buffer.alloc(0);
  let line = '';
  socket.write('220 sink ESMTP\r\n');
  socket.on('data', (chunk: Buffer) => {
    let out = '';
    let at = 0;
    const before = count;
    while (at < chunk.length) {
      if (inData) {
        const end = endOfData(carry, chunk, at);
        if (end === -1) {
          const rest = chunk.subarray(Math.max(at, chunk.length - 4));
          carry = Buffer.concat([carry, rest]).subarray(-4);
          break;
        }
        inData = false;
        count++;
        out += '250 2.0.0 Ok: queued\r\n';
        at = end;
        continue;
      }
      const newline = chunk.indexOf(0x0a, at);
      if (newline === -1) {
        line += chunk.toString('latin1', at);
        break;
      }
      line += chunk.toString('latin1', at, newline);
      at = newline + 1;
      const answer = reply(line.replace(/\r$/, ''));
      line = '';
      out += answer.text;
      if (answer.data) {
        inData = true;
        carry = Buffer.from('\r\n', 'latin1');
      }
      if (answer.quit) {
        // The end of a message and QUIT can arrive in one read: count it before hanging up.
        if (count !== before) process.stdout.write(`mesg=${count}\n`);
        socket.end(out);
        return;
      }
    }
    if (out !== '') socket.write(out);
    if (count !== before) process.stdout.write(`mesg=${count}\n`);
  });
  socket.on('error', () => socket.destroy());
}

/** Where the message ends in `chunk` (just past its end marker), looking from `from`; -1 if not in it. */
function endOfData(carry: Buffer, chunk: Buffer, from: number): number {
  if (carry.length > 0) {
    const seam = Buffer.concat([carry, chunk.subarray(from, from + END_OF_DATA.length - 1)]);
    const found = seam.indexOf(END_OF_DATA);
    if (found !== -1) return from + found + END_OF_DATA.length - carry.length;
  }
  const found = chunk.indexOf(END_OF_DATA, from);
  return found === -1 ? -1 : found + END_OF_DATA.length;
}

const server = createServer(session);
// An optional second argument: the loopback address to listen on (the broadcast benchmark's second MX).
server.listen(port, process.argv[3] ?? '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
