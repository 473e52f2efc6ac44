/** The frame: sign-in when signed out; otherwise the navigation, the project switcher and the page. */
import type { ComponentType } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from './api';
import { get, post, whenSignedOut } from './api';
import { Account } from './pages/account';
import { Analytics } from './pages/analytics';
import { ApiKeys } from './pages/api-keys';
import { Approvals } from './pages/approvals';
import { AudienceDetail, Audiences } from './pages/audiences';
import { AuditLog } from './pages/audit-log';
import { BroadcastDetail } from './pages/broadcast-detail';
import { Broadcasts } from './pages/broadcasts';
import { ConnectedApps } from './pages/connected-apps';
import { Consent } from './pages/consent';
import { ContactDetail } from './pages/contact-detail';
import { Domains } from './pages/domains';
import { Inbound } from './pages/inbound';
import { InboundDetail } from './pages/inbound-detail';
import { Members } from './pages/members';
import { MessageDetail } from './pages/message-detail';
import { Messages } from './pages/messages';
import { Reputation } from './pages/reputation';
import { SignIn } from './pages/sign-in';
import { SystemStatus } from './pages/status';
import { Suppressions } from './pages/suppressions';
import { TemplateDetail } from './pages/template-detail';
import { Templates } from './pages/templates';
import { Tracking } from './pages/tracking';
import { Validation } from './pages/validation';
import { WebhookDetail } from './pages/webhook-detail';
import { Webhooks } from './pages/webhooks';
import { Link, match, navigate, useLocation } from './router';
import {
  type Project,
  projectChanged,
  rememberProject,
  type Session,
  storedProject,
  useProjectVersion,
} from './session';
import { ErrorNote, Loading, toApiError } from './ui';

type Page = ComponentType<{ params: Record<string, string> }>;

const ROUTES: ReadonlyArray<[string, Page]> = [
  ['/messages', Messages],
  ['/messages/:id', MessageDetail],
  ['/domains', Domains],
  ['/suppressions', Suppressions],
  ['/templates', Templates],
  ['/templates/:id', TemplateDetail],
  ['/webhooks', Webhooks],
  ['/webhooks/:id', WebhookDetail],
  ['/analytics', Analytics],
  ['/inbound', Inbound],
  ['/inbound/:id', InboundDetail],
  ['/audiences', Audiences],
  ['/audiences/:id', AudienceDetail],
  ['/audiences/:id/contacts/:contact', ContactDetail],
  ['/broadcasts', Broadcasts],
  ['/broadcasts/:id', BroadcastDetail],
  ['/tracking', Tracking],
  ['/validation', Validation],
  ['/reputation', Reputation],
  ['/system-status', SystemStatus],
  ['/api-keys', ApiKeys],
  ['/approvals', Approvals],
  ['/connected-apps', ConnectedApps],
  ['/members', Members],
  ['/audit-log', AuditLog],
  ['/account', Account],
];

const NAV: ReadonlyArray<{ title: string; items: ReadonlyArray<[string, string]> }> = [
  {
    title: 'Sending',
    items: [
      ['/messages', 'Messages'],
      ['/approvals', 'Agent sends'],
      ['/analytics', 'Analytics'],
      ['/templates', 'Templates'],
      ['/inbound', 'Inbound'],
    ],
  },
  {
    title: 'Marketing',
    items: [
      ['/audiences', 'Audiences'],
      ['/broadcasts', 'Broadcasts'],
    ],
  },
  {
    title: 'Configuration',
    items: [
      ['/domains', 'Domains'],
      ['/suppressions', 'Suppressions'],
      ['/webhooks', 'Webhooks'],
      ['/tracking', 'Tracking'],
      ['/api-keys', 'API keys'],
    ],
  },
  {
    title: 'Deliverability',
    items: [
      ['/reputation', 'Reputation'],
      ['/validation', 'Validation'],
      ['/system-status', 'Status'],
    ],
  },
  {
    title: 'Organization',
    items: [
      ['/members', 'Members'],
      ['/connected-apps', 'Connected apps'],
      ['/audit-log', 'Audit log'],
      ['/account', 'Account'],
    ],
  },
];

function route(path: string): [Page, Record<string, string>] | undefined {
  for (const [pattern, page] of ROUTES) {
    const params = match(pattern, path);
    if (params) return [page, params];
  }
  return undefined;
}

