/**
 * Hostile HTTP input, by hand: bodies far past the limit, deeply nested JSON, bytes that are not
 * UTF-8, CR/LF smuggled into every field that reaches a mail header (checked in the bytes the MX
 * received), path traversal through IDs and the dashboard's file server, and a crowd of slow
 * clients. The server must refuse each early and plainly, and stay healthy for good clients.
 */
import { connect, type Socket } from 'node:net';
import test from 'ava';
import { FROM, mx, startDeliveryEnv } from '../delivery/env.js';
import { startPosthorn } from '../helpers/server.js';
import { rawRequest } from './fuzz/openapi-fuzz.js';
import { spawnPosthorn } from './serve.js';

const MB = 1024 * 1024;

test('a 10 MB body is refused with 413 before it is read, chunked or not, and the server’s memory stays flat', async (t) => {
  t.timeout(180_000);
  const serve = await spawnPosthorn({});
  t.teardown(() => serve.dispose());
  await serve.start();
  const auth = { authorization: `Bearer ${serve.apiKey}`, 'content-type': 'application/json' };
  await rawRequest(serve.url, 'GET', '/v1/domains', auth);
  const big = Buffer.alloc(10 * MB, 'a');
  // Two bodies first, so the peak measured after is what more bodies add, not the first use of
  // the server's buffers.
  for (let i = 0; i < 2; i++) await rawRequest(serve.url, 'POST', '/v1/emails', auth, big);
  const before = serve.memory();
  for (const path of [
    '/v1/emails',
    '/v1/templates',
    '/v1/auth/login-password',
    '/oauth/register',
    '/v1/domains',
  ]) {
    const declared = await rawRequest(serve.url, 'POST', path, auth, big);
    t.is(declared.status, 413, `${path}: ${declared.text}`);
    const body = JSON.parse(declared.text);
    t.regex(body.error_description ?? body.error, /larger than the limit/);
  }
  // Without a Content-Length (chunked): the limit is enforced while reading.
  for (let round = 0; round < 3; round++) t.is(await chunkedUpload(serve.url, serve.apiKey, 10), 413);
  const after = serve.memory();
  // Thirty more (300 MB): memory that is bounded does not grow with the number of bodies refused.
  for (let round = 0; round < 15; round++) {
    await rawRequest(serve.url, 'POST', '/v1/emails', auth, big);
    t.is(await chunkedUpload(serve.url, serve.apiKey, 10), 413);
  }
  const later = serve.memory();
  const first = after.peakMb - before.peakMb;
  const more = later.peakMb - after.peakMb;
  t.log(
    `10 MB bodies: server peak RSS ${before.peakMb.toFixed(1)} MB, +${first.toFixed(1)} MB after 8 bodies, +${more.toFixed(1)} MB after 30 more (300 MB refused; the body limit is 5 MB, a chunked body is read up to it)`,
  );
  t.true(first < 64, `the server's peak RSS grew ${first.toFixed(1)} MB over eight 10 MB bodies`);
  t.true(more < 32, `the server's peak RSS grew ${more.toFixed(1)} MB more over thirty more`);
  t.is(
    (await rawRequest(serve.url, 'GET', '/v1/domains', auth)).status,
    200,
    'good requests are still served',
  );
});

/** POSTs `megabytes` MB of chunked body to /v1/emails; resolves with the status answered. */
function chunkedUpload(base: string, key: string, megabytes: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /v1/emails HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = Buffer.alloc(MB, 'b');
      for (let i = 0; i < megabytes; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      socket.write('0\r\n\r\n');
    });
    let head = '';
    socket.on('data', (d) => {
      head += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d+)/.exec(head);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    // The server answers 413 and closes while the body is still being written (EPIPE here).
    socket.on('error', (error) => setTimeout(() => reject(error), 1000));
  });
}

