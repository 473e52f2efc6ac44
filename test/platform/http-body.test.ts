import http from 'node:http';
import test from 'ava';
import { startCore } from '../helpers/http-core.js';

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** POSTs a body in chunks with Transfer-Encoding: chunked (no Content-Length). */
function postChunked(url: string, key: string, chunks: readonly string[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/things`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    // The server may close while the rest is still being sent; only a missing answer is a failure.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

test('a chunked body over the limit is a JSON 413 with X-Request-ID and an access-log line', async (t) => {
  const { ph, url, logs } = await startCore(t, { maxBodyBytes: 1024, accessLog: true });
  const chunks = ['{"name": "', ...Array.from({ length: 8 }, () => 'x'.repeat(512)), '"}'];
  const res = await postChunked(url, ph.owner.apiKey, chunks);
  t.is(res.status, 413);
  t.regex(res.headers['content-type'] ?? '', /application\/json/);
  t.deepEqual(JSON.parse(res.text), { error: 'Request body is larger than the limit of 1024 bytes.' });
  t.regex(String(res.headers['x-request-id']), /^req_/);
  t.not(res.headers.connection, 'close', 'the rest was drained first, so no reset can lose the 413');
  const line = logs.find((l) => l.msg === 'request' && l.request_id === res.headers['x-request-id']);
  t.like(line, { method: 'POST', route: '/v1/things', status: 413, ip: '127.0.0.1' });

  // The server is fine afterwards, and a chunked body within the limit is read whole.
  const small = await postChunked(url, ph.owner.apiKey, ['{"name": ', '"ok"}']);
  t.is(small.status, 201);
  t.deepEqual(JSON.parse(small.text), { name: 'ok' });
});

/** Any method, any body: fetch() refuses a GET with a body, node:http does not. */
function send(url: string, method: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(`${url}${path}`, {
      method,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a route that takes no body refuses one with a 400 naming the fields; none or {} is fine', async (t) => {
  const { ph, url } = await startCore(t);
  const auth = { authorization: `Bearer ${ph.owner.apiKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const fields = await send(url, 'POST', '/v1/things/t1/poke', '{"force": true, "why": 1}', json);
  t.is(fields.status, 400);
  t.deepEqual(JSON.parse(fields.text), {
    error: 'This endpoint takes no request body: `force`, `why` are not supported fields.',
    details: [
      { path: 'force', message: 'is not a supported field' },
      { path: 'why', message: 'is not a supported field' },
    ],
  });
  const text = await send(url, 'POST', '/v1/things/t1/poke', 'hello', {
    ...auth,
    'content-type': 'text/plain',
  });
  t.is(text.status, 400);
  t.deepEqual(JSON.parse(text.text), { error: 'This endpoint takes no request body; send none.' });
  const onGet = await send(url, 'GET', '/v1/things/t1', '{"x": 1}', json);
  t.is(onGet.status, 400);
  t.regex(JSON.parse(onGet.text).error, /`x` is not a supported field/);
  t.is((await send(url, 'POST', '/v1/things/t1/poke', '{}', json)).status, 200);
  t.is((await send(url, 'POST', '/v1/things/t1/poke', '', auth)).status, 200);
});

test('GET /health with a body that is not JSON is the same 400 as any route that takes no body', async (t) => {
  const { ph } = await startCore(t);
  const res = await send(ph.url, 'GET', '/health', 'ping', { 'content-type': 'text/plain' });
  t.is(res.status, 400);
  t.deepEqual(JSON.parse(res.text), { error: 'This endpoint takes no request body; send none.' });
  const plain = await send(ph.url, 'GET', '/health', '', {});
  t.is(plain.status, 200);
  t.is(JSON.parse(plain.text).status, 'ok');
});
