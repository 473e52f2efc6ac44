/** The HTTP app's authenticators, one per auth kind a route may declare. */
import type { Authenticator } from '../platform/http/app.js';
import { AppError } from '../platform/http/errors.js';
import type { AuthKind } from '../platform/http/route.js';
import type { Services } from '../services.js';

export function createAuthenticators(services: Services): Partial<Record<AuthKind, Authenticator>> {
  return {
    key: (ctx) => services.keys.authenticate(ctx.get('Authorization') || undefined),
    session: () => {
      throw new AppError('unauthorized', 'Dashboard sessions are not available yet.');
    },
  };
}