test('deeply nested JSON is a 400, on routes with a body and without', async (t) => {
  const ph = await startPosthorn(t);
  const auth = { authorization: `Bearer ${ph.owner.apiKey}`, 'content-type': 'application/json' };
  const depth = 200_000;
  const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const objects = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const inField = `{"from":"a@b.test","to":["c@d.test"],"subject":"s","text":"t","tags":${objects}}`;
  for (const [path, method] of [
    ['/v1/emails', 'POST'],
    ['/v1/domains', 'GET'],
    ['/v1/webhooks', 'POST'],
  ] as const) {
    for (const body of [arrays, objects, inField]) {
      const res = await rawRequest(ph.url, method, path, auth, body);
      t.is(res.status, 400, `${method} ${path}: ${res.text.slice(0, 200)}`);
    }
  }
  t.is((await ph.request('GET', '/v1/domains')).status, 200);
});

test('bytes that are not UTF-8 are a 400 in a body, and never a 5xx in a path or query', async (t) => {
  const ph = await startPosthorn(t);
  const auth = { authorization: `Bearer ${ph.owner.apiKey}`, 'content-type': 'application/json' };
  const invalid = Buffer.concat([
    Buffer.from('{"from":"Sandbox <sandbox@posthorn.test>","to":["owner@example.test"],"subject":"'),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
    Buffer.from('","text":"t"}'),
  ]);
  const res = await rawRequest(ph.url, 'POST', '/v1/emails', auth, invalid);
  t.is(res.status, 400, res.text);
  t.regex(res.text, /not valid UTF-8/);
  const form = await rawRequest(
    ph.url,
    'POST',
    '/oauth/token',
    { 'content-type': 'application/x-www-form-urlencoded' },
    Buffer.concat([Buffer.from('grant_type='), Buffer.from([0xff, 0xfe])]),
  );
  t.is(form.status, 400, form.text);
  for (const path of [
    '/v1/emails/%FF%FE',
    '/v1/emails?limit=%FF',
    '/v1/suppressions/%C3%28',
    '/v1/emails/%',
  ]) {
    const r = await rawRequest(ph.url, 'GET', path, { authorization: auth.authorization });
    t.true(r.status >= 400 && r.status < 500, `${path} → ${r.status} ${r.text}`);
  }
});

test('path traversal in IDs and in the dashboard paths reaches no file', async (t) => {
  const ph = await startPosthorn(t);
  const auth = { authorization: `Bearer ${ph.owner.apiKey}` };
  const probes = [
    '/v1/emails/..%2F..%2F..%2F..%2Fetc%2Fpasswd',
    '/v1/emails/../../../../etc/passwd',
    '/v1/inbound/attachments/..%2F..%2Fconfig.toml/download',
    '/v1/inbound/attachments/%2e%2e%2f%2e%2e%2fmaster.key/download',
    '/v1/templates/....%2F%2F....%2F%2Fetc%2Fpasswd',
    '/v1/inbound/emails/..%5C..%5Cwindows%5Cwin.ini',
    '/../../../../etc/passwd',
    '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
    '/assets/..%2F..%2F..%2Fpackage.json',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/dashboard/..%2f..%2f..%2fetc%2fpasswd',
    '/static/..%252F..%252Fetc%252Fpasswd',
    '/v1/status/subscriptions/verify/..%2F..%2F..%2Fetc%2Fpasswd',
    '/v1/unsubscribe/..%2F..%2Fmaster.key',
  ];
  for (const path of probes) {
    const res = await rawRequest(ph.url, 'GET', path, auth);
    t.true(res.status < 500, `${path} → ${res.status}`);
    t.notRegex(res.text, /root:x:0:0|"dependencies"|\[server\]|BEGIN .*PRIVATE KEY/, `${path} leaked a file`);
  }
});

