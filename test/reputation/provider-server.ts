/**
 * A local HTTP server that answers as the mailbox providers' documented interfaces do: Google's
 * OAuth 2.0 token endpoint (refresh_token grant, RFC 6749 §6), the Postmaster Tools API v1
 * (`/v1/domains`, `/v1/domains/{domain}/trafficStats` with `startDate`/`endDate`), and Microsoft
 * SNDS automated data access (`/snds/data.aspx?key=` as CSV, `/snds/ipStatus.aspx?key=`; an
 * unknown key gets a web page, as SNDS answers one).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const GOOD_REFRESH = {
  client_id: 'cid.apps.example',
  client_secret: 'shh-secret',
  refresh_token: '1//good-refresh',
};
export const ACCESS_TOKEN = 'ya29.a0-good-access';
export const SNDS_KEY = 'a1b2c3d4-e5f6-7890-abcd-ef0123456789';

export interface ProviderServer {
  readonly url: string;
  /** Requests seen, as `METHOD path` without the query. */
  readonly seen: string[];
  /** Query strings of trafficStats requests. */
  readonly trafficQueries: string[];
  stop(): Promise<void>;
}

const trafficStats = (domain: string) => ({
  trafficStats: [
    {
      name: `domains/${domain}/trafficStats/20261125`,
      userReportedSpamRatio: 0.0012,
      ipReputations: [{ reputation: 'HIGH', ipCount: '2', sampleIps: ['192.0.2.10', '192.0.2.11'] }],
      domainReputation: 'HIGH',
      spfSuccessRatio: 1,
      dkimSuccessRatio: 0.998,
      dmarcSuccessRatio: 0.997,
      outboundEncryptionRatio: 1,
      inboundEncryptionRatio: 1,
      deliveryErrors: [
        { errorClass: 'TEMPORARY_ERROR', errorType: 'RATE_LIMIT_EXCEEDED', errorRatio: 0.004 },
      ],
    },
    {
      name: `domains/${domain}/trafficStats/20261126`,
      userReportedSpamRatio: 0.004,
      ipReputations: [{ reputation: 'MEDIUM', ipCount: '2', sampleIps: ['192.0.2.10'] }],
      domainReputation: 'MEDIUM',
      spfSuccessRatio: 1,
      dkimSuccessRatio: 1,
      dmarcSuccessRatio: 1,
    },
  ],
});

const SNDS_DATA = [
  '192.0.2.10,11/26/2026 0:00,11/26/2026 23:59,1534,1533,1602,GREEN,< 0.1%,11/26/2026 0:00,11/26/2026 23:59,0,mta1.acme.test,,',
  '192.0.2.11,11/26/2026 0:00,11/26/2026 23:59,220,219,240,RED,2.5%,11/26/2026 0:00,11/26/2026 23:59,3,mta2.acme.test,,"Trap hits, complaints"',
].join('\r\n');
const SNDS_STATUS =
  '192.0.2.11,192.0.2.11,Yes,Blocked due to user complaints or other evidence of spamming\r\n';

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on('end', () => resolve(text));
  });
}

export async function startProviderServer(): Promise<ProviderServer> {
  const seen: string[] = [];
  const trafficQueries: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    seen.push(`${req.method} ${url.pathname}`);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(value));
    };
    const bearer = req.headers.authorization === `Bearer ${ACCESS_TOKEN}`;
    const unauthenticated = () =>
      json(401, {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials.',
          status: 'UNAUTHENTICATED',
        },
      });
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await body(req));
      if (
        form.get('grant_type') === 'refresh_token' &&
        form.get('client_id') === GOOD_REFRESH.client_id &&
        form.get('client_secret') === GOOD_REFRESH.client_secret &&
        form.get('refresh_token') === GOOD_REFRESH.refresh_token
      )
        return json(200, {
          access_token: ACCESS_TOKEN,
          expires_in: 3599,
          token_type: 'Bearer',
          scope: 'https://www.googleapis.com/auth/postmaster.readonly',
        });
      return json(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    }
    if (req.method === 'GET' && url.pathname === '/v1/domains') {
      if (!bearer) return unauthenticated();
      return json(200, {
        domains: [{ name: 'domains/acme.test', createTime: '2026-01-05T10:00:00Z', permission: 'OWNER' }],
      });
    }
    const stats = /^\/v1\/domains\/([^/]+)\/trafficStats$/.exec(url.pathname);
    if (req.method === 'GET' && stats) {
      if (!bearer) return unauthenticated();
      trafficQueries.push(url.search);
      if (!url.searchParams.has('startDate.year') || !url.searchParams.has('endDate.day'))
        return json(400, {
          error: { code: 400, message: 'startDate and endDate are required', status: 'INVALID_ARGUMENT' },
        });
      return json(200, trafficStats(decodeURIComponent(stats[1] ?? '')));
    }
    if (
      req.method === 'GET' &&
      (url.pathname === '/snds/data.aspx' || url.pathname === '/snds/ipStatus.aspx')
    ) {
      if (url.searchParams.get('key') !== SNDS_KEY) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html><body>Invalid key. Please sign in to SNDS.</body></html>');
      }
      res.writeHead(200, { 'content-type': 'text/csv' });
      return res.end(url.pathname === '/snds/data.aspx' ? SNDS_DATA : SNDS_STATUS);
    }
    json(404, { error: { code: 404, status: 'NOT_FOUND' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    trafficQueries,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
