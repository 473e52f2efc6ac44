/**
 * Google Postmaster Tools (API v1): the domains a credential may read (`GET /v1/domains`) and
 * each one's daily traffic stats (`GET /v1/domains/{domain}/trafficStats`, with `startDate` and
 * an exclusive `endDate`): user-reported spam rate, domain and IP reputation, SPF, DKIM and DMARC
 * success ratios, encryption and delivery errors.
 *
 * The credential is either a JSON object `{"client_id", "client_secret", "refresh_token"}` of an
 * OAuth 2.0 client with the `postmaster.readonly` scope, exchanged for an access token at each use
 * (it lasts: the daily sync keeps working), or a bare access token (it expires within the hour;
 * good to try a connection, not to keep one).
 */
import {
  type ProviderClient,
  type ProviderItem,
  ProviderRefused,
  ProviderUnavailable,
  providerRequest,
} from './http.js';

export interface PostmasterOptions {
  readonly apiUrl: string;
  readonly tokenUrl: string;
  readonly timeoutMs: number;
}

interface RefreshCredential {
  readonly client_id: string;
  readonly client_secret: string;
  readonly refresh_token: string;
}

const DAYS = 7;
const PROVIDER = 'provider_a_postmaster';

/** The refresh credential in `credential`, or undefined for a bare access token. */
export function refreshCredential(credential: string): RefreshCredential | undefined {
  const text = credential.trim();
  if (!text.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProviderRefused('The credential looks like JSON but does not parse.');
  }
  const value = parsed as Partial<RefreshCredential>;
  for (const field of ['client_id', 'client_secret', 'refresh_token'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '')
      throw new ProviderRefused(`The credential's JSON needs a string "${field}".`);
  }
  return value as RefreshCredential;
}

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dateQuery = (prefix: string, day: string) => {
  const [year, month, date] = day.split('-').map(Number);
  return `${prefix}.year=${year}&${prefix}.month=${month}&${prefix}.day=${date}`;
};

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** A trafficStats entry as Posthorn keeps it (snake_case, the provider's values). */
function trafficItem(domain: string, stat: Json): ProviderItem | undefined {
  const id = /\/trafficStats\/(\d{4})(\d{2})(\d{2})$/.exec(String(stat.name ?? ''));
  if (!id) return undefined;
  return {
    kind: 'traffic',
    subject: domain,
    day: `${id[1]}-${id[2]}-${id[3]}`,
    data: {
      spam_rate: stat.userReportedSpamRatio ?? null,
      domain_reputation: stat.domainReputation ?? null,
      ip_reputations: list(stat.ipReputations).map((ip) => ({
        reputation: ip.reputation ?? null,
        ip_count: Number(ip.ipCount ?? 0),
        sample_ips: list(ip.sampleIps),
      })),
      spf_success_ratio: stat.spfSuccessRatio ?? null,
      dkim_success_ratio: stat.dkimSuccessRatio ?? null,
      dmarc_success_ratio: stat.dmarcSuccessRatio ?? null,
      outbound_encryption_ratio: stat.outboundEncryptionRatio ?? null,
      delivery_errors: list(stat.deliveryErrors).map((error) => ({
        class: error.errorClass ?? null,
        type: error.errorType ?? null,
        ratio: error.errorRatio ?? null,
      })),
    },
  };
}

export function postmasterClient(options: PostmasterOptions): ProviderClient {
  const json = async (url: string, init: RequestInit): Promise<Json> => {
    const response = await providerRequest(PROVIDER, url, init, options.timeoutMs);
    try {
      return (await response.json()) as Json;
    } catch {
      throw new ProviderUnavailable('Google Postmaster Tools answered something that is not JSON.');
    }
  };

  async function accessToken(credential: string): Promise<string> {
    const refresh = refreshCredential(credential);
    if (!refresh) {
      const token = credential.trim();
      if (token === '' || /\s/.test(token))
        throw new ProviderRefused('The access token is empty or has spaces.');
      return token;
    }
    const response = await fetchToken(refresh);
    const token = response.access_token;
    if (typeof token !== 'string' || token === '')
      throw new ProviderUnavailable('The token endpoint answered without an access_token.');
    return token;
  }

  async function fetchToken(refresh: RefreshCredential): Promise<Json> {
    const body = new URLSearchParams({ grant_type: 'refresh_token', ...refresh });
    let response: Response;
    try {
      response = await fetch(options.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new ProviderUnavailable(`Google's token endpoint did not answer (${cause}).`);
    }
    const answer = (await response.json().catch(() => ({}))) as Json;
    // RFC 6749 §5.2: invalid_grant and invalid_client say the credential is no good.
    if (response.status === 400 || response.status === 401) {
      throw new ProviderRefused(
        `Google refused the refresh credential (${typeof answer.error === 'string' ? answer.error : `HTTP ${response.status}`}).`,
      );
    }
    if (!response.ok)
      throw new ProviderUnavailable(`Google's token endpoint answered HTTP ${response.status}.`);
    return answer;
  }

  async function domains(token: string): Promise<string[]> {
    const names: string[] = [];
    let page = '';
    do {
      const query = `pageSize=100${page ? `&pageToken=${encodeURIComponent(page)}` : ''}`;
      const answer = await json(`${options.apiUrl}/v1/domains?${query}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      });
      for (const domain of list(answer.domains)) {
        const name = String(domain.name ?? '').replace(/^domains\//, '');
        if (name) names.push(name);
      }
      page = typeof answer.nextPageToken === 'string' ? answer.nextPageToken : '';
    } while (page !== '');
    return names;
  }

  return {
    async verify(credential) {
      await domains(await accessToken(credential));
    },

    async fetch(credential, now) {
      const token = await accessToken(credential);
      const items: ProviderItem[] = [];
      const range = `${dateQuery('startDate', ymd(now - DAYS * 86_400_000))}&${dateQuery('endDate', ymd(now))}`;
      for (const domain of await domains(token)) {
        let page = '';
        do {
          const answer = await json(
            `${options.apiUrl}/v1/domains/${encodeURIComponent(domain)}/trafficStats?${range}&pageSize=100${
              page ? `&pageToken=${encodeURIComponent(page)}` : ''
            }`,
            { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
          );
          for (const stat of list(answer.trafficStats)) {
            const item = trafficItem(domain, stat);
            if (item) items.push(item);
          }
          page = typeof answer.nextPageToken === 'string' ? answer.nextPageToken : '';
        } while (page !== '');
      }
      return items;
    },
  };
}
