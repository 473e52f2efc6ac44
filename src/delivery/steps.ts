/**
 * The delivery of one job, as the list of its steps read top to bottom (Postal's outgoing message
 * processor is the model). Each step returns `continue` or a terminal outcome; the first terminal
 * one ends the job and the outcome writer records it.
 *
 *   loadMessage → skipIfCancelled → resolveRoute → applyMtaSts → renderMessage → releaseIfStopping
 *   → transmit
 */
import type { KeyObject } from 'node:crypto';
import type { DnsResolver } from '../platform/dns/resolver.js';
import type { Logger } from '../platform/log.js';
import { composeFields, headerRecipients } from './compose/compose-fields.js';
import type { Lane } from './smtp/lane.js';
import { allowedHosts, type MtaSts } from './routing/mta-sts.js';
import {
  CONTINUE,
  failed,
  type Outcome,
  outcomeOfTransport,
  RELEASED,
  type StepResult,
} from './replies/outcome.js';
import type { Prerender } from './compose/prerender.js';
import type { PrioritizedRenderer } from './compose/render-priority.js';
import { type RenderedMessage, storedMessage } from './compose/renderer.js';
import type { RawMessage } from './compose/worker-queries.js';
import { resolveMx, type Route } from './routing/route.js';
import type { SourcePort } from './routing/source-addresses.js';
import { SANDBOX_HOST, sinkOutcomes } from './smtp/sandbox-sink.js';
import { signingIdentity, UNSIGNED } from './compose/signing-identity.js';
import type { SigningKeysPort } from './compose/signing-keys.js';
import { type TrackingPort, trackingInput } from './compose/tracking-step.js';
import type { ClaimedJob, DeliveryStore, MessageRow, RecipientRow } from './queue/store.js';
import { verpAddress } from './smtp/verp.js';

export interface StepDeps {
  readonly store: Pick<DeliveryStore, 'load'>;
  readonly dns: DnsResolver;
  readonly mtaSts: MtaSts | null;
  /** Renders by traffic class: transactional first (render-priority.ts). */
  readonly renderer: PrioritizedRenderer;
  /** The admission stage's renderings in progress; null where nothing renders at admission. */
  readonly prerender: Pick<Prerender, 'settle'> | null;
  readonly keys: SigningKeysPort;
  /** Open and click tracking's input to composition (compose/tracking-step.ts); absent: nothing is tracked. */
  readonly tracking?: TrackingPort;
  readonly verpKey: KeyObject;
  readonly bounceSubdomain: string;
  readonly testDomain: string;
  readonly log: Logger;
  /** True once the engine is stopping: jobs not yet on the wire go back to the queue. */
  readonly stopping: () => boolean;
  /** Which source address a project's mail leaves from (dedicated IPs); absent, always shared. */
  readonly sources?: Pick<SourcePort, 'dedicatedFor'>;
}

/** What the steps learn about a job as they go. */
export interface JobContext {
  /** Replaced when the job is claimed again while held (a new lease token, held-jobs.ts). */
  job: ClaimedJob;
  /** The lane the job was claimed for; null for the sandbox. */
  readonly lane: Lane | null;
  message: MessageRow | null;
  /** The recipients of this job's domain still to deliver. */
  recipients: readonly RecipientRow[];
  /**
   * Statuses of the message's other recipients when all of them are this job's (one recipient
   * domain): they cannot change under us, so the message status needs no query. Null otherwise.
   */
  settledElsewhere: readonly RecipientRow['status'][] | null;
  /** The To and Cc headers (all recipients of the message, as submitted). */
  headerTo: readonly string[];
  headerCc: readonly string[];
  route: Route | null;
  envelopeFrom: string;
  /** The message as rendered at admission, when the store read it with the message (loadMessage). */
  stored: RawMessage | null;
  /** The rendered message, released when the job's steps are over (deliverJob). */
  rendered: RenderedMessage | null;
  via: { readonly mxHost: string | null; readonly secure: boolean } | null;
  /**
   * Each recipient's outcome as soon as a transaction that answered it has ended (a refusal over the
   * server's limit answers nothing until its follow-up does, recipient-limit.ts): what a stop that
   * cuts off a later transaction of the job records (engine.ts), instead of releasing them too.
   */
  readonly answered: Map<string, Outcome>;
  /** When the engine took the job up (the attempt log's start). */
  readonly startedAt: number;
}

type Step = (ctx: JobContext, deps: StepDeps) => Promise<StepResult>;

const PENDING = new Set(['queued', 'deferred']);
const nothingToDo: StepResult = { kind: 'per_recipient', outcomes: new Map() };

