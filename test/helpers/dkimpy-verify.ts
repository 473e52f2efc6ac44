/**
 * An independent DKIM verifier for tests: Debian's python3-dkim (dkimpy), asking a loopback DNS
 * server for the key records. Every DKIM-Signature of the message is checked on its own. When
 * the peer is missing it throws with the command that installs it, so a test fails, never skips.
 */
import { spawn, spawnSync } from 'node:child_process';

const PYTHON = '/usr/bin/python3';
const INSTALL_HINT = 'apt-get install -y python3-dkim python3-dnspython python3-nacl';

const SCRIPT = String.raw`
import sys, json, logging, io
import dkim, dns.resolver

resolver = dns.resolver.Resolver(configure=False)
resolver.nameservers = [sys.argv[1]]
resolver.port = int(sys.argv[2])
resolver.timeout = resolver.lifetime = 3

def dnsfunc(name, timeout=5):
    if isinstance(name, bytes):
        name = name.decode('ascii')
    try:
        answer = resolver.resolve(name, 'TXT', raise_on_no_answer=False)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoNameservers):
        return None
    for record in answer.rrset or []:
        return b''.join(record.strings)
    return None

message = sys.stdin.buffer.read()
log = io.StringIO()
logger = logging.getLogger('dkimpy')
logger.addHandler(logging.StreamHandler(log))
logger.setLevel(logging.DEBUG)

headers, _ = dkim.rfc822_parse(message)
count = sum(1 for name, _ in headers if name.lower() == b'dkim-signature')
results = []
for idx in range(count):
    try:
        results.append(bool(dkim.DKIM(message, logger=logger, minkey=1024).verify(idx=idx, dnsfunc=dnsfunc)))
    except Exception as error:
        log.write('signature %d: %r\n' % (idx, error))
        results.append(False)
# The module-level entry point as well (it checks the first signature).
first = bool(dkim.verify(message, logger=logger, dnsfunc=dnsfunc)) if count else False
print(json.dumps({'signatures': results, 'first': first, 'log': log.getvalue()}))
`;

export interface DkimpyVerdict {
  /** Every signature verified (and there was at least one). */
  readonly ok: boolean;
  /** One verdict per DKIM-Signature, top first. */
  readonly signatures: readonly boolean[];
  /** dkimpy's log and stderr, for assertion messages. */
  readonly output: string;
}

/** Throws, saying how to install it, when python3-dkim or dnspython is missing. */
export function assertDkimpyAvailable(): void {
  const probe = spawnSync(PYTHON, ['-c', 'import dkim, dns.resolver, nacl'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `The independent DKIM verifier is missing (${PYTHON} cannot import dkim, dns.resolver and nacl). ` +
        `Install it with: ${INSTALL_HINT}\n${probe.error?.message ?? probe.stderr}`,
    );
  }
}

/** Verifies `message` with dkimpy, resolving keys at `dns` (`{host, port}` of a loopback server). */
export async function dkimpyVerify(
  message: Buffer,
  dns: { readonly host: string; readonly port: number },
): Promise<DkimpyVerdict> {
  assertDkimpyAvailable();
  const child = spawn(PYTHON, ['-c', SCRIPT, dns.host, String(dns.port)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(message);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const errText = Buffer.concat(stderr).toString('utf8');
  if (code !== 0) throw new Error(`dkimpy exited with ${code}: ${errText}`);
  const parsed = JSON.parse(Buffer.concat(stdout).toString('utf8')) as {
    signatures: boolean[];
    first: boolean;
    log: string;
  };
  const ok = parsed.signatures.length > 0 && parsed.signatures.every(Boolean) && parsed.first;
  return { ok, signatures: parsed.signatures, output: `${parsed.log}${errText}` };
}
