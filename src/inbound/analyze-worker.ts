/**
 * Parsing (mailparser) and authentication (mailauth: SPF, DKIM, DMARC, ARC) of one received
 * message, run by piscina on a worker thread so that the event loop keeps answering SMTP clients
 * and committing while mail is read. The message comes in by transfer; the parsed fields,
 * attachments included, go back by structured clone. Each thread keeps its own DNS answer cache.
 */
import type { Config } from '../platform/config/schema.js';
import { type Authenticator, type AuthResults, createAuthenticator, type SmtpFacts } from './authenticate.js';
import { type ParsedInbound, parseInbound } from './received.js';

export interface AnalyzeTask {
  readonly raw: ArrayBuffer;
  readonly facts: SmtpFacts;
  readonly config: Pick<Config, 'dns' | 'smtp_in'>;
}

export interface AnalyzeResult {
  readonly mail: ParsedInbound;
  readonly auth: AuthResults;
}

let authenticator: Authenticator | undefined;

export default async function analyze(task: AnalyzeTask): Promise<AnalyzeResult> {
  authenticator ??= createAuthenticator(task.config);
  const raw = Buffer.from(task.raw);
  const [mail, auth] = await Promise.all([parseInbound(raw), authenticator(raw, task.facts)]);
  return { mail, auth };
}
