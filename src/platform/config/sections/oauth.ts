/**
 * Config sections of third-party access: the OAuth 2.1 authorization server (token lifetimes,
 * registration limits, where the consent page is) and the approval of agent sends.
 */
import { z } from 'zod';
import { parseDuration } from '../duration.js';
import { duration, httpUrl } from './fields.js';

const TEN_MINUTES = 600_000;

export const oauthSection = z
  .strictObject({
    access_token_lifetime: duration({ min: '1m' })
      .default('1h')
      .describe('How long an access token (`pho_...`) works after it is issued.'),
    refresh_token_lifetime: duration({ min: '1m' })
      .default('30d')
      .describe(
        'How long a refresh token (`phr_...`) works; each refresh issues a new one with a fresh lifetime, and the old one is spent.',
      ),
    code_lifetime: duration({ min: '1s' })
      .default('1m')
      .refine((value) => !/^\d+(ms|s|m|h|d)$/.test(value) || parseDuration(value) <= TEN_MINUTES, {
        message: 'must be at most 10m (RFC 6749 §4.1.2)',
      })
      .describe('How long an authorization code may wait for its exchange at /oauth/token (single use).'),
    registrations_per_hour_per_ip: z
      .int()
      .positive()
      .default(20)
      .describe(
        'Client registrations (POST /oauth/register) per hour from one client address; past it, 429.',
      ),
    consent_url: z
      .union([z.literal(''), httpUrl])
      .default('')
      .describe(
        "The web dashboard's consent page, advertised as the authorization endpoint in /.well-known/oauth-authorization-server; it reads the request's query and calls /v1/dashboard/oauth/authorize-context and /authorize. Empty: the web dashboard's page, <server.public_url><dashboard.path>authorize.",
      ),
  })
  .describe('OAuth 2.1 for third-party clients and agents (PKCE, S256 only).');

export const approvalsSection = z
  .strictObject({
    expire_after: duration({ min: '1s' })
      .default('24h')
      .describe(
        'An agent send (made with an OAuth access token) left neither approved nor rejected this long is rejected as expired, with an `email.rejected` event.',
      ),
  })
  .describe(
    'Sends made by OAuth clients, held for a person to approve (unless the project trusts the client).',
  );
