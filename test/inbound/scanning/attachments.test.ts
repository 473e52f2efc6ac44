/**
 * Attachments and the real clamd (scripts/peers): the EICAR test file is found infected and never
 * served, a clean file is served byte for byte, attachments wait as `pending` while clamd is down
 * (the scanner shows `degraded` in /health) and are scanned when it returns, and an attachment
 * clamd keeps refusing ends as `error` instead of being retried forever.
 */
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import test from 'ava';
import { type ClamdAddress, requireClamd } from '../../helpers/clamd.js';
import { createRoute, DOMAIN, EICAR, eventually, startInboundEnv } from '../env.js';
import { query } from '../../helpers/sql.js';

interface Proxy {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of the real clamd on `port` (0: any). With `refuseScans`, PING still
 * reaches clamd but every INSTREAM is answered the way clamd answers a stream over its
 * StreamMaxLength.
 */
function clamdProxy(clamd: ClamdAddress, port = 0, refuseScans = false): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    client.once('data', (first: Buffer) => {
      if (refuseScans && first.toString('latin1').includes('INSTREAM')) {
        client.end('INSTREAM size limit exceeded. ERROR\0');
        return;
      }
      const upstream = connect({ host: clamd.host, port: clamd.port });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      upstream.write(first);
      client.pipe(upstream).pipe(client);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(96 * 1024)]);

async function scannedAttachments(
  env: Awaited<ReturnType<typeof startInboundEnv>>,
  wanted: (states: string[]) => boolean,
) {
  return eventually(async () => {
    const list = await env.ph.request('GET', '/v1/inbound/emails');
    const id = list.body.data[0]?.id;
    if (!id) return undefined;
    const detail = await env.ph.request('GET', `/v1/inbound/emails/${id}`);
    const states = detail.body.attachments.map((a: { scan_state: string }) => a.scan_state);
    return wanted(states) ? detail.body : undefined;
  }, 15_000);
}

test('the EICAR test file is infected and refused; a clean file is downloaded byte for byte', async (t) => {
  const env = await startInboundEnv(t);
  await createRoute(env.ph, env.domainId, 'invoices');
  await env.send({
    from: 'billing@sender.example',
    to: `invoices@${DOMAIN}`,
    subject: 'Your invoice',
    text: 'Two files attached.',
    attachments: [
      { filename: 'Rechnung März.pdf', content: PDF, contentType: 'application/pdf' },
      { filename: 'eicar.com', content: EICAR, contentType: 'application/octet-stream' },
    ],
  });
  await env.settled();
  const message = await scannedAttachments(
    env,
    (states) => states.length === 2 && !states.includes('pending'),
  );
  const [pdf, eicar] = message.attachments;
  t.like(pdf, {
    filename: 'Rechnung März.pdf',
    content_type: 'application/pdf',
    size_bytes: PDF.length,
    scan_state: 'clean',
  });
  t.is(pdf.download_url, `/v1/inbound/attachments/${pdf.id}/download`);
  t.like(eicar, { filename: 'eicar.com', scan_state: 'infected', download_url: null });
  t.regex(eicar.scan_signature, /eicar/i);

  const refused = await env.ph.request('GET', `/v1/inbound/attachments/${eicar.id}/download`);
  t.is(refused.status, 404);
  t.false(refused.text.includes('EICAR'));

  const res = await fetch(`${env.ph.url}/v1/inbound/attachments/${pdf.id}/download`, {
    headers: { authorization: `Bearer ${env.ph.owner.apiKey}` },
  });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/pdf');
  t.is(
    res.headers.get('content-disposition'),
    `attachment; filename="Rechnung M_rz.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf`,
  );
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.true(Buffer.from(await res.arrayBuffer()).equals(PDF));

  t.is((await env.ph.request('GET', '/v1/inbound/attachments/att_NOPE/download')).status, 404);
  const other = await env.ph.bootstrap();
  t.is(
    (await env.ph.request('GET', `/v1/inbound/attachments/${pdf.id}/download`, { key: other.apiKey })).status,
    404,
  );
});

test('while clamd is down attachments stay pending and the scanner is degraded; they are scanned when it returns', async (t) => {
  const clamd = await requireClamd();
  let proxy = await clamdProxy(clamd);
  const port = proxy.port;
  t.teardown(() => proxy.close());
  const env = await startInboundEnv(t, { clamav: { port, timeout_ms: 2_000 } });
  await createRoute(env.ph, env.domainId, 'invoices');
  t.is((await env.ph.request('GET', '/health', { key: null })).body.components.scanner.status, 'operational');

  await proxy.close();
  await env.send({
    from: 'billing@sender.example',
    to: `invoices@${DOMAIN}`,
    subject: 'While clamd sleeps',
    text: 'Attached.',
    attachments: [{ filename: 'report.pdf', content: PDF, contentType: 'application/pdf' }],
  });
  await env.settled();
  await env.ph.server.services.inbound.scanNow();
  const pending = await scannedAttachments(env, (states) => states[0] === 'pending');
  const id = pending.attachments[0].id;
  t.is((await env.ph.request('GET', `/v1/inbound/attachments/${id}/download`)).status, 404);
  const health = await env.ph.request('GET', '/health', { key: null });
  t.is(health.status, 200);
  t.is(health.body.status, 'degraded');
  t.is(health.body.components.scanner.status, 'degraded');
  t.regex(health.body.components.scanner.detail, /does not answer/);
  const [attempts] = (await query<{ scan_attempts: number }>(
    env.ph.server.kernel.store,
    'select scan_attempts from inbound_attachments where id = ?',
    id,
  )) as [{ scan_attempts: number }];
  t.is(attempts.scan_attempts, 0, 'clamd being away does not count against the attachment');

  proxy = await clamdProxy(clamd, port);
  const clean = await scannedAttachments(env, (states) => states[0] === 'clean');
  t.is(clean.attachments[0].id, id);
  t.is((await env.ph.request('GET', `/v1/inbound/attachments/${id}/download`)).status, 200);
  t.is((await env.ph.request('GET', '/health', { key: null })).body.components.scanner.status, 'operational');
});

test('an attachment clamd keeps refusing is marked error after max_attempts and never served', async (t) => {
  const clamd = await requireClamd();
  const proxy = await clamdProxy(clamd, 0, true);
  t.teardown(() => proxy.close());
  const env = await startInboundEnv(t, {
    clamav: { port: proxy.port, max_attempts: 2, rescan_interval: '200ms' },
  });
  await createRoute(env.ph, env.domainId, 'invoices');
  await env.send({
    from: 'billing@sender.example',
    to: `invoices@${DOMAIN}`,
    subject: 'Too big for clamd',
    text: 'Attached.',
    attachments: [{ filename: 'huge.bin', content: PDF }],
  });
  await env.settled();
  const failed = await scannedAttachments(env, (states) => states[0] === 'error');
  const id = failed.attachments[0].id;
  const [row] = (await query<{ scan_attempts: number; scan_detail: string }>(
    env.ph.server.kernel.store,
    'select scan_attempts, scan_detail from inbound_attachments where id = ?',
    id,
  )) as [{ scan_attempts: number; scan_detail: string }];
  t.is(row.scan_attempts, 2);
  t.truthy(row.scan_detail);
  t.is((await env.ph.request('GET', `/v1/inbound/attachments/${id}/download`)).status, 404);
  t.is((await env.ph.request('GET', '/health', { key: null })).body.components.scanner.status, 'operational');
});
