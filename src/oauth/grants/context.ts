/** What the token grants (grants/*.ts) share: the store, the lifetimes and the checks of who consented. */
import type { Db } from '../../platform/db/database.js';
import type { Lifetimes } from '../helpers/issue-tokens.js';
import type { OAuthStore } from '../store.js';

export interface GrantContext {
  readonly db: Db;
  readonly store: OAuthStore;
  readonly lifetimes: Lifetimes;
  /**
   * Whether the member who consented still belongs to the organization, and the project is still
   * theirs: tokens are never issued once either is gone.
   */
  readonly consentStands: (userId: string, organizationId: string, projectId: string) => Promise<boolean>;
}

export interface TokenParams {
  readonly code?: string | undefined;
  readonly redirect_uri?: string | undefined;
  readonly code_verifier?: string | undefined;
  readonly refresh_token?: string | undefined;
  readonly scope?: string | undefined;
}
