/**
 * `POST /v1/emails/batch`: each item is validated, keyed and checked on its own through the same
 * admission as a single send (admission.ts); a refused item becomes its own result, and the
 * accepted ones commit together in one transaction. Only an error that is not the caller's (a 500)
 * fails the whole batch, and then it gives back every slot it reserved.
 *
 * A suspended project sends nothing, but a retry still replays what was accepted before the
 * suspension, as a single send's does: each item whose key replays answers as before, each other
 * item is a 403; a batch in which nothing replays is one 403, as it always was.
 */
import { setImmediate } from 'node:timers/promises';
import { AppError, badRequest, type ErrorDetail } from '../platform/http/errors.js';
import type { KeyPrincipal } from '../platform/http/principal.js';
import { formatPath } from '../platform/http/validate.js';
import type { Admission, Admitted } from './admission.js';
import { createBatchBudget } from './batch-budget.js';
import { checkNotSuspended, checkSendAt } from './checks.js';
import { type BatchItem, batchItem } from './schemas.js';

export type BatchResult =
  | { readonly index: number; readonly id: string; readonly status: string }
  | {
      readonly index: number;
      readonly status_code: number;
      readonly error: string;
      readonly details?: readonly ErrorDetail[];
    };

/** Seconds a rate-limit refusal asks the caller to wait; Infinity for none. */
const retryAfter = (error: AppError | undefined) =>
  Number(error?.headers['Retry-After'] ?? Number.POSITIVE_INFINITY);

/** Spec §4.1: two items of one batch must not share a key, or the second would replay the first. */
function duplicateKey(key: string, firstIndex: number): AppError {
  const message = `is already the key of item ${firstIndex} in this batch; give each item its own key`;
  return badRequest(`Invalid email: idempotency key ${JSON.stringify(key)} ${message}.`, [
    { path: 'idempotency_key', message },
  ]);
}

export function createBatchSend(admission: Admission, maxBodyBytes: number) {
  /** Each item validated and checked on its own; the accepted ones commit together. */
  return async function sendBatch(
    principal: KeyPrincipal,
    items: readonly unknown[],
    baseKey: string | null,
  ): Promise<{ results: BatchResult[]; headers: Record<string, string> }> {
    const results: BatchResult[] = [];
    let replayed = 0;
    const admitted: Array<Admitted & { index: number }> = [];
    const keyIndex = new Map<string, number>(); // effective key → the first item that has it
    // Of the items a quota or rate limit refused (429), the one whose wait ends first: a 207 has no
    // Retry-After of its own, and without this a batch refused whole said nothing of when to retry.
    let limited: AppError | undefined;
    const budget = createBatchBudget(maxBodyBytes);
    for (const [index, item] of items.entries()) {
      // Admitting an item awaits nothing but microtasks (its reads are synchronous): without a
      // turn of the event loop between items, 32 concurrent 100-item batches held it for
      // ~300 ms at a time, and every other request, the delivery engine and the SMTP listener
      // waited (BENCHMARKS.md, "End to end").
      if (index > 0) await setImmediate();
      try {
        const request = parseItem(item);
        const key = request.idempotency_key ?? (baseKey === null ? null : `${baseKey}-${index}`);
        if (key !== null) {
          const first = keyIndex.get(key);
          if (first !== undefined) throw duplicateKey(key, first);
          keyIndex.set(key, index);
        }
        const replay = await admission.replayOf(principal, key);
        if (replay) {
          results.push({ index, id: replay.id, status: replay.status });
          replayed++;
          continue;
        }
        checkNotSuspended(principal);
        checkSendAt(request.send_at, 'email');
        admitted.push({ index, ...(await admission.admit(principal, request, key, budget)) });
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) {
          for (const entry of admitted) entry.reservation.release();
          throw error;
        }
        if (error.status === 429 && retryAfter(error) < retryAfter(limited)) limited = error;
        results.push({
          index,
          status_code: error.status,
          error: error.message,
          ...(error.details ? { details: error.details } : {}),
        });
      }
    }
    if (principal.projectStatus === 'suspended' && replayed === 0) {
      checkNotSuspended(principal); // throws: with nothing to replay, the batch is one 403
    }
    const committed = admitted.length ? await admission.commit(admitted) : [];
    committed.forEach((result, i) => {
      const index = admitted[i]?.index ?? -1;
      results.push({ index, id: result.ref.id, status: result.ref.status });
    });
    results.sort((a, b) => a.index - b.index);
    const headers = { ...admitted.at(-1)?.reservation.headers, ...limited?.headers };
    return { results, headers };
  };
}

function parseItem(item: unknown): BatchItem {
  const parsed = batchItem.safeParse(item);
  if (parsed.success) return parsed.data;
  const details: ErrorDetail[] = parsed.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          path: formatPath([...issue.path, key]),
          message: 'is not a supported field',
        }))
      : [{ path: formatPath(issue.path) || '(item)', message: issue.message }],
  );
  const first = details[0];
  throw badRequest(
    `Invalid email: ${first ? `${first.path}: ${first.message}` : 'the item is invalid'}.`,
    details,
  );
}
