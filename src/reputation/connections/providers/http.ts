/**
 * Requests to a mailbox provider, with the closed set of failures the connections care about: the
 * provider refused the credential (401, 403; nothing is stored, or the sync says to reconnect),
 * or the provider could not be reached or answered an error (the data fetched before is kept).
 * A credential never appears in an error message: URLs are named without their query.
 */

export type ProviderName = 'provider_a_postmaster' | 'provider_b_snds';

export const PROVIDER_TITLES: Record<ProviderName, string> = {
  provider_a_postmaster: 'Google Postmaster Tools',
  provider_b_snds: 'Microsoft SNDS',
};

/** The provider did not accept the credential. */
export class ProviderRefused extends Error {
  override readonly name = 'ProviderRefused';
}

/** The provider did not answer, or answered with an error that is not about the credential. */
export class ProviderUnavailable extends Error {
  override readonly name = 'ProviderUnavailable';
}

/** One item of a provider's data: about a domain or an IP (range), for one day. */
export interface ProviderItem {
  readonly kind: 'traffic' | 'ip_status';
  readonly subject: string;
  /** YYYY-MM-DD. */
  readonly day: string;
  readonly data: Record<string, unknown>;
}

export interface ProviderClient {
  /** Resolves when the provider accepts the credential; throws ProviderRefused or ProviderUnavailable. */
  verify(credential: string): Promise<void>;
  /** The latest data the credential gives access to. */
  fetch(credential: string, now: number): Promise<ProviderItem[]>;
}

/** Where a request went, without its query string (an SNDS key travels in it). */
const named = (url: string) => url.replace(/\?.*$/, '');

export async function providerRequest(
  provider: ProviderName,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Response> {
  const title = PROVIDER_TITLES[provider];
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new ProviderUnavailable(`${title} did not answer at ${named(url)} (${cause}).`);
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    throw new ProviderRefused(`${title} refused the credential (HTTP ${response.status}).`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ProviderUnavailable(`${title} answered HTTP ${response.status} at ${named(url)}.`);
  }
  return response;
}