test('CR and LF in any field that reaches a mail header never reach the wire: refused, or folded into the value', async (t) => {
  t.timeout(180_000);
  const env = await startDeliveryEnv(t);
  mx(env.dns, 'example.net', [{ host: 'mx1.example.net', ip: '127.0.0.1' }]);
  const evil = 'x\r\nBcc: stolen@example.net\r\nX-Injected: yes';
  const bareLf = 'x\nX-Injected: yes';
  const cases: [string, Record<string, unknown>][] = [];
  for (const payload of [evil, bareLf]) {
    cases.push(
      ['subject', { subject: `Hello ${payload}` }],
      ['from display name', { from: `"Acme ${payload}" <hello@acme.test>` }],
      ['to display name', { to: [`"Ann ${payload}" <ann@example.net>`] }],
      ['cc', { cc: [`cy@example.net${payload}`] }],
      ['reply_to', { reply_to: [`"Help ${payload}" <help@acme.test>`] }],
      ['reply_to address', { reply_to: [`help@acme.test${payload}`] }],
      ['tags value', { tags: { order: payload } }],
      ['tags name', { tags: { [`o${payload}`]: '1' } }],
      ['In-Reply-To', { headers: { 'In-Reply-To': `<a@b>${payload}` } }],
      ['References', { headers: { References: `<a@b> ${payload}` } }],
      ['List-Unsubscribe', { headers: { 'List-Unsubscribe': `<https://acme.test/u>${payload}` } }],
      [
        'List-Unsubscribe-Post',
        { headers: { 'List-Unsubscribe-Post': `List-Unsubscribe=One-Click${payload}` } },
      ],
      ['header name', { headers: { [`X-A${payload}`]: 'v' } }],
    );
  }
  // A template variable rendered into the subject.
  const template = await env.ph.request('POST', '/v1/templates', {
    body: { name: 'T', subject: 'Hi {{name}}', text_body: 'Hello {{name}}', variables: ['name'] },
  });
  t.is(template.status, 201, template.text);
  t.is((await env.ph.request('POST', `/v1/templates/${template.body.id}/publish`)).status, 200);
  for (const payload of [evil, bareLf]) {
    cases.push([
      'template variable in the subject',
      { subject: undefined, text: undefined, template: template.body.id, variables: { name: payload } },
    ]);
  }
  let accepted = 0;
  const outcomes: string[] = [];
  for (const [field, fields] of cases) {
    const res = await env.ph.request('POST', '/v1/emails', {
      body: { from: FROM, to: ['ann@example.net'], subject: 'Hello', text: 'Hello', ...fields },
    });
    outcomes.push(`${field}: ${res.status}`);
    t.true(res.status === 202 || res.status === 400, `${field}: ${res.status} ${res.text}`);
    if (res.status === 202) accepted += 1;
  }
  const received = await env.peer.waitFor(accepted);
  t.log(
    `header injection: ${cases.length} attempts, ${accepted} accepted and delivered, ${cases.length - accepted} refused (${outcomes.join(', ')})`,
  );
  for (const message of received) {
    t.deepEqual([...message.rcptTo], ['ann@example.net'], 'no recipient smuggled into the envelope');
    const raw = message.data.toString('latin1');
    const head = raw.slice(0, raw.indexOf('\r\n\r\n'));
    t.notRegex(head, /^(Bcc|X-Injected):/im, `an injected header reached the MX:\n${head}`);
    t.notRegex(head, /[^\r]\n|\r[^\n]/, 'a bare CR or LF in the header section');
  }
});

