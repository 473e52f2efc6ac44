/**
 * Builds the people side of authentication: users' credentials, sessions and sign-in. The
 * composition root calls this once; API keys are built beside it (auth/service.ts).
 */
import type { AuditService } from '../audit/service.js';
import type { Kernel } from '../kernel.js';
import { parseDuration } from '../platform/config/duration.js';
import { createMemberService } from '../members/service.js';
import { createMemberStore } from '../members/store.js';
import { createTwoFactorPolicy } from '../members/two-factor.js';
import type { ProjectService } from '../projects/service.js';
import type { SystemMailService } from '../system-mail/service.js';
import { createAccountService } from './account/service.js';
import { createLoginService } from './login/service.js';
import { createSessionService } from './session/service.js';
import { createSessionStore } from './session/store.js';
import { createUserService } from './users/service.js';
import { createUserStore } from './users/store.js';

export function buildAccounts(
  kernel: Kernel,
  services: { projects: ProjectService; systemMail: SystemMailService; audit: AuditService },
) {
  const memberStore = createMemberStore(kernel.db);
  const users = createUserService(createUserStore(kernel.db), kernel.masterKey);
  const sessions = createSessionService({
    store: createSessionStore(kernel.db),
    config: kernel.config,
    projects: services.projects,
    membership: async (userId, organizationId) => {
      const row = await memberStore.findForSession(userId, organizationId);
      if (!row) return undefined;
      const admin = row.role === 'owner' || row.role === 'admin';
      const twoFactorMissing = admin && row.two_factor_required_at !== null && !row.has_totp;
      return { role: row.role, email: row.email, twoFactorMissing };
    },
  });
  const login = createLoginService({
    users,
    sessions,
    members: memberStore,
    projects: services.projects,
    systemMail: services.systemMail,
    audit: services.audit,
    limits: {
      perAddress: kernel.config.limits.login_attempts_per_hour,
      perIp: kernel.config.accounts.login_attempts_per_hour_per_ip,
      codesPerAddress: kernel.config.accounts.login_codes_per_hour,
    },
    product: kernel.config.status.title,
    log: kernel.log,
  });
  const members = createMemberService({
    db: kernel.db,
    store: memberStore,
    users,
    sessions,
    projects: services.projects,
    systemMail: services.systemMail,
    audit: services.audit,
    publicUrl: kernel.config.server.public_url,
    product: kernel.config.status.title,
    log: kernel.log,
  });
  const account = createAccountService({
    users,
    sessions,
    login,
    systemMail: services.systemMail,
    audit: services.audit,
    product: kernel.config.status.title,
    recentSignInMs: parseDuration(kernel.config.accounts.reauthentication_window),
    log: kernel.log,
  });
  const twoFactor = createTwoFactorPolicy(memberStore, services.audit);
  return { users, sessions, login, members, memberStore, account, twoFactor };
}

export type Accounts = ReturnType<typeof buildAccounts>;
