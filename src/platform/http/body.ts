/**
 * Reads request bodies: JSON (and form bodies for the routes that ask), with the configured size
 * limit enforced while reading, not after. 413 past the limit, 400 for JSON that does not parse,
 * 415 for anything else. A route that takes no body refuses one with a 400, whatever its method
 * and content type: fields sent there would be silently ignored, and the spec makes an
 * unsupported field a 400. An empty JSON object carries no field and is accepted.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { droppedBytes } from './dropped-bytes.js';
import { AppError } from './errors.js';

export interface ParsedBody {
  readonly present: boolean;
  readonly value: unknown;
}

async function readLimited(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || Number.NaN);
  if (declared > limit) {
    await drain(ctx.req);
    throw tooLarge(limit);
  }
  return collect(ctx.req, limit);
}

/**
 * Reads the body up to `limit` bytes. Past it, the rest is drained (read and dropped), never
 * destroyed: destroying the request takes the socket with it, and then neither the 413 nor the
 * access-log line could be written.
 */
function collect(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      done();
      // What was read is garbage from here on: let it go now, not when the drain ends.
      chunks.length = 0;
      droppedBytes(size);
      void drain(req).then(() => reject(tooLarge(limit)));
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const cutOff = (cause?: unknown) => {
      done();
      reject(new AppError('invalid_request', 'The request body ended before it was complete.', { cause }));
    };
    const onError = (error: Error) => cutOff(error);
    const onClose = () => {
      if (!req.complete) cutOff();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

const LINGER_MS = 5000;

/**
 * Reads and drops the rest of an oversized body (for up to LINGER_MS) before the 413 is sent.
 * Answering first makes Node close the connection while the client is still sending, and that
 * reset can discard the 413 before the client reads it (RFC 9112 §9.6 calls for a lingering
 * close); a body still coming after LINGER_MS is cut off with the answer.
 */
function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.complete || req.destroyed) {
      resolve();
      return;
    }
    const drop = (chunk: Buffer) => droppedBytes(chunk.length);
    const finish = () => {
      clearTimeout(timer);
      req.off('data', drop);
      req.off('end', finish);
      req.off('close', finish);
      resolve();
    };
    const timer = setTimeout(finish, LINGER_MS);
    req.on('data', drop);
    req.on('end', finish);
    req.on('close', finish);
    req.resume();
  });
}

/** 413: the rest of an oversized body is read and dropped (`drain`), never stored. */
function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `Request body is larger than the limit of ${limit} bytes.`);
}

export async function readBody(ctx: Context, limit: number, allowForm: boolean): Promise<ParsedBody> {
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return { present: false, value: undefined };
  const raw = await readLimited(ctx, limit);
  if (raw.length === 0) return { present: false, value: undefined };
  if (ctx.is('application/json', '+json') || (!ctx.get('content-type') && !allowForm)) {
    const text = utf8(raw);
    try {
      return { present: true, value: JSON.parse(text) as unknown };
    } catch (error) {
      throw new AppError('invalid_request', `Request body is not valid JSON: ${(error as Error).message}.`);
    }
  }
  if (allowForm && ctx.is('application/x-www-form-urlencoded')) {
    return { present: true, value: Object.fromEntries(new URLSearchParams(utf8(raw))) };
  }
  throw new AppError(
    'unsupported_media_type',
    `Content-Type must be application/json${allowForm ? ' or application/x-www-form-urlencoded' : ''}.`,
  );
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are a 400, never silently turned into U+FFFD
 * and stored or sent on in a message.
 */
function utf8(raw: Buffer): string {
  try {
    return strictUtf8.decode(raw);
  } catch {
    throw new AppError('invalid_request', 'Request body is not valid UTF-8.');
  }
}

/** For routes without a body schema: nothing, or `{}`, is fine; anything else is a 400. */
export async function refuseBody(ctx: Context, limit: number): Promise<void> {
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
  if (!hasBody) return;
  const raw = await readLimited(ctx, limit);
  if (raw.length === 0) return;
  const fields = jsonObjectKeys(ctx, raw);
  if (fields?.length === 0) return;
  if (fields) {
    throw new AppError(
      'invalid_request',
      `This endpoint takes no request body: ${fields.map((f) => `\`${f}\``).join(', ')} ${fields.length > 1 ? 'are not supported fields' : 'is not a supported field'}.`,
      { details: fields.map((path) => ({ path, message: 'is not a supported field' })) },
    );
  }
  throw new AppError('invalid_request', 'This endpoint takes no request body; send none.');
}

/** The keys of a JSON object body, or undefined when the body is not one. */
function jsonObjectKeys(ctx: Context, raw: Buffer): string[] | undefined {
  if (ctx.get('content-type') && !ctx.is('application/json', '+json')) return undefined;
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.keys(value)
      : undefined;
  } catch {
    return undefined;
  }
}
