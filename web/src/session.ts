/** The signed-in person and the selected project, shared by every page. */
import { useEffect, useState } from 'preact/hooks';
import { selectProject } from './api';

export interface Session {
  readonly id: string;
  readonly user_id: string;
  readonly email: string;
  readonly organization_id: string;
  readonly project_id: string;
  readonly project_status: string;
  readonly auth_method: string;
  readonly expires_at: string;
}

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly status: string;
}

const STORAGE_KEY = 'posthorn.project';

export function storedProject(): string | undefined {
  try {
    return localStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function rememberProject(id: string | undefined): void {
  selectProject(id);
  try {
    if (id) localStorage.setItem(STORAGE_KEY, id);
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Private windows may refuse storage; the choice then lasts for this page only.
  }
}

type Listener = () => void;
const listeners = new Set<Listener>();
let version = 0;

/** Bumps when the project changes, so pages reload their data. */
export function projectChanged(): void {
  version++;
  for (const listener of listeners) listener();
}

export function useProjectVersion(): number {
  const [v, setV] = useState(version);
  useEffect(() => {
    const update = () => setV(version);
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return v;
}
