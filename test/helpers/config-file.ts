/**
 * Config files for the CLI tests of boot checks: write one, expect `config check` and `serve` to
 * refuse it, or run `serve` on it once.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Workdir } from './cli.js';

/**
 * Writes `lines` as a config file under `w.dir`; a `[storage]` line without a `data_dir` after it
 * gets a data directory in `w.dir`.
 */
export function configFile(w: Workdir, name: string, lines: readonly string[]): string {
  const file = path.join(w.dir, name);
  const data = JSON.stringify(path.join(w.dir, 'data'));
  let text = lines.join('\n');
  if (!/^data_dir =/m.test(text)) text = text.replace('[storage]', `[storage]\ndata_dir = ${data}`);
  writeFileSync(file, `${text}\n`);
  return file;
}

/** Runs `config check` and `serve` on `file`: both must exit 2 naming every key in `expected`, without a stack trace. */
export function expectRefused(
  t: ExecutionContext,
  w: Workdir,
  file: string,
  expected: readonly RegExp[],
): void {
  for (const command of [['config', 'check'], ['serve']]) {
    const result = w.run([...command, '--config', file]);
    const label = `${command.join(' ')}: ${result.stderr}`;
    t.is(result.code, 2, label);
    for (const pattern of expected) t.regex(result.stderr, pattern, label);
    t.notRegex(result.stderr, /at .*\.js:\d+/, 'no stack trace');
  }
}

/** Starts `serve` on `file`, waits for /health, stops it with SIGTERM; the health body and the exit code. */
export async function serveOnce(
  w: Workdir,
  file: string,
): Promise<{ health: any; code: number | null; log: string }> {
  const child = w.spawn(['serve', '--config', file], { POSTHORN_LOG_LEVEL: 'info' });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = listening(child);
  const url = await started.url.catch((error: unknown) => {
    // A serve that did not start in time must not outlive the test (it kept its ports and files).
    child.kill('SIGKILL');
    throw error;
  });
  let health: any;
  for (const deadline = Date.now() + 15_000; ; ) {
    health = await (await fetch(`${url}/health`)).json();
    if (health.components?.smtp_in?.detail !== 'starting' || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  return { health, code: await exited, log: started.output() };
}

/**
 * The URL a spawned `serve` says it listens on, from its output, and all it has written so far.
 * Generous: on a loaded host a cold start of Node and the server has taken over 20 s.
 */
export function listening(child: ChildProcess): { readonly url: Promise<string>; output(): string } {
  let log = '';
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 60 s: ${log}`)), 60_000);
    const onData = (chunk: Buffer) => {
      log += chunk;
      const match = /posthorn listening on (http:\/\/[^"\s]+)/.exec(log);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${log}`));
    });
  });
  return { url, output: () => log };
}