/** Reads the message and this job's recipients still to deliver. */
const loadMessage: Step = async (ctx, deps) => {
  const { message, recipients, rendering } = await deps.store.load(ctx.job.messageId);
  if (message === undefined) return nothingToDo;
  ctx.message = message;
  ctx.stored = rendering ?? null;
  ctx.recipients = recipients.filter((r) => r.domain === ctx.job.domain && PENDING.has(r.status));
  const onlyThisDomain = recipients.every((r) => r.domain === ctx.job.domain);
  ctx.settledElsewhere = onlyThisDomain
    ? recipients.filter((r) => !ctx.recipients.includes(r)).map((r) => r.status)
    : null;
  const header = headerRecipients(recipients);
  ctx.headerTo = header.to;
  ctx.headerCc = header.cc;
  return ctx.recipients.length === 0 ? nothingToDo : CONTINUE;
};

/** A message cancelled after its job was queued is not sent. */
const skipIfCancelled: Step = async (ctx) => (ctx.message?.status === 'cancelled' ? nothingToDo : CONTINUE);

/** MX hosts of the recipient domain, or the sandbox for test sends. */
const resolveRoute: Step = async (ctx, deps) => {
  if (ctx.job.mode === 'test') {
    ctx.route = { kind: 'sandbox' };
    return CONTINUE;
  }
  const route = await resolveMx(deps.dns, ctx.job.domain);
  if (route.kind !== 'mx') return route;
  ctx.route = route;
  return CONTINUE;
};

/** RFC 8461 §5: under an enforced policy, only matching MX hosts, and only over verified TLS. */
const applyMtaSts: Step = async (ctx, deps) => {
  const route = ctx.route;
  if (deps.mtaSts === null || route?.kind !== 'mx') return CONTINUE;
  const policy = await deps.mtaSts.policyFor(route.domain);
  if (policy === null || policy.mode === 'none') return CONTINUE;
  const hosts = allowedHosts(policy, route.hosts);
  if (policy.mode === 'testing') {
    if (hosts.length < route.hosts.length)
      deps.log.info({ domain: route.domain }, 'MTA-STS testing policy: MX mismatch');
    ctx.route = { ...route, mtaSts: 'testing' };
    return CONTINUE;
  }
  // §5.1: no MX host matches: do not deliver; a temporary failure, the policy may be fixed.
  if (hosts.length === 0) {
    return outcomeOfTransport('tls_failed', `no MX host of ${route.domain} matches its MTA-STS policy`);
  }
  ctx.route = { ...route, hosts, tls: 'verify', mtaSts: 'enforce' };
  return CONTINUE;
};

/**
 * The message's bytes from the worker pool: the rendering stored at admission (prerender.ts) when
 * it was signed with the domain's keys of now, else composed and DKIM-signed afresh. Sets the VERP
 * return path. Mail whose sending domain was deleted fails here rather than going out unsigned.
 */
