/**
 * Errors are typed once. Every refusal a capability makes is an AppError with a code from this
 * closed set; the error middleware renders it as `{"error": "..."}` (plus `details` on a 400).
 */
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  suppressed: 422,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Whether the message may be shown to the client; internal errors never are. */
  readonly expose: boolean;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: readonly ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = errorStatus[code];
    this.expose = code !== 'internal';
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message: string, details?: readonly ErrorDetail[]) =>
  new AppError('invalid_request', message, details ? { details } : {});
export const notFound = (what: string) => new AppError('not_found', `${what} was not found.`);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const conflict = (message: string) => new AppError('conflict', message);
