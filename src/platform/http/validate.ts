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
  refuseNul(input, where);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = detailsOf(result.error);
  const first = details[0];
  const sentence = first ? `${first.path}: ${first.message}` : 'the request is invalid';
  const more =
    details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  throw new AppError('invalid_request', `Invalid ${where}: ${sentence}${more}.`, { details });
}

/**
 * A NUL character (U+0000) anywhere in a string of the request is a 400. No text Posthorn keeps
 * or sends may hold one (RFC 5322 forbids it in a message; PostgreSQL's text cannot store it), so
 * it is refused the same way on either engine, before anything is written.
 */
function refuseNul(input: unknown, where: string): void {
  // Each node points at its parent: the path is built only for a hit, so a deeply nested body
  // (200,000 levels) costs one visit per node, not a copy of its path.
  interface Node {
    readonly value: unknown;
    readonly key: PropertyKey | undefined;
    readonly parent: Node | undefined;
  }
  const stack: Node[] = [{ value: input, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const { value } = node;
    if (typeof value === 'string') {
      if (value.includes('\0')) throw nulError(node, where);
    } else if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) stack.push({ value: item, key: i, parent: node });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\0')) throw nulError({ value: key, key, parent: node }, where);
        stack.push({ value: item, key, parent: node });
      }
    }
  }

  function nulError(node: Node, where: string): AppError {
    const path: PropertyKey[] = [];
    for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) path.unshift(n.key);
    const at = formatPath(path) || `(${where})`;
    const message = 'must not contain the NUL character (U+0000)';
    return new AppError('invalid_request', `Invalid ${where}: ${at}: ${message}.`, {
      details: [{ path: at, message }],
    });
  }
}
