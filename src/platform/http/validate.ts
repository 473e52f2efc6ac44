/** Turns schema failures into the 400 body: one sentence, plus a detail per failing path. */
import type { z } from 'zod';
import { AppError, type ErrorDetail } from './errors.js';

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function detailsOf(error: z.ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        details.push({ path: formatPath([...issue.path, key]), message: 'is not a supported field' });
      }
    } else {
      details.push({ path: formatPath(issue.path) || '(body)', message: issue.message });
    }
  }
  return details;
}

/** Parses `input` or throws a 400 naming where: "body", "query" or "path". */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = detailsOf(result.error);
  const first = details[0];
  const sentence = first ? `${first.path}: ${first.message}` : 'the request is invalid';
  const more =
    details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  throw new AppError('invalid_request', `Invalid ${where}: ${sentence}${more}.`, { details });
}
