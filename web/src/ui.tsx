/** The dashboard's building blocks: loading, errors as the API wrote them, empty states, tables, forms. */
import type {
  ComponentChildren,
  InputHTMLAttributes,
  SelectHTMLAttributes,
  TextareaHTMLAttributes,
} from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: ApiError | undefined;
  readonly loading: boolean;
  reload(): void;
}

/** Loads `fetcher()` now and whenever `deps` change; keeps the last data while reloading. */
export function useLoad<T>(fetcher: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fetcher().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error: toApiError(error), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, error instanceof Error ? error.message : String(error));
}

export function ErrorNote({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <p>{error.message}</p>
      {error.details.length > 0 && (
        <ul>
          {error.details.map((d) => (
            <li key={d.path}>
              <code>{d.path}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status">
      {what}…
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{title}</p>
      {children && <p>{children}</p>}
    </div>
  );
}

/** Shows loading, the error or the content of a load. */
export function Show<T>({ load, children }: { load: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (load.error) return <ErrorNote error={load.error} />;
  if (load.data === undefined) return <Loading />;
  return <>{children(load.data)}</>;
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Posthorn`;
  }, [title]);
  return (
    <header class="page-header">
      <h1 tabIndex={-1} id="page-title">
        {title}
      </h1>
      {children && <div class="actions">{children}</div>}
    </header>
  );
}

export function Field(props: { label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const { label, hint, ...input } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function Select(
  props: {
    label: string;
    options: readonly (string | [string, string])[];
  } & SelectHTMLAttributes<HTMLSelectElement>,
) {
  const id = useId();
  const { label, options, ...select } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...select}>
        {options.map((o: string | [string, string]) => {
          const [value, text] = typeof o === 'string' ? [o, o] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </div>
  );
}

export function TextArea(props: { label: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  const { label, ...area } = props;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} {...area} />
    </div>
  );
}

/** A form whose submit runs `action`, showing progress and the API's error. */
export function Form(props: {
  onSubmit: () => Promise<void>;
  submit: string;
  busy?: string;
  children: ComponentChildren;
  class?: string;
  label?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  return (
    <form
      class={props.class ?? 'form'}
      aria-label={props.label}
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          await props.onSubmit();
        } catch (e) {
          setError(toApiError(e));
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children}
      <ErrorNote error={error} />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? (props.busy ?? 'Working…') : props.submit}
      </button>
    </form>
  );
}

/** A button whose click runs `action`; shows its error beside it. */
export function ActionButton(props: {
  action: () => Promise<void>;
  children: ComponentChildren;
  confirm?: string;
  class?: string;
  label?: string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  return (
    <span class="action">
      <button
        type="button"
        class={props.class}
        aria-label={props.label}
        disabled={busy}
        onClick={async () => {
          if (props.confirm && !window.confirm(props.confirm)) return;
          setBusy(true);
          setError(undefined);
          try {
            await props.action();
          } catch (e) {
            setError(toApiError(e));
          } finally {
            setBusy(false);
          }
        }}
      >
        {props.children}
      </button>
      <ErrorNote error={error} />
    </span>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  return (
    <button
      type="button"
      class="copy"
      aria-label={label}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          window.prompt('Copy this value:', text);
        }
        setCopied(true);
        clearTimeout(timer.current);
        timer.current = window.setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export function Pager(props: {
  page: number;
  totalPages: number;
  onPage: (page: number) => void;
  total?: number;
}) {
  const { page, totalPages } = props;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {Math.max(totalPages, 1)}
        {props.total !== undefined && ` · ${props.total.toLocaleString('en')} in all`}
      </span>
      <button type="button" disabled={page >= totalPages} onClick={() => props.onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Cursor paging (`has_more` + `after`), the API's default for lists. */
export function useCursor() {
  const [stack, setStack] = useState<string[]>([]);
  return {
    after: stack[stack.length - 1],
    page: stack.length + 1,
    next: (lastId: string) => setStack((s) => [...s, lastId]),
    previous: () => setStack((s) => s.slice(0, -1)),
    reset: () => setStack([]),
  };
}

export function CursorPager(props: {
  cursor: ReturnType<typeof useCursor>;
  hasMore: boolean;
  lastId: string | undefined;
}) {
  const { cursor } = props;
  if (cursor.page === 1 && !props.hasMore) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={cursor.page <= 1} onClick={cursor.previous}>
        Previous
      </button>
      <span>Page {cursor.page}</span>
      <button
        type="button"
        disabled={!props.hasMore || !props.lastId}
        onClick={() => props.lastId && cursor.next(props.lastId)}
      >
        Next
      </button>
    </nav>
  );
}

export function Status({ value }: { value: string }) {
  return <span class={`badge badge-${value.replace(/[^a-z_]/g, '')}`}>{value.replace(/_/g, ' ')}</span>;
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={date.toISOString()}>
      {date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}

/** A table that scrolls inside its own box on narrow screens, never the page. */
export function Table({
  caption,
  head,
  children,
}: {
  caption: string;
  head: string[];
  children: ComponentChildren;
}) {
  return (
    <ScrollBox label={caption}>
      <table>
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {head.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </ScrollBox>
  );
}

/** A secret shown once, with a copy button and the warning. */
export function ShownOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  return (
    <section class="shown-once" aria-label={title}>
      <h2>{title}</h2>
      <p>Copy it now: Posthorn keeps only a hash and will not show it again.</p>
      <div class="copy-row">
        <code class="secret">{value}</code>
        <CopyButton text={value} label={`Copy ${title}`} />
      </div>
      <button type="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

/** A box that scrolls sideways on narrow screens instead of the page; keyboard users can scroll it. */
export function ScrollBox({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard (WCAG 2.1.1)
    <section class="table-wrap" tabIndex={0} aria-label={label}>
      {children}
    </section>
  );
}

/** Preformatted text in a box that scrolls; keyboard users can scroll it too. */
export function Pre({
  children,
  class: className = 'code',
}: {
  children: ComponentChildren;
  class?: string;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls must be reachable by keyboard (WCAG 2.1.1)
    <pre class={className} tabIndex={0}>
      {children}
    </pre>
  );
}

/** One figure of a `<dl class="stats">`, with an optional note (a rate, a share). */
export function Stat({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div class="stat">
      <dt>{label}</dt>
      <dd>
        <span class="stat-value">{value}</span>
        {note && <span class="muted"> {note}</span>}
      </dd>
    </div>
  );
}
