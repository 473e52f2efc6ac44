/**
 * A small history router: paths are relative to the dashboard's base (`<base href>`), links are
 * real anchors (so they open in a new tab, and keyboard users get them for free).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

const base = new URL(document.baseURI).pathname; // ends with '/'

export function currentPath(): string {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : '';
  return `/${path}`;
}

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  const url = base + to.replace(/^\//, '');
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return { path: currentPath(), search: new URLSearchParams(location.search) };
}

export function href(to: string): string {
  return base + to.replace(/^\//, '');
}

export function Link(props: {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const { to, children } = props;
  return (
    <a
      class={props.class}
      aria-current={props['aria-current']}
      href={href(to)}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** Matches `/templates/:id` against a path; the named parts, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] as string;
    const value = have[i] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}
