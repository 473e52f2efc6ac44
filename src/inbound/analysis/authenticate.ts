/**
 * Authenticates a received message with mailauth: SPF (RFC 7208) for the connecting address and
 * MAIL FROM, DKIM (RFC 6376) signatures, DMARC (RFC 7489) alignment and policy, and ARC (RFC 8617).
 * The results are stored with the message and shown by the API, together with the
 * Authentication-Results value (RFC 8601) Posthorn would add.
 *
 * DNS goes through the configured resolvers (`dns.servers`), so tests publish keys and policies on
 * a loopback DNS server. It never rejects a message: a failure is a result to report, and an error
 * while checking is reported as `temperror`.
 */
import { Resolver } from 'node:dns/promises';
import { authenticate } from 'mailauth';
import type { Config } from '../../platform/config/schema.js';

export interface AuthResults {
  readonly spf: { readonly result: string; readonly domain: string | null; readonly info: string } | null;
  readonly dkim: ReadonlyArray<{
    readonly result: string;
    readonly domain: string | null;
    readonly selector: string | null;
    readonly aligned: boolean;
    readonly info: string;
  }>;
  readonly dmarc: {
    readonly result: string;
    readonly domain: string | null;
    readonly policy: string | null;
    readonly info: string;
  } | null;
  readonly arc: { readonly result: string; readonly info: string } | null;
  /** The Authentication-Results field value (RFC 8601), authserv-id first. */
  readonly authentication_results: string;
  /** Set when the checks themselves could not run. */
  readonly error?: string;
}

export interface SmtpFacts {
  readonly ip: string;
  readonly helo: string;
  readonly mailFrom: string;
}

export interface Authenticator {
  (raw: Buffer, facts: SmtpFacts): Promise<AuthResults>;
  /**
   * Ends every lookup in flight (each fails at once, so its check ends) and lets no timer of a
   * check keep the process alive: analysis a stop abandoned on the main thread must not hold the
   * process until its DNS times out.
   */
  close(): void;
}

const AUTH_TIMEOUT_MS = 30_000;
/** Answers are kept this long: c-ares reports no TTL for TXT, and senders repeat. */
const ANSWER_TTL_MS = 60_000;
/** "No such name / no such record" is kept for less (RFC 2308). */
const NEGATIVE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;
const PERMANENT = new Set(['ENOTFOUND', 'ENODATA']);

type Resolve = (name: string, type: string) => Promise<string[][] | string[]>;

/**
 * mailauth asks for the same SPF, DMARC and DKIM records for every message from a sender; concurrent
 * and repeated lookups share one answer. Temporary failures are never kept.
 */
function cachedResolver(resolver: Resolver): Resolve {
  const cache = new Map<string, { expires: number; answer: Promise<string[][] | string[]> }>();
  return (name, type) => {
    const key = `${type} ${name.toLowerCase()}`;
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.expires > now) return hit.answer;
    const answer = resolver.resolve(name, type) as Promise<string[][] | string[]>;
    const entry = { expires: now + ANSWER_TTL_MS, answer };
    cache.delete(key);
    cache.set(key, entry);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value as string);
    answer.catch((error: { code?: string }) => {
      if (PERMANENT.has(error?.code ?? '')) entry.expires = Date.now() + NEGATIVE_TTL_MS;
      else if (cache.get(key) === entry) cache.delete(key);
    });
    return answer;
  };
}

export function createAuthenticator(config: Pick<Config, 'dns' | 'smtp_in'>): Authenticator {
  const resolver = new Resolver({ timeout: config.dns.timeout_ms, tries: 2 });
  if (config.dns.servers.length > 0) resolver.setServers([...config.dns.servers]);
  let closed = false;
  const cached = cachedResolver(resolver);
  // Once closed, a check's next lookups fail at once too: mailauth goes on to the next record when
  // one lookup fails, and each would wait out the timeout again.
  const resolve: Resolve = (name, type) =>
    closed
      ? Promise.reject(Object.assign(new Error('the authenticator is closed'), { code: 'ECANCELLED' }))
      : cached(name, type);
  const hostname = config.smtp_in.hostname;

  const check = async (raw: Buffer, facts: SmtpFacts): Promise<AuthResults> => {
    if (closed) throw new Error('the authenticator is closed');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`checks did not finish within ${AUTH_TIMEOUT_MS} ms`)),
        AUTH_TIMEOUT_MS,
      );
      // A bound on a check, never a reason for the process to stay up.
      timer.unref();
    });
    try {
      const result = await Promise.race([
        authenticate(raw, {
          ip: facts.ip,
          helo: facts.helo || facts.ip,
          sender: facts.mailFrom,
          mta: hostname,
          resolver: resolve,
          disableBimi: true,
        }),
        deadline,
      ]);
      const header = result.headers
        .split(/\r?\n(?=\S)/)
        .find((line) => line.toLowerCase().startsWith('authentication-results:'));
      return {
        spf: result.spf
          ? { result: result.spf.status.result, domain: result.spf.domain ?? null, info: result.spf.info }
          : null,
        dkim: result.dkim.results.map((row) => ({
          result: row.status.result,
          domain: row.signingDomain ?? null,
          selector: row.selector ?? null,
          aligned: Boolean(row.status.aligned),
          info: row.info ?? '',
        })),
        dmarc: result.dmarc
          ? {
              result: result.dmarc.status.result,
              domain: result.dmarc.domain ?? null,
              policy: result.dmarc.policy ?? result.dmarc.p ?? null,
              info: result.dmarc.info ?? '',
            }
          : null,
        arc: result.arc ? { result: result.arc.status.result, info: result.arc.info ?? '' } : null,
        authentication_results: (header ?? '')
          .replace(/^authentication-results:\s*/i, '')
          .replace(/\r?\n\s*/g, ' ')
          .trim(),
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        spf: null,
        dkim: [],
        dmarc: null,
        arc: null,
        authentication_results: `${hostname}; auth=temperror`,
        error: message,
      };
    } finally {
      clearTimeout(timer);
    }
  };
  return Object.assign(check, {
    close() {
      closed = true;
      resolver.cancel();
    },
  });
}
