/**
 * Builds the OAuth 2.1 authorization server from the kernel: one action per endpoint
 * (actions/*.ts), the grants the token endpoint runs (grants/*.ts), and its housekeeping (last-used
 * times of grants, purging spent codes and expired tokens). The composition root calls this once.
 */
import type { AuditService } from '../audit/service.js';
import { HourlyCounter } from '../auth/login/abuse.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import type { ProjectService } from '../projects/service.js';
import { accessAction } from './actions/access.js';
import { authorizationActions } from './actions/authorization.js';
import type { Endpoints } from './actions/discovery.js';
import { grantsActions } from './actions/grants.js';
import { registrationAction } from './actions/registration.js';
import { revocationAction } from './actions/revocation.js';
import { tokenAction } from './actions/token.js';
import { startHousekeeping } from './housekeeping.js';
import { createOAuthStore } from './store.js';
import { kyselyAccessLookup, sqliteAccessLookup } from './store-access.js';

export interface OAuthDeps {
  readonly projects: Pick<ProjectService, 'get'>;
  readonly audit: AuditService;
  /** The member's address now; undefined once the user left the organization. */
  readonly member: (userId: string, organizationId: string) => Promise<{ email: string } | undefined>;
}

export function buildOAuth(kernel: Kernel, deps: OAuthDeps) {
  const config = kernel.config.oauth;
  const store = createOAuthStore(kernel.db);
  const issuer = kernel.config.server.public_url.replace(/\/+$/, '');
  // The consent page is the web dashboard's (its `authorize` page reads the request's query).
  const consentPage = `${issuer}${kernel.config.dashboard.path}authorize`;
  const endpoints: Endpoints = { issuer, authorization: config.consent_url || consentPage };
  const log = kernel.log.child({ capability: 'oauth' });
  const tokens =
    kernel.store.engine === 'sqlite' ? sqliteAccessLookup(kernel.store.sqlite) : kyselyAccessLookup(store);
  const access = accessAction({ store, tokens, projects: deps.projects, member: deps.member });
  const consentStands = async (userId: string, organizationId: string, projectId: string) => {
    const [project, member] = await Promise.all([
      deps.projects.get(projectId),
      deps.member(userId, organizationId),
    ]);
    return project !== undefined && project.organizationId === organizationId && member !== undefined;
  };
  const grantContext = {
    db: kernel.db,
    store,
    lifetimes: {
      accessMs: parseDuration(config.access_token_lifetime),
      refreshMs: parseDuration(config.refresh_token_lifetime),
    },
    consentStands,
  };
  return {
    endpoints,
    register: registrationAction({
      store,
      counter: new HourlyCounter(),
      perHour: config.registrations_per_hour_per_ip,
      log,
    }),
    authorization: authorizationActions({
      store,
      projects: deps.projects,
      audit: deps.audit,
      issuer,
      codeLifetimeMs: parseDuration(config.code_lifetime),
    }),
    token: tokenAction(grantContext, issuer),
    revoke: revocationAction(store, issuer),
    grants: grantsActions(store, deps.audit, access.lastUsed),
    /** A `pho_` access token → the key principal it acts as (auth/authenticators.ts). */
    authenticate: access.authenticate,
    flushLastUsed: access.flushLastUsed,
    /** The housekeeping engine (background.ts). */
    start: () => startHousekeeping({ store, flushLastUsed: access.flushLastUsed, log }),
  };
}

export type OAuth = ReturnType<typeof buildOAuth>;
