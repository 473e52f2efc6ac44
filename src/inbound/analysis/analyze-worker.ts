/**
 * Reading of one received message, run by piscina on a worker thread so that the event loop keeps
 * answering SMTP clients and committing while mail is read: authentication (mailauth: SPF, DKIM,
 * DMARC, ARC) always, parsing (mailparser) for routed mail, and the DSN or ARF report for mail to
 * a bounce or complaint address. The message comes in by transfer; the results, attachments
 * included, go back by structured clone. Each thread keeps its own DNS answer cache.
 */
import type { Config } from '../../platform/config/schema.js';
import { type Authenticator, type AuthResults, createAuthenticator, type SmtpFacts } from './authenticate.js';
import type { ParsedInbound } from './parse.js';
import { readInbound } from './received-fallback.js';
import { type Reports, readReports } from './reports.js';

/** What to read besides authentication. */
export interface AnalyzeWants {
  /** Parse the message for storing (routed mail). */
  readonly mail: boolean;
  /** Read its delivery or complaint report (mail to a bounce or complaint address). */
  readonly reports: boolean;
}

export interface AnalyzeTask {
  readonly raw: ArrayBuffer;
  readonly facts: SmtpFacts;
  readonly wants: AnalyzeWants;
  readonly config: Pick<Config, 'dns' | 'smtp_in'>;
}

export interface AnalyzeResult {
  readonly mail: ParsedInbound | null;
  readonly auth: AuthResults;
  readonly reports: Reports | null;
}

let authenticator: Authenticator | undefined;

export default async function analyze(task: AnalyzeTask): Promise<AnalyzeResult> {
  authenticator ??= createAuthenticator(task.config);
  return analyzeWith(authenticator, Buffer.from(task.raw), task.facts, task.wants);
}

/** The same work on any thread (the analyzer runs it on the main thread with 0 workers). */
export async function analyzeWith(
  authenticate: Authenticator,
  raw: Buffer,
  facts: SmtpFacts,
  wants: AnalyzeWants,
): Promise<AnalyzeResult> {
  const [mail, auth] = await Promise.all([wants.mail ? readInbound(raw) : null, authenticate(raw, facts)]);
  return { mail, auth, reports: wants.reports ? readReports(raw) : null };
}
