/**
 * Client authentication at the token and revocation endpoints (RFC 6749 §2.3, OAuth 2.1 §2.4):
 * exactly one mechanism, and the one the client registered: none (a public client sends its
 * client_id), `client_secret_basic` (HTTP Basic, each part form-urlencoded, RFC 6749 §2.3.1) or
 * `client_secret_post` (client_id and client_secret in the body). Every failure is invalid_client
 * (401), with a Basic challenge when the client tried Basic.
 */
import { InvalidClient, InvalidRequest } from '../errors.js';
import type { ClientRow } from '../store.js';
import { secretMatches } from './secrets.js';

export interface ClientCredentials {
  /** The `Authorization` header, if any. */
  readonly authorization: string | undefined;
  readonly client_id?: string | undefined;
  readonly client_secret?: string | undefined;
}

// RFC 6749 Appendix B: application/x-www-form-urlencoded, so '+' is a space.
const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, '%20'));

function parseBasic(header: string): { id: string; secret: string } {
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (!match)
    throw new InvalidRequest('The Authorization header must be `Basic <base64(client_id:client_secret)>`.');
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new InvalidRequest('The Basic credentials must be client_id:client_secret.');
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new InvalidRequest('The Basic credentials are not form-urlencoded.');
  }
}

/** Whether the request carries any client identification at all. */
export function presentsClient(credentials: ClientCredentials): boolean {
  return credentials.authorization !== undefined || credentials.client_id !== undefined;
}

export async function authenticateClient(
  credentials: ClientCredentials,
  find: (id: string) => Promise<ClientRow | undefined>,
  realm: string,
): Promise<ClientRow> {
  const basic = credentials.authorization === undefined ? undefined : parseBasic(credentials.authorization);
  const realmIfBasic = basic ? realm : undefined;
  if (basic && credentials.client_secret !== undefined)
    throw new InvalidRequest('Send the client secret one way only: HTTP Basic or client_secret, not both.');
  if (basic && credentials.client_id !== undefined && credentials.client_id !== basic.id)
    throw new InvalidRequest('client_id differs from the client of the Authorization header.');
  const clientId = basic?.id ?? credentials.client_id;
  if (!clientId)
    throw new InvalidClient(
      'Client authentication is required: send client_id (and the secret of a confidential client).',
    );
  const client = await find(clientId);
  if (!client) throw new InvalidClient(`No client ${clientId} is registered.`, realmIfBasic);
  const secret = basic?.secret ?? credentials.client_secret;
  switch (client.auth_method) {
    case 'none':
      if (secret !== undefined)
        throw new InvalidClient(
          'This client is public (token_endpoint_auth_method none): send no secret.',
          realmIfBasic,
        );
      return client;
    case 'client_secret_basic':
      if (!basic)
        throw new InvalidClient('This client authenticates with HTTP Basic (client_secret_basic).', realm);
      break;
    case 'client_secret_post':
      if (basic || secret === undefined)
        throw new InvalidClient(
          'This client authenticates with client_secret in the body (client_secret_post).',
          realmIfBasic,
        );
      break;
  }
  if (secret === undefined || client.secret_hash === null || !secretMatches(secret, client.secret_hash))
    throw new InvalidClient('The client secret is wrong.', realmIfBasic);
  return client;
}
