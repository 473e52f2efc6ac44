/**
 * What becomes of a job whose outcome could not be written (its savepoint, or the whole batch's
 * transaction, rolled back). Left alone, the job would stay leased and come back when the lease
 * ran out, forever: every recipient of its domain who already got a 250 would receive the message
 * again each lease period, and the maximum age would never apply, because only a recorded outcome
 * moves a job on.
 *
 * Instead the failure counts as an attempt and the job is deferred along the retry schedule, like
 * a 4xx; at the maximum age it stops. Why not stop at once: the failure may be passing (a full
 * disk, a busy database), and the recipients that got a 4xx would lose every retry. Why not keep
 * the lease: a failure that repeats would then resend every few minutes instead of once per retry
 * step, and never end. The cost of a lasting failure is bounded: one copy per retry step until the
 * maximum age. Recipients keep the status they had; `last_error` and the log say why.
 *
 * It never writes: the outcome writer applies the plan in the same transaction.
 */
import { dueTime } from '../queue/due-time.js';
import { nextAttempt, type RetryPolicy } from './retry-policy.js';
import type { RecordedJob } from './outcome-recorder.js';

export type UnrecordedPlan =
  | { readonly kind: 'retry'; readonly at: number; readonly lastError: string }
  | { readonly kind: 'stop'; readonly lastError: string };

const REASON_MAX = 200;

/**
 * @example
 * planUnrecorded(policy, ctx, new Error('disk I/O error'), Date.now())
 * // { kind: 'retry', at: <now + the schedule's step>, lastError: 'the outcome could not be recorded ...' }
 */
export function planUnrecorded(
  policy: RetryPolicy,
  ctx: Pick<RecordedJob, 'job' | 'message'>,
  error: unknown,
  now: number,
): UnrecordedPlan {
  const reason = (error instanceof Error ? error.message : String(error)).slice(0, REASON_MAX);
  const since = ctx.message === null ? ctx.job.createdAt : dueTime(ctx.message);
  const next = nextAttempt(policy, {
    attempt: ctx.job.attempts + 1,
    acceptedAt: new Date(since),
    now: new Date(now),
  });
  if (next === 'expired') {
    return {
      kind: 'stop',
      lastError: `the outcome could not be recorded (${reason}); stopped at the maximum age`,
    };
  }
  return {
    kind: 'retry',
    at: next.getTime(),
    lastError: `the outcome could not be recorded (${reason}); retried on the schedule`,
  };
}
