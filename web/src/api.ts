/**
 * Calls Posthorn's API from the dashboard. The session travels in the HttpOnly cookie set at
 * sign-in; state-changing requests repeat the CSRF cookie's value in a header; the selected
 * project goes in `X-Posthorn-Project-ID`. Errors carry the API's own words.
 */
export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
  }
}

let projectId: string | undefined;
let onSignedOut: ((message: string) => void) | undefined;

export function selectProject(id: string | undefined): void {
  projectId = id;
}

/** Called with the API's words when a request is refused for want of a live session (a 401). */
export function whenSignedOut(handler: (message: string) => void): void {
  onSignedOut = handler;
}

function csrfToken(): string {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === 'ph_csrf' || name === '__Host-ph_csrf') return rest.join('=');
  }
  return 'sign-in';
}

/** A body sent as it is (a file), with its own content type, instead of JSON. */
export class RawBody {
  constructor(
    readonly blob: Blob,
    readonly contentType: string,
  ) {}
}

function send(
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...extra };
  if (method !== 'GET') headers['X-Posthorn-CSRF'] = csrfToken();
  if (projectId) headers['X-Posthorn-Project-ID'] = projectId;
  if (body instanceof RawBody) headers['Content-Type'] = body.contentType;
  else if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body instanceof RawBody ? body.blob : body === undefined ? undefined : JSON.stringify(body),
  });
}

/** GETs started before the app renders (main.tsx), each used once by the first `get` of its path. */
const early = new Map<string, { project: string | undefined; response: Promise<Response> }>();

export function fetchEarly(path: string): void {
  const response = send('GET', path);
  response.catch(() => undefined);
  early.set(path, { project: projectId, response });
}

export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> {
  let res: Response;
  try {
    const started = method === 'GET' ? early.get(path) : undefined;
    early.delete(path);
    res = await (started && started.project === projectId
      ? started.response
      : send(method, path, body, headers));
  } catch {
    throw new ApiError(0, 'Posthorn could not be reached. Check your connection and try again.');
  }
  const text = await res.text();
  const parsed =
    text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const error = new ApiError(
      res.status,
      typeof parsed?.error === 'string' ? parsed.error : `The request failed (HTTP ${res.status}).`,
      Array.isArray(parsed?.details) ? parsed.details : [],
    );
    if (res.status === 401 && !path.startsWith('/v1/dashboard/web/sign-in')) onSignedOut?.(error.message);
    throw error;
  }
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body);
export const put = <T>(path: string, body?: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body?: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string, body?: unknown) => api<T>('DELETE', path, body);

/** `?a=1&b=2` from the defined values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * Downloads a file the API serves (with the session and the selected project, which a plain link
 * would not carry) and hands it to the browser as a download named `filename`.
 */
export async function download(path: string, filename: string): Promise<void> {
  let res: Response;
  try {
    res = await send('GET', path);
  } catch {
    throw new ApiError(0, 'Posthorn could not be reached. Check your connection and try again.');
  }
  if (!res.ok) {
    const parsed = await res.json().catch(() => undefined);
    throw new ApiError(res.status, parsed?.error ?? `The download failed (HTTP ${res.status}).`);
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
