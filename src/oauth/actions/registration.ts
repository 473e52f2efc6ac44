/**
 * `POST /oauth/register` (RFC 7591): open dynamic registration, as agents and native apps need
 * (they register themselves with no one to hand them a client). Limited per client address per
 * hour. A confidential client gets a secret, shown once in the 201 and stored as its SHA-256.
 */
import type { HourlyCounter } from '../../auth/login/abuse.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/log.js';
import { RateLimited } from '../errors.js';
import { checkMetadata, type RegistrationInput } from '../helpers/client-metadata.js';
import { hashSecret, newSecret } from '../helpers/secrets.js';
import type { ClientRow, OAuthStore } from '../store.js';

export interface RegistrationDeps {
  readonly store: OAuthStore;
  readonly counter: HourlyCounter;
  readonly perHour: number;
  readonly log: Logger;
}

/** RFC 7591 §3.2.1: the registered metadata, with the client's credentials. */
export function registrationBody(row: ClientRow, secret: string | undefined) {
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(row.created_at / 1000),
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    token_endpoint_auth_method: row.auth_method,
    grant_types: JSON.parse(row.grant_types) as string[],
    response_types: JSON.parse(row.response_types) as string[],
    ...(row.name === null ? {} : { client_name: row.name }),
    ...(row.scope === null ? {} : { scope: row.scope }),
    ...(row.software_id === null ? {} : { software_id: row.software_id }),
    ...(row.software_version === null ? {} : { software_version: row.software_version }),
  };
}

export function registrationAction(deps: RegistrationDeps) {
  return async function register(input: RegistrationInput, ip: string | null) {
    const wait = deps.counter.take(ip ?? 'unknown', deps.perHour);
    if (wait !== undefined)
      throw new RateLimited(`Too many client registrations from this address; try again in ${wait} s.`, wait);
    const metadata = checkMetadata(input);
    const now = Date.now();
    const secret = metadata.authMethod === 'none' ? undefined : newSecret('phcs');
    const row: ClientRow = {
      id: newId('phc', now),
      name: metadata.name,
      redirect_uris: JSON.stringify(metadata.redirectUris),
      auth_method: metadata.authMethod,
      secret_hash: secret === undefined ? null : hashSecret(secret),
      grant_types: JSON.stringify(metadata.grantTypes),
      response_types: JSON.stringify(metadata.responseTypes),
      scope: metadata.scope,
      software_id: metadata.softwareId,
      software_version: metadata.softwareVersion,
      created_at: now,
    };
    await deps.store.insertClient(row);
    deps.log.info({ client_id: row.id, auth_method: row.auth_method, ip }, 'oauth client registered');
    return registrationBody(row, secret);
  };
}
