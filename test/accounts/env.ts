/**
 * The accounts tests' world: a real Posthorn with its delivery engine on, a real DNS server on
 * loopback, and a real SMTP server on loopback as the MX of example.test, where the bootstrapped
 * owner (owner@example.test) and the test users receive their mail. TOTP codes come from Debian's
 * python3-pyotp, an implementation independent of the one under test.
 */
import { spawnSync } from 'node:child_process';
import type { ExecutionContext } from 'ava';
import { simpleParser } from 'mailparser';
import { mx, startDeliveryEnv, type DeliveryEnv } from '../delivery/env.js';
import type { ConfigOverrides, Response } from '../helpers/server.js';

export const SYSTEM_FROM = 'Posthorn <no-reply@ops.posthorn-mail.test>';

export async function startAccountsEnv(
  t: ExecutionContext,
  config: ConfigOverrides = {},
): Promise<DeliveryEnv> {
  const env = await startDeliveryEnv(t, {
    domain: false,
    config: { ...config, system_mail: { from: SYSTEM_FROM, ...config.system_mail } },
  });
  mx(env.dns, 'example.test', [{ host: 'mx.example.test', ip: '127.0.0.1' }]);
  return env;
}

export interface ReceivedMail {
  readonly to: readonly string[];
  readonly from: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** The `n`th message (1-based) the MX received, decoded. */
export async function receivedMail(env: DeliveryEnv, n: number): Promise<ReceivedMail> {
  const messages = await env.peer.waitFor(n, 30_000);
  const message = messages[n - 1];
  if (!message) throw new Error(`no message ${n}`);
  const parsed = await simpleParser(message.data);
  return {
    to: message.rcptTo,
    from: parsed.from?.text ?? '',
    subject: parsed.subject ?? '',
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : '',
  };
}

/** The six-digit code in a login-code mail's text. */
export function codeIn(mail: ReceivedMail): string {
  const match = /\b(\d{6})\b/.exec(mail.text);
  if (!match) throw new Error(`no code in: ${mail.text}`);
  return match[1] as string;
}

export async function post<T = any>(
  env: DeliveryEnv,
  path: string,
  body: unknown,
  token: string | null = null,
): Promise<Response<T>> {
  return env.ph.request<T>('POST', path, { body, key: token });
}

/** Requests a code for `email`, reads it from mail number `n` at the MX, and signs in with it. */
export async function signInByCode(
  env: DeliveryEnv,
  email: string,
  n: number,
  extra: Record<string, string> = {},
) {
  const requested = await post(env, '/v1/auth/request-code', { email });
  if (requested.status !== 202) throw new Error(`request-code: ${requested.status} ${requested.text}`);
  const code = codeIn(await receivedMail(env, n));
  const verified = await post(env, '/v1/auth/verify-code', { email, code, ...extra });
  if (verified.status !== 200) throw new Error(`verify-code: ${verified.status} ${verified.text}`);
  return verified.body as { token: string; session: Record<string, string> };
}

const PYTHON = '/usr/bin/python3';

/** The TOTP code for `secret`, `steps` 30-second steps from now, computed by python3-pyotp. */
export function pyotpCode(secret: string, steps = 0): string {
  const run = spawnSync(
    PYTHON,
    [
      '-c',
      'import pyotp, sys, time; print(pyotp.TOTP(sys.argv[1]).at(time.time() + 30 * int(sys.argv[2])))',
      secret,
      String(steps),
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0)
    throw new Error(`python3-pyotp is needed (apt-get install -y python3-pyotp): ${run.stderr || run.error}`);
  return run.stdout.trim();
}

/** The `n` first messages the MX received, decoded, in the order they arrived. */
export async function receivedMails(env: DeliveryEnv, n: number): Promise<ReceivedMail[]> {
  const mails: ReceivedMail[] = [];
  for (let i = 1; i <= n; i++) mails.push(await receivedMail(env, i));
  return mails;
}

/**
 * The code of the newest sign-in code mail among the `n` first messages. Notice mails sent just
 * before may arrive after it: the MX sees them in delivery order, not queue order.
 */
export async function latestCodeIn(env: DeliveryEnv, n: number, to?: string): Promise<string> {
  const codes = (await receivedMails(env, n)).filter(
    (m) => /sign-in code/.test(m.subject) && (to === undefined || m.to.includes(to)),
  );
  const last = codes.at(-1);
  if (!last) throw new Error(`no sign-in code among the first ${n} messages`);
  return codeIn(last);
}
