/**
 * Reads request bodies: JSON (and form bodies for the routes that ask), with the configured size
 * limit enforced while reading, not after. 413 past the limit, 400 for JSON that does not parse,
 * 415 for anything else.
 */
import type { Context } from 'koa';
import { AppError } from './errors.js';

export interface ParsedBody {
  readonly present: boolean;
  readonly value: unknown;
}

async function readLimited(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `Request body is larger than the limit of ${limit} bytes.`);
}

export async function readBody(ctx: Context, limit: number, allowForm: boolean): Promise<ParsedBody> {
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return { present: false, value: undefined };
  const raw = await readLimited(ctx, limit);
  if (raw.length === 0) return { present: false, value: undefined };
  if (ctx.is('application/json', '+json') || (!ctx.get('content-type') && !allowForm)) {
    try {
      return { present: true, value: JSON.parse(raw.toString('utf8')) as unknown };
    } catch (error) {
      throw new AppError('invalid_request', `Request body is not valid JSON: ${(error as Error).message}.`);
    }
  }
  if (allowForm && ctx.is('application/x-www-form-urlencoded')) {
    return { present: true, value: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) };
  }
  throw new AppError(
    'unsupported_media_type',
    `Content-Type must be application/json${allowForm ? ' or application/x-www-form-urlencoded' : ''}.`,
  );
}
