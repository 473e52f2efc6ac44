/**
 * The MX of the delivery benchmark, one process on loopback, the same for Posthorn and Postfix:
 * `lean` (the default, lean-sink.ts: finds each message's end with a native byte search) or
 * Postfix's `smtp-sink` (C, but it reads DATA a character at a time: ~40 % of a CPU at 600
 * messages/s of 100 KB, taken from the two CPUs the subject runs on). Each prints a counter line
 * ("... mesg=N") on stdout, read and time-stamped here: the first and last delivery.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type DnsTestServer, startDnsServer } from '../../test/helpers/dns-server.js';
import { freePort } from '../lib.js';
import { RECIPIENT_DOMAIN } from './posthorn.js';

export type SinkKind = 'lean' | 'smtp-sink';

export interface Sink {
  readonly port: number;
  /** Messages received so far. */
  readonly count: number;
  /** Resolves with the time (performance.now) at which the sink's count reached `n`. */
  waitFor(n: number, timeoutMs: number): Promise<number>;
  /** performance.now() when the count first reached `n` (undefined if not yet). */
  at(n: number): number | undefined;
  stop(): Promise<void>;
}

export async function startSink(port: number, kind: SinkKind = 'lean', host = '127.0.0.1'): Promise<Sink> {
  const [command, args] =
    kind === 'lean'
      ? [process.execPath, [fileURLToPath(new URL('./lean-sink.js', import.meta.url)), String(port), host]]
      : ['smtp-sink', ['-c', '-u', 'nobody', `127.0.0.1:${port}`, '1024']];
  const child: ChildProcess = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let count = 0;
  const times = new Map<number, number>();
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout?.setEncoding('latin1');
  child.stdout?.on('data', (chunk: string) => {
    const now = performance.now();
    buffer += chunk;
    const parts = buffer.split(/[\r\n]/);
    buffer = parts.pop() ?? '';
    for (const part of parts) {
      const match = /mesg=(\d+)/.exec(part);
      if (!match) continue;
      const n = Number(match[1]);
      for (let i = count + 1; i <= n; i++) times.set(i, now);
      count = Math.max(count, n);
    }
    for (const wake of [...waiters]) wake();
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  if (child.exitCode !== null)
    throw new Error(
      kind === 'lean' ? 'the lean sink did not start' : 'smtp-sink did not start (apt-get install postfix)',
    );
  return {
    port,
    get count() {
      return count;
    },
    at: (n) => times.get(n),
    waitFor(n, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const at = times.get(n);
          if (at === undefined) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(at);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`sink: ${count} of ${n} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/**
 * The benchmark's MX: a DNS server on loopback that sends the recipient domain to 127.0.0.1, and
 * the sink listening there.
 */
export async function startBenchMx(kind: SinkKind = 'lean'): Promise<{ dns: DnsTestServer; sink: Sink }> {
  const dns = await startDnsServer({ defaultTtl: 3600 });
  dns.set(RECIPIENT_DOMAIN, 'MX', [{ preference: 10, exchange: `mx.${RECIPIENT_DOMAIN}` }]);
  dns.set(`mx.${RECIPIENT_DOMAIN}`, 'A', ['127.0.0.1']);
  return { dns, sink: await startSink(await freePort(), kind) };
}