const renderMessage: Step = async (ctx, deps) => {
  const message = ctx.message as MessageRow;
  const only = ctx.recipients.length === 1 ? ctx.recipients[0] : undefined;
  ctx.envelopeFrom = verpAddress(
    deps.verpKey,
    only ? { kind: 'recipient', id: only.id } : { kind: 'job', id: ctx.job.id },
    `${deps.bounceSubdomain}.${message.from_domain}`,
  );
  try {
    const signing = await deps.keys.signingFor(message);
    // Every other sender was a domain of the project when the message was accepted.
    if (signing.kind === 'domain_deleted') {
      return failed(
        `the sending domain ${message.from_domain} was deleted from the project; the message was not sent unsigned`,
      );
    }
    // A rendering the admission stage is making now is waited for rather than made twice.
    await deps.prerender?.settle(message.id);
    const identity = signing.kind === 'sign' ? signingIdentity(signing.dkim) : UNSIGNED;
    // Live mail may have been rendered ahead: a transactional send at admission, a broadcast's
    // message before its send time (broadcasts/preparation.ts). A test send never is.
    const reuse = ctx.job.mode === 'live';
    const stored = ctx.stored;
    ctx.stored = null;
    if (reuse && stored?.signing === identity) {
      ctx.rendered = storedMessage(stored);
      return CONTINUE;
    }
    const fields = composeFields(message, { to: ctx.headerTo, cc: ctx.headerCc });
    ctx.rendered = await deps.renderer.render(
      {
        messageId: message.id,
        fields,
        tracking: await trackingInput(deps.tracking, message, fields.headers),
        dkim: signing.kind === 'sign' ? signing.dkim : null,
        signTime: Date.now(),
        signing: identity,
        reuse,
        marketing: ctx.job.traffic === 'marketing',
      },
      ctx.job.traffic,
    );
  } catch (error) {
    deps.log.error({ err: error, message_id: message.id }, 'message could not be built');
    return failed(
      `the message could not be built: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return CONTINUE;
};

/** A job not yet on the wire when the engine stops goes back to the queue, with no event. */
const releaseIfStopping: Step = async (_ctx, deps) => (deps.stopping() ? RELEASED : CONTINUE);

/**
 * RFC 5321 §4.5.3.1.8: a server must take 100 recipients in a transaction and may refuse more; a
 * client with more SHOULD send them in chunks of 100.
 */
export const RECIPIENTS_PER_TRANSACTION = 100;

/**
 * One SMTP transaction with every recipient of the job (or the sandbox sink's answers); a job with
 * more than RECIPIENTS_PER_TRANSACTION recipients takes one transaction per chunk of them, at once.
 * Once the engine is stopping no further chunk (nor follow-up after a refusal over the server's
 * limit, lane.ts) starts: the job is released, and the engine records the recipients the
 * transactions before answered (`ctx.answered`).
 */
const transmit: Step = async (ctx, deps) => {
  const to = ctx.recipients.map((r) => r.email);
  if (ctx.route?.kind !== 'mx' || ctx.lane === null) {
    ctx.via = { mxHost: SANDBOX_HOST, secure: true };
    return sinkOutcomes(to, deps.testDomain, ctx.job.attempts);
  }
  const { bytes, size } = ctx.rendered as RenderedMessage;
  const outcomes = new Map<string, Outcome>();
  for (let start = 0; start < to.length; start += RECIPIENTS_PER_TRANSACTION) {
    if (start > 0 && deps.stopping()) return RELEASED;
    const chunk =
      to.length <= RECIPIENTS_PER_TRANSACTION ? to : to.slice(start, start + RECIPIENTS_PER_TRANSACTION);
    const envelope = { from: ctx.envelopeFrom, to: chunk, size };
    const source = deps.sources?.dedicatedFor(ctx.job.projectId, ctx.lane.name, chunk.length);
    const sent = await ctx.lane.transmit(ctx.route, envelope, bytes, ctx.answered, source);
    // The host of the first chunk that reached one: outcomes from a server are never released.
    if (ctx.via === null || ctx.via.mxHost === null) ctx.via = { mxHost: sent.mxHost, secure: sent.secure };
    if (chunk.length === to.length || sent.result.kind === 'released') return sent.result;
    for (const rcpt of chunk) {
      const outcome = sent.result.kind === 'per_recipient' ? sent.result.outcomes.get(rcpt) : sent.result;
      if (outcome === undefined) continue;
      outcomes.set(rcpt, outcome);
      // Only a server's answers are kept at a stop; a host not reached says nothing yet.
      if (sent.mxHost !== null) ctx.answered.set(rcpt, outcome);
    }
  }
  return { kind: 'per_recipient', outcomes };
};

export const STEPS: readonly Step[] = [
  loadMessage,
  skipIfCancelled,
  resolveRoute,
  applyMtaSts,
  renderMessage,
  releaseIfStopping,
  transmit,
];

/** Runs the steps of one job; an unexpected error defers it (retried later, nothing lost). */
export async function deliverJob(
  ctx: JobContext,
  deps: StepDeps,
): Promise<Exclude<StepResult, typeof CONTINUE>> {
  try {
    for (const step of STEPS) {
      const result = await step(ctx, deps);
      if (result !== CONTINUE) return result;
    }
    return failed('no step decided the outcome');
  } catch (error) {
    deps.log.error({ err: error, job_id: ctx.job.id }, 'delivery step failed unexpectedly');
    return outcomeOfTransport('unknown', error instanceof Error ? error.message : String(error));
  } finally {
    // The SMTP transaction is over (or never began): the message's memory goes back to the pool,
    // and the outcome waiting in the writer's batch does not keep it alive.
    ctx.rendered?.release();
    ctx.rendered = null;
  }
}

/** A new context for a claimed job. */
export function newContext(job: ClaimedJob, lane: Lane | null): JobContext {
  return {
    job,
    lane,
    message: null,
    recipients: [],
    settledElsewhere: null,
    headerTo: [],
    headerCc: [],
    route: null,
    envelopeFrom: '',
    stored: null,
    rendered: null,
    via: null,
    answered: new Map(),
    startedAt: Date.now(),
  };
}