test('a crowd of slow clients is cut off by the header timeout, connections stay bounded, good clients are served', async (t) => {
  t.timeout(120_000);
  const ph = await startPosthorn(t, { server: { headers_timeout: '3s', max_connections: 1500 } });
  const url = new URL(ph.url);
  const crowd = Number(process.env.POSTHORN_SLOW_CLIENTS ?? 1000);
  const sockets: Socket[] = [];
  let closedByServer = 0;
  const opened = await Promise.all(
    Array.from(
      { length: crowd },
      () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(Number(url.port), url.hostname, () => {
            socket.write('GET /v1/domains HTTP/1.1\r\nHost: x\r\n'); // headers never finished
            resolve(true);
          });
          socket.on('error', () => resolve(false));
          socket.on('close', () => {
            closedByServer += 1;
          });
          sockets.push(socket);
        }),
    ),
  );
  t.is(opened.filter(Boolean).length, crowd);
  const drip = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('X-Slow: 1\r\n');
  }, 500);
  t.teardown(() => {
    clearInterval(drip);
    for (const s of sockets) s.destroy();
  });
  // Good clients are served while the crowd holds its connections.
  const during = await Promise.all(Array.from({ length: 20 }, () => ph.request('GET', '/v1/domains')));
  t.true(during.every((r) => r.status === 200));
  const started = Date.now();
  while (closedByServer < crowd && Date.now() - started < 30_000)
    await new Promise((r) => setTimeout(r, 250));
  t.is(
    closedByServer,
    crowd,
    `the server closed ${closedByServer} of ${crowd} slow connections within ${(Date.now() - started) / 1000} s`,
  );
  const seconds = (Date.now() - started) / 1000;
  t.log(`${crowd} slow clients: all cut off ${seconds.toFixed(1)} s after the good requests were served`);
  // A few header timeouts (3 s); the clients share this process's event loop with the server.
  t.true(seconds < 15 + Math.max(0, crowd - 1000) / 1000, `cut off within ${seconds} s`);
  t.is((await ph.request('GET', '/v1/domains')).status, 200);
});

test('connections past server.max_connections are closed at once, and those under it are served', async (t) => {
  // A long header timeout: the held connections must not be cut while the test opens them on a busy host.
  const ph = await startPosthorn(t, { server: { max_connections: 50, headers_timeout: '60s' } });
  const url = new URL(ph.url);
  const held: Socket[] = [];
  t.teardown(() => {
    for (const s of held) s.destroy();
  });
  for (let i = 0; i < 50; i++) {
    held.push(
      await new Promise<Socket>((resolve) => {
        const s = connect(Number(url.port), url.hostname, () => resolve(s));
        s.on('error', () => {});
      }),
    );
  }
  await new Promise((r) => setTimeout(r, 500)); // every one of the 50 accepted by the server
  const refused = await new Promise<boolean>((resolve) => {
    const s = connect(Number(url.port), url.hostname, () =>
      s.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    s.on('data', () => resolve(false));
    s.on('close', () => resolve(true));
    s.on('error', () => resolve(true));
  });
  t.true(refused, 'the 51st connection was closed without an answer');
  for (const s of held.splice(0, 10)) s.destroy();
  await new Promise((r) => setTimeout(r, 200));
  t.is((await ph.request('GET', '/v1/domains')).status, 200, 'served once a place is free');
});

test('no origin is granted cross-origin access: preflights and requests from another site get no Access-Control-Allow header', async (t) => {
  const ph = await startPosthorn(t);
  const origin = { origin: 'https://evil.example' };
  const preflights = await Promise.all(
    ['/v1/emails', '/v1/auth/login-password', '/v1/dashboard/api-keys', '/oauth/token'].map((path) =>
      ph.request('OPTIONS', path, {
        key: null,
        headers: {
          ...origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      }),
    ),
  );
  const reads = await Promise.all([
    ph.request('GET', '/v1/domains', { headers: origin }),
    ph.request('GET', '/v1/auth/session', { headers: origin }),
    ph.request('GET', '/health', { key: null, headers: origin }),
  ]);
  for (const res of [...preflights, ...reads]) {
    const granted = [...res.headers.keys()].filter((name) => name.startsWith('access-control-allow'));
    t.deepEqual(granted, [], `${res.status}: ${granted.join(', ')}`);
  }
  t.is(
    reads[0]?.status,
    200,
    'the request itself is served; the browser keeps its answer from the other site',
  );
});