export function App() {
  const [session, setSession] = useState<Session | null>();
  const [error, setError] = useState<ApiError>();
  // Why the person is back at the sign-in page: their session ended while they used it.
  const [ended, setEnded] = useState<string>();
  const current = useRef(session);
  current.current = session;
  const { path } = useLocation();

  const load = async () => {
    setError(undefined);
    try {
      rememberProject(storedProject());
      setSession(await get<Session>('/v1/auth/session'));
    } catch (e) {
      const err = toApiError(e);
      if (err.status === 401) setSession(null);
      else if (err.status === 404 && storedProject()) {
        // The remembered project is gone or not this organization's: fall back to the default.
        rememberProject(undefined);
        setSession(await get<Session>('/v1/auth/session').catch(() => null));
      } else setError(err);
    }
  };
  useEffect(() => {
    whenSignedOut((message) => {
      if (current.current) setEnded(message);
      setSession(null);
    });
    void load();
  }, []);

  if (error)
    return (
      <main class="center">
        <ErrorNote error={error} />
      </main>
    );
  if (session === undefined)
    return (
      <main class="center">
        <Loading what="Loading Posthorn" />
      </main>
    );
  if (session === null || path === '/sign-in')
    return (
      <SignIn
        ended={ended}
        onSignedIn={(s) => {
          setEnded(undefined);
          rememberProject(undefined);
          setSession(s);
          // Stay on the page that asked for the sign-in (a link, the consent screen); else the messages.
          if (path === '/' || path === '/sign-in') navigate('/messages', true);
        }}
      />
    );
  if (path === '/authorize') return <Consent />;
  return <Shell session={session} onSession={setSession} path={path} />;
}

function Shell({
  session,
  onSession,
  path,
}: {
  session: Session;
  onSession: (s: Session | null) => void;
  path: string;
}) {
  const found = path === '/' ? undefined : route(path);
  useEffect(() => {
    if (path === '/' || path === '/sign-in') navigate('/messages', true);
  }, [path]);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useLayoutEffect(() => {
    // Move focus to the new page's heading, as a screen reader expects after navigation: in the
    // same commit as the page (a layout effect), so the heading is never shown unfocused.
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('page-title')?.focus();
  }, [path]);
  const [Page, params] = found ?? [NotFound, {}];
  const version = useProjectVersion();
  return (
    <div class="shell">
      {/* With <base href>, "#main" alone would load the base page: move focus here instead. */}
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is an in-page link (WCAG 2.4.1); the click only keeps <base href> from turning it into a page load */}
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          main.current?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="topbar">
        <Link to="/messages" class="brand">
          Posthorn
        </Link>
        <ProjectSwitcher session={session} onSession={onSession} />
        <div class="who">
          <a href="/status">Status page</a>
          <span class="muted">{session.email}</span>
          <button
            type="button"
            onClick={async () => {
              await post('/v1/dashboard/web/sign-out').catch(() => undefined);
              onSession(null);
              navigate('/sign-in', true);
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidebar" aria-label="Main">
        {NAV.map((group) => (
          <div key={group.title} class="nav-group">
            <p class="nav-title">{group.title}</p>
            <ul>
              {group.items.map(([to, label]) => (
                <li key={to}>
                  <Link to={to} aria-current={path === to || path.startsWith(`${to}/`) ? 'page' : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        <Page key={`${path} ${version}`} params={params} />
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <>
      <h1 id="page-title" tabIndex={-1}>
        Page not found
      </h1>
      <p>
        There is no such page. <Link to="/messages">Go to messages</Link>.
      </p>
    </>
  );
}

function ProjectSwitcher({ session, onSession }: { session: Session; onSession: (s: Session) => void }) {
  const [projects, setProjects] = useState<Project[]>();
  useEffect(() => {
    get<{ data: Project[] }>('/v1/dashboard/projects').then(
      (r) => setProjects(r.data),
      () => setProjects([]),
    );
  }, [session.organization_id]);
  if (!projects || projects.length === 0)
    return <span class="project muted">Project {session.project_id}</span>;
  return (
    <div class="project">
      <label for="project-switcher">Project</label>
      <select
        id="project-switcher"
        value={session.project_id}
        onChange={async (event) => {
          const id = (event.target as HTMLSelectElement).value;
          rememberProject(id);
          onSession(await get<Session>('/v1/auth/session'));
          projectChanged();
        }}
      >
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name} ({p.status})
          </option>
        ))}
      </select>
    </div>
  );
}
